import { describe, expect, it } from 'vitest';
import { untilSignal } from '../../src/cli/signals.js';

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
