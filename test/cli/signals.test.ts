import { describe, expect, it } from 'vitest';
import { abortOnSignal, untilSignal } from '../../src/cli/signals.js';

describe('untilSignal', () => {
  it('resolves with the first stop signal and stops listening for the others', async () => {
    const before = { term: process.listenerCount('SIGTERM'), int: process.listenerCount('SIGINT') };
    const stopped = untilSignal();
    expect(process.listenerCount('SIGTERM')).toBe(before.term + 1);
    expect(process.listenerCount('SIGINT')).toBe(before.int + 1);
    // process.emit calls the listeners only; no signal is sent to the process.
    process.emit('SIGINT');
    await expect(stopped).resolves.toBe('SIGINT');
    expect(process.listenerCount('SIGTERM')).toBe(before.term);
    expect(process.listenerCount('SIGINT')).toBe(before.int);
  });
});

describe('abortOnSignal', () => {
  it('aborts on the first stop signal, names it, and leaves the next one to end the process', () => {
    const before = { term: process.listenerCount('SIGTERM'), int: process.listenerCount('SIGINT') };
    const stop = abortOnSignal();
    expect(stop.signal.aborted).toBe(false);
    process.emit('SIGTERM');
    expect(stop.signal.aborted).toBe(true);
    expect(stop.stoppedBy()).toBe('SIGTERM');
    expect(process.listenerCount('SIGTERM')).toBe(before.term);
    expect(process.listenerCount('SIGINT')).toBe(before.int);
  });

  it('stops listening when disposed', () => {
    const before = process.listenerCount('SIGINT');
    abortOnSignal().dispose();
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});
