import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { waitForEvent } from '../src/wait.js';

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
});
