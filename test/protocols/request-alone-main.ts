// A process whose only work is one request() that is never answered (its send was taken, as a
// 202 without a return-routed body is): it must end with the request's timeout, printed here,
// not exit early with the answer still awaited. await-reply-hold.test.ts runs it.
import { EventEmitter } from 'node:events';
import { request } from '../../src/protocols/await-reply.js';
import type { Router } from '../../src/router/router.js';
import { waitForEvent } from '../../src/wait.js';

const events = new EventEmitter();
const router = {
  ids: () => 'req-1',
  send: async (draft: { id: string }) => ({ message: draft }),
  waitFor: (event: string, predicate: (d: unknown) => boolean, o: object) => waitForEvent(events, event, predicate, o),
} as unknown as Router;

try {
  await request(router, { type: 'https://didcomm.org/coordinate-mediation/2.0/mediate-request', body: {} }, 'mediation-answer', { timeoutMs: 300 });
  process.stdout.write('answered\n');
} catch (err) {
  process.stdout.write(`${(err as { code?: string }).code}\n`);
}
