// What a QA test looks like: start a testbed, drive the service's REST API, await states.
// In your own project import from 'idsync/testing' instead of the sources.
import { afterEach, expect, it } from 'vitest';
import {
  connectUser, nextOutboxEntry, startTestbed, waitForCredential, waitForSyncContext, waitForWebhook, waitForWorkflowStatus,
  type Testbed,
} from '../../src/testing/index.js';

let bed: Testbed | undefined;
afterEach(async () => bed?.close());

it("syncs a user's datapoints into their wallet", async () => {
  bed = await startTestbed();
  const { client } = bed.service;
  const [wallet] = bed.wallets;

  await connectUser(bed, 'alice', wallet);
  await client.putDatapoints('alice', { firstName: 'Alice', lastName: 'Liddell', birthDate: '1852-05-04' });

  const credential = await waitForCredential(wallet, (c) => c.claims.firstName === 'Alice');
  expect(credential.verified).toBe(true);
  const context = await waitForSyncContext(client, 'alice', (c) => c.isLinked);
  expect(context.syncContext.datapointsSynced).toMatchObject({ firstName: 'Alice', lastName: 'Liddell' });
  await waitForWebhook(bed.webhooks, { event: 'DATA_SYNC_COMPLETED', params: { cptyDID: wallet.did } });
});

it('issues a credential through an invitation sent by e-mail', async () => {
  bed = await startTestbed();
  const { client } = bed.service;
  const [wallet] = bed.wallets;

  const workflow = await client.createWorkflow({ datapoints: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' } });
  await client.sendInvitation(workflow.id, [{ channel: 'EMAIL', target: 'grace@example.com' }]);
  const email = await nextOutboxEntry(bed.service, { to: 'grace@example.com' });
  await wallet.acceptInvitation(email.invitationUrl);

  const done = await waitForWorkflowStatus(client, workflow.id, 'COMPLETED');
  const credential = await waitForCredential(wallet, (c) => c.id === done.credentialId);
  expect(credential.claims).toMatchObject({ firstName: 'Grace', lastName: 'Hopper' });
});
