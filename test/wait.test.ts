import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { stopWaits, waitForEvent } from '../src/wait.js';

describe('waitForEvent', () => {
  it('resolves with the first event that matches, skipping those that do not', async () => {
    const e = new EventEmitter();
    const p = waitForEvent<number>(e, 'n', (n) => n > 1, { timeoutMs: 1000 });
    e.emit('n', 1);
    e.emit('n', 2);
    await expect(p).resolves.toBe(2);
    expect(e.listenerCount('n')).toBe(0);
  });

  it('treats a predicate that throws as no match, and does not throw into the emitter', async () => {
    const e = new EventEmitter();
    const p = waitForEvent<{ x?: { y: number } }>(e, 'v', (v) => v.x!.y === 1, { timeoutMs: 1000 });
    expect(() => e.emit('v', {})).not.toThrow();
    e.emit('v', { x: { y: 1 } });
    await expect(p).resolves.toEqual({ x: { y: 1 } });
  });

  it('rejects with a coded error when aborted, and removes its listener', async () => {
    const e = new EventEmitter();
    const ac = new AbortController();
    const p = waitForEvent(e, 'never', undefined, { timeoutMs: 1000, signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: 'aborted' });
    expect(e.listenerCount('never')).toBe(0);
  });

  it('stopWaits ends the waits on a signal with one shared coded reason, not a DOMException each time', async () => {
    const e = new EventEmitter();
    const stops = [new AbortController(), new AbortController()];
    const waits = stops.map((ac) => waitForEvent(e, 'never', undefined, { timeoutMs: 1000, signal: AbortSignal.any([ac.signal]) }));
    for (const ac of stops) stopWaits(ac);
    const reasons = await Promise.all(waits.map((w) => w.then(() => undefined, (err: unknown) => err)));
    expect(reasons[0]).toMatchObject({ code: 'aborted' });
    expect(reasons[1]).toBe(reasons[0]);
    expect(stops[0].signal.reason).toBe(reasons[0]);
    expect(stops[0].signal.reason).not.toBeInstanceOf(DOMException);
    expect(Object.isFrozen(reasons[0])).toBe(true);
    expect(e.listenerCount('never')).toBe(0);
  });
});
