import { describe, expect, it } from 'vitest';
import { keyedLock } from '../src/keyed-lock.js';

describe('keyedLock', () => {
  it('runs work on one key one at a time, in order, and other keys alongside', async () => {
    const lock = keyedLock();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const a1 = lock('a', async () => { log.push('a1 start'); await gate; log.push('a1 end'); });
    const a2 = lock('a', async () => { log.push('a2'); });
    const b = lock('b', async () => { log.push('b'); });
    await b;
    expect(log).toEqual(['a1 start', 'b']);
    release();
    await Promise.all([a1, a2]);
    expect(log).toEqual(['a1 start', 'b', 'a1 end', 'a2']);
  });

  it('lets the next caller run after a failure, and passes the failure to its own caller', async () => {
    const lock = keyedLock();
    await expect(lock('k', async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    await expect(lock('k', async () => 42)).resolves.toBe(42);
  });
});
