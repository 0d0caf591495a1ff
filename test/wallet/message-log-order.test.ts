// The wallet's message log lists each message after the one it answers: a message is logged when
// it was made, not when sending it finished (the peer's reply may arrive while our POST is still
// open). Checked over real sockets and in memory, through the whole sync flow.
import { afterEach, describe, expect, it } from 'vitest';
import type { LoggedMessage } from '../../src/store/messages.js';
import { connectUser, startTestbed, syncDatapoints, type Testbed } from '../../src/testing/index.js';

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

/** Messages listed before the message that started their thread (thid = its id), by type. */
function answersBeforeTheirQuestion(log: LoggedMessage[]): string[] {
  const position = new Map(log.map((m, i) => [m.id, i]));
  const short = (t: string) => t.split('/').slice(-2).join('/');
  return log.flatMap((m, i) => {
    const asked = m.thid !== undefined && m.thid !== m.id ? position.get(m.thid) : undefined;
    return asked !== undefined && asked > i ? [`${m.direction} ${short(m.type)} before ${log[asked]!.direction} ${short(log[asked]!.type)}`] : [];
  });
}

describe("the wallet's message log order", () => {
  for (const transport of ['http', 'memory'] as const) {
    it(`lists every reply after the message it answers (${transport})`, async () => {
      bed = await startTestbed({ transport });
      const [wallet] = bed.wallets;
      await connectUser(bed, 'ada', wallet!);
      await syncDatapoints(bed, 'ada', wallet!, { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' });
      const log = await wallet!.messages();
      expect(log.filter((m) => m.direction === 'out').length).toBeGreaterThan(2);
      expect(answersBeforeTheirQuestion(log)).toEqual([]);
      // The thread view keeps the same order.
      const request = log.find((m) => m.type.endsWith('/request') && m.direction === 'out')!;
      const thread = await wallet!.messages({ thid: request.id });
      expect(thread.map((m) => m.direction)[0]).toBe('out');
      // Still one record per message, each with its final result.
      expect(new Set(log.map((m) => `${m.direction} ${m.id}`)).size).toBe(log.length);
      expect(log.filter((m) => m.direction === 'out').every((m) => m.result === 'sent')).toBe(true);
    });
  }
});
