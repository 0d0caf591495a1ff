// The retry scheduler's timer: a job due later is sent when it is due, not once every send of
// the pass before it has ended. A peer whose endpoint never answers (each send lasts the whole
// transport timeout) held every other peer's retries behind its sends.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createScheduler } from '../../src/router/retry/scheduler.js';

describe('retry scheduler', () => {
  it("sends a job when it is due while an earlier job's send still hangs", async () => {
    const scheduler = createScheduler({ clock: systemClock });
    let release!: () => void;
    const hanging = new Promise<void>((r) => (release = r));
    const sentAt = new Map<string, number>();
    const t0 = Date.now();
    scheduler.register('test', {
      async run(job) {
        sentAt.set(job.key, Date.now() - t0);
        if (job.key === 'slow') await hanging; // an endpoint that does not answer
        return 'delivered';
      },
    });
    try {
      scheduler.schedule({ kind: 'test', key: 'slow', dueAt: Date.now() });
      scheduler.schedule({ kind: 'test', key: 'later', dueAt: Date.now() + 100 });
      const deadline = Date.now() + 3000;
      while (!sentAt.has('later') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(sentAt.has('slow')).toBe(true);
      expect(sentAt.get('later')).toBeLessThan(1000);
    } finally {
      release();
      scheduler.close();
    }
  });
});
