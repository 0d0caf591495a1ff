// Over HTTP, a party the testbed crashes while it handles a message answers nothing: the
// connection is reset, as a killed process's would be, and the sender retries soon (its
// unreachable back-off, here the testbed's short retry). It used to answer 503 with the default
// Retry-After of 5 s, so every flow crashed at a receiving step stood still for 5 s, longer than
// a test's default timeout (hence the 4 s guards below).
import { afterEach, it } from 'vitest';
import { nextOutboxEntry, startTestbed, waitForCredential, waitForWorkflowStatus, type Testbed } from '../../src/testing/index.js';

const GRACE = { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' };
const RETRY = { baseDelayMs: 20, maxDelayMs: 100, unreachableDelayMs: 50 };
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

async function invitedWorkflow(b: Testbed): Promise<{ id: string; url: string }> {
  const wf = await b.service.client.createWorkflow({ datapoints: GRACE });
  await b.service.client.sendInvitation(wf.id, [{ channel: 'EMAIL', target: 'grace@example.com' }]);
  return { id: wf.id, url: (await nextOutboxEntry(b.service, { workflowId: wf.id })).invitationUrl };
}

it('a wallet crashed while taking its credential is sent it again soon after its restart', async () => {
  bed = await startTestbed({ transport: 'http', storage: 'temp', retry: RETRY });
  const [wallet] = bed.wallets;
  const wf = await invitedWorkflow(bed);
  const crashed = bed.crashAt(wallet, 'send:issue-credential.ack');
  await wallet.acceptInvitation(wf.url);
  await crashed;
  const again = (await bed.restart(wallet))!;
  const done = await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED', { timeoutMs: 4_000 });
  await waitForCredential(again, (c) => c.id === done.credentialId, { timeoutMs: 1_000 });
});

it('a service crashed while answering a proposal is sent it again soon after its restart', async () => {
  bed = await startTestbed({ transport: 'http', storage: 'temp', retry: RETRY });
  const [wallet] = bed.wallets;
  const wf = await invitedWorkflow(bed);
  const crashed = bed.crashAt('service', 'send:offer-credential');
  const accepted = wallet.acceptInvitation(wf.url, { timeoutMs: 3_000 });
  await crashed;
  await bed.restart();
  await accepted;
  await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED', { timeoutMs: 4_000 });
});

it('a service crashed while taking an ack stops at once and completes the workflow after its restart', async () => {
  bed = await startTestbed({ transport: 'http', storage: 'temp', retry: RETRY });
  const [wallet] = bed.wallets;
  const wf = await invitedWorkflow(bed);
  // The wallet's retries keep its connection to the service busy: a graceful close waited for
  // it to go idle, so the crash took until the test's own timeout.
  const crashed = bed.crashAt('service', 'received:issue-credential.ack');
  await wallet.acceptInvitation(wf.url, { timeoutMs: 3_000 });
  await crashed;
  await bed.restart();
  await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED', { timeoutMs: 4_000 });
}, 10_000);
