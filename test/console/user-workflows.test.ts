// A workflow created for no user id (as the demo's is) is listed on the page of the user whose
// wallet answered it, and on no other user's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectUser, nextOutboxEntry, waitForWorkflowStatus } from '../../src/testing/index.js';
import { startConsoleBed, type ConsoleBed } from './helpers.js';

let c: ConsoleBed;
let workflowId: string;

beforeAll(async () => {
  c = await startConsoleBed();
  const wallet = c.bed.wallets[0]!;
  await connectUser(c.bed, 'ada', wallet);
  await c.bed.service.client.putUser('bob', { settings: { isSyncOn: false } });
  const wf = await c.bed.service.client.createWorkflow({ datapoints: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09', emailAddress: 'grace@example.com' } });
  workflowId = wf.id;
  await c.bed.service.client.sendInvitation(wf.id, [{ channel: 'EMAIL', target: 'grace@example.com' }]);
  const mail = await nextOutboxEntry(c.bed.service, { workflowId });
  const accepted = await wallet.acceptInvitation(mail.invitationUrl);
  if (accepted.kind === 'issuance') await accepted.done;
  await waitForWorkflowStatus(c.bed.service.client, wf.id, 'COMPLETED');
}, 60_000);
afterAll(() => c.close());

describe("a workflow without a user id on its user's page", () => {
  it('is listed for the user whose wallet answered it', async () => {
    const body = (await c.call('GET', '/console/users/ada?fragment=1')).body;
    expect(body).toContain(`/console/workflows/${workflowId}`);
    expect(body).not.toContain('No issuance workflows for this user.');
  });

  it('is not listed for another user', async () => {
    const body = (await c.call('GET', '/console/users/bob?fragment=1')).body;
    expect(body).not.toContain(`/console/workflows/${workflowId}`);
  });
});
