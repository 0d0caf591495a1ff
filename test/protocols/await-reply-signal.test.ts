// request() stopped by its caller's signal: the wait for an answer that is not coming (a 202
// without a return-routed body, a socket that never answers) ends at once, not at its timeout.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { request } from '../../src/protocols/await-reply.js';
import type { Router } from '../../src/router/router.js';
import { waitForEvent } from '../../src/wait.js';

const DRAFT = { type: 'https://didcomm.org/coordinate-mediation/2.0/mediate-request', body: {} };

function fakeRouter() {
  const events = new EventEmitter();
  const sent: string[] = [];
  const router = {
    ids: () => 'req-1',
    send: async (draft: { id: string }) => (sent.push(draft.id), { message: draft }),
    waitFor: (event: string, predicate: (d: unknown) => boolean, o: object) => waitForEvent(events, event, predicate, o),
  } as unknown as Router;
  return { router, events, sent };
}

describe('request() with a signal', () => {
  it('rejects with aborted as soon as the signal aborts, while the answer is awaited', async () => {
    const { router, events, sent } = fakeRouter();
    const stop = new AbortController();
    // Far off: only the abort can end the request within the test's time.
    const pending = request(router, DRAFT, 'mediation-answer', { timeoutMs: 60_000, signal: stop.signal });
    const outcome = pending.then(() => 'answered', (e: { code?: string }) => e.code);
    await new Promise<void>((r) => setImmediate(r));
    expect(sent).toEqual(['req-1']);
    stop.abort();
    expect(await outcome).toBe('aborted');
    // Nothing is left listening for the answer or a problem report.
    expect(events.listenerCount('mediation-answer')).toBe(0);
    expect(events.listenerCount('problem')).toBe(0);
  });

  it('sends nothing when the signal aborted before', async () => {
    const { router, sent } = fakeRouter();
    await expect(request(router, DRAFT, 'mediation-answer', { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'aborted' });
    expect(sent).toEqual([]);
  });

  it('resolves with the answer when the signal never aborts', async () => {
    const { router, events } = fakeRouter();
    const pending = request(router, DRAFT, 'mediation-answer', { timeoutMs: 60_000, signal: new AbortController().signal });
    await new Promise<void>((r) => setImmediate(r));
    events.emit('mediation-answer', { message: { id: 'ans-1', thid: 'req-1' } });
    await expect(pending).resolves.toMatchObject({ response: { id: 'ans-1' } });
  });
});
