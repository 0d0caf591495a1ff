// Over HTTP, a party the testbed crashes while it handles a message answers nothing: the
// connection is reset, as a killed process's would be, and the sender retries soon (its
// unreachable back-off, here the testbed's short retry). It used to answer 503 with the default
// Retry-After of 5 s, so every flow crashed at a receiving step stood still for 5 s. Each test
// checks what the sender saw: its send to the crashed party failed as unreachable, and no send
// was told to retry later. The time-outs are only guards against hanging.
import { afterEach, expect, it } from 'vitest';
import type { Wallet } from '../../src/wallet/wallet.js';
import { nextOutboxEntry, startTestbed, waitForCredential, waitForWorkflowStatus, type Testbed } from '../../src/testing/index.js';

const GRACE = { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' };
const RETRY = { baseDelayMs: 20, maxDelayMs: 100, unreachableDelayMs: 50 };
/** Far above the flows here (well under a second each) and above a 5 s Retry-After: a guard, not the check. */
const GUARD_MS = 20_000;
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

const kind = (type: string) => type.split('/').slice(-1)[0];

/**
 * What the wallet's log says became of its sends of `type` (its `result` and `errorCode`, in
 * order). A 503 or 429 with Retry-After would fail one with errorCode transport_retry_later.
 */
async function walletSends(wallet: Wallet, type: string): Promise<Array<{ result?: string; errorCode?: string }>> {
  const sends = (await wallet.messages()).filter((m) => m.direction === 'out' && kind(m.type) === type);
  return sends.map((m) => ({ result: m.result, errorCode: m.errorCode }));
}

it('a wallet crashed while taking its credential is sent it again soon after its restart', async () => {
  bed = await startTestbed({ transport: 'http', storage: 'temp', retry: RETRY });
  const [wallet] = bed.wallets;
  // Why the service kept each message it could not deliver: unreachable, or told to retry later.
  const kept: Array<{ type: string; reason: string }> = [];
  bed.service.agent.events.on('message-queued', (e: { type: string; reason: string }) => kept.push({ type: kind(e.type), reason: e.reason }));
  const wf = await invitedWorkflow(bed);
  const crashed = bed.crashAt(wallet, 'send:issue-credential.ack');
  await wallet.acceptInvitation(wf.url);
  await crashed;
  const again = (await bed.restart(wallet))!;
  const done = await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED', { timeoutMs: GUARD_MS });
  await waitForCredential(again, (c) => c.id === done.credentialId, { timeoutMs: GUARD_MS });
  // The credential the crashed wallet was taking: its connection was cut, not answered 503.
  const credentials = kept.filter((k) => k.type === 'issue-credential');
  expect(credentials).toContainEqual({ type: 'issue-credential', reason: 'unreachable: transport_unreachable' });
  // A 503 would have kept it 'endpoint asked to retry later (503)', to be sent after its Retry-After.
  expect(credentials.filter((k) => !k.reason.startsWith('unreachable'))).toEqual([]);
}, 60_000);

it('a service crashed while answering a proposal is sent it again soon after its restart', async () => {
  bed = await startTestbed({ transport: 'http', storage: 'temp', retry: RETRY });
  const [wallet] = bed.wallets;
  const wf = await invitedWorkflow(bed);
  const crashed = bed.crashAt('service', 'send:offer-credential');
  const accepted = wallet.acceptInvitation(wf.url, { timeoutMs: GUARD_MS });
  await crashed;
  await bed.restart();
  await accepted;
  await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED', { timeoutMs: GUARD_MS });
  // The proposal the service crashed on failed as unreachable (the completed workflow says a later
  // send went through; its record may still say 'sending' while the answer is on its way).
  const proposals = await walletSends(wallet, 'propose-credential');
  expect(proposals).toContainEqual({ result: 'failed', errorCode: 'transport_unreachable' });
  expect(proposals.filter((p) => p.errorCode === 'transport_retry_later')).toEqual([]);
}, 60_000);

it('a service crashed while taking an ack stops at once and completes the workflow after its restart', async () => {
  bed = await startTestbed({ transport: 'http', storage: 'temp', retry: RETRY });
  const [wallet] = bed.wallets;
  const wf = await invitedWorkflow(bed);
  // The wallet's retries keep its connection to the service busy: a graceful close waited for
  // it to go idle, so the crash took until the test's own timeout.
  const crashed = bed.crashAt('service', 'received:issue-credential.ack');
  await wallet.acceptInvitation(wf.url, { timeoutMs: GUARD_MS });
  await crashed;
  await bed.restart();
  await waitForWorkflowStatus(bed.service.client, wf.id, 'COMPLETED', { timeoutMs: GUARD_MS });
  const acks = await walletSends(wallet, 'ack');
  expect(acks).toContainEqual({ result: 'failed', errorCode: 'transport_unreachable' });
  expect(acks.filter((a) => a.errorCode === 'transport_retry_later')).toEqual([]);
}, 60_000);
