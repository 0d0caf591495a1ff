// A wait polling a service in another process (no change feed) waits out a 429's Retry-After
// instead of polling on: otherwise it spends the client's whole rate budget, and the test's own
// calls with the same client id get 429 too. What is checked is the client's behaviour itself,
// request by request (the time from each refused request to the next one), not how many 429s
// fit in a window of real time, which a loaded machine stretches or squeezes.
import { afterEach, expect, it } from 'vitest';
import { createServiceClient, startTestbed, waitForWorkflowStatus, type Testbed } from '../../src/testing/index.js';

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

/** A request the polling client made: when it went out, and the answer's status and Retry-After. */
interface Sent {
  at: number;
  status: number;
  retryAfterSeconds?: number;
}

it('stops polling until the Retry-After of a 429 has passed', async () => {
  bed = await startTestbed({ transport: 'http', wallets: 0, webhooks: false, service: { rateLimit: { burst: 10, perSecond: 5 } } });
  const { clientId, clientSecret, projectId } = bed.service.credentials;
  const sent: Sent[] = [];
  let watching = false;
  const stop = new AbortController();
  const recording: typeof fetch = async (input, init) => {
    const at = performance.now();
    const res = await fetch(input, init);
    if (!watching) return res;
    const header = res.headers.get('retry-after');
    sent.push({ at, status: res.status, ...(header !== null ? { retryAfterSeconds: Number(header) } : {}) });
    // Seen enough once two refusals were each followed by the next request.
    const followed = sent.filter((s, i) => s.status === 429 && i + 1 < sent.length).length;
    if (followed >= 2) stop.abort();
    return res;
  };
  // Made as a test of a remote service makes it: no change feed, so its waits poll.
  const remote = createServiceClient({ url: bed.service.url, clientId, clientSecret, projectId, fetch: recording });
  const wf = await remote.createWorkflow({ datapoints: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' } });

  watching = true;
  // Never completes (no wallet): the wait ends when the abort above says enough was seen; the
  // timeout is only a guard, far above the two Retry-After pauses.
  const err = await waitForWorkflowStatus(remote, wf.id, 'COMPLETED', { pollMs: 10, timeoutMs: 30_000, signal: stop.signal }).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'aborted' });

  const refused = sent.flatMap((s, i) => (s.status === 429 && i + 1 < sent.length ? [{ refused: s, next: sent[i + 1] }] : []));
  expect(refused.length).toBeGreaterThanOrEqual(2);
  for (const { refused: r, next } of refused) {
    expect(r.retryAfterSeconds).toBeGreaterThan(0);
    // The next request went out no sooner than the Retry-After said (a timer may fire up to a
    // millisecond before the clock read here agrees; load only makes the pause longer).
    expect(next.at - r.at).toBeGreaterThanOrEqual(r.retryAfterSeconds! * 1000 - 2);
  }
  // Before the first 429 it polled at its own pace: the burst was there to spend.
  expect(sent.findIndex((s) => s.status === 429)).toBeGreaterThan(0);
}, 60_000);
