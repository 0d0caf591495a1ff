// waitForWorkflowStatus fails at once on what no wait could change: a workflow id the service
// does not know (one from another testbed or run) and a status that does not exist.
import { afterEach, expect, it } from 'vitest';
import { startTestbed, waitForWorkflowStatus, type Testbed } from '../../src/testing/index.js';

const GRACE = { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' };
const beds: Testbed[] = [];
afterEach(async () => {
  for (const b of beds.splice(0)) await b.close();
});

it("fails at once with workflow_not_found on another testbed's workflow id", async () => {
  const [a, b] = [await startTestbed({ wallets: 0 }), await startTestbed({ wallets: 0 })];
  beds.push(a, b);
  const wf = await a.service.client.createWorkflow({ datapoints: GRACE });
  const started = Date.now();
  await expect(waitForWorkflowStatus(b.service.client, wf.id, 'COMPLETED', { timeoutMs: 3_000 })).rejects.toMatchObject({ code: 'workflow_not_found' });
  expect(Date.now() - started).toBeLessThan(1_000);
});

it('refuses a status workflows never have', async () => {
  const bed = await startTestbed({ wallets: 0 });
  beds.push(bed);
  const wf = await bed.service.client.createWorkflow({ datapoints: GRACE });
  await expect(waitForWorkflowStatus(bed.service.client, wf.id, 'DONE' as never, { timeoutMs: 3_000 })).rejects.toMatchObject({
    code: 'invalid_argument',
    message: expect.stringContaining('no workflow status DONE'),
  });
});
