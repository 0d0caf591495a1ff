// A wait polling a service in another process (no change feed) waits out a 429's Retry-After
// instead of polling on: otherwise it spends the client's whole rate budget, and the test's own
// calls with the same client id get 429 too.
import { afterEach, expect, it } from 'vitest';
import { createServiceClient, startTestbed, waitForWorkflowStatus, type Testbed } from '../../src/testing/index.js';

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

it('stops polling until the Retry-After of a 429 has passed', async () => {
  bed = await startTestbed({ transport: 'http', wallets: 0, webhooks: false, service: { rateLimit: { burst: 10, perSecond: 5 } } });
  const { clientId, clientSecret, projectId } = bed.service.credentials;
  let refused = 0;
  const counting: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (res.status === 429) refused++;
    return res;
  };
  // Made as a test of a remote service makes it: no change feed, so its waits poll.
  const remote = createServiceClient({ url: bed.service.url, clientId, clientSecret, projectId, fetch: counting });
  const wf = await remote.createWorkflow({ datapoints: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' } });

  const err = await waitForWorkflowStatus(remote, wf.id, 'COMPLETED', { pollMs: 10, timeoutMs: 1_500 }).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'wait_timeout' });
  // Two bursts spent, each ended by one 429 and a pause of its Retry-After (1 s).
  expect(refused).toBeGreaterThan(0);
  expect(refused).toBeLessThanOrEqual(3);
});
