// Workflow state changes and their CREDENTIAL_ISSUANCE_* webhook events land in one store batch
// when the event sink can prepare (service-security.md #8b, src/service/webhooks/event-outbox.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebhookDispatcher, EVENTS, type StoredWebhookEvent } from '../../../src/service/webhooks/dispatcher.js';
import { complete, createWorkflow, expireDue, fail, markInProgress, WORKFLOWS } from '../../../src/service/issuance/workflows.js';
import type { BatchOp } from '../../../src/store/store.js';
import { DATAPOINTS, PROJECT, TENANT, workflowDeps } from './fixtures.js';

let deps: Awaited<ReturnType<typeof workflowDeps>>;
let batches: BatchOp[][];
beforeEach(async () => {
  deps = await workflowDeps();
  const dispatcher = createWebhookDispatcher({ store: deps.store, clock: deps.clock, ids: deps.ids });
  await dispatcher.subscribe({ url: 'https://example.com/hook' });
  deps.events = { emit: async (e) => void (await dispatcher.emit(e)), prepare: (e) => dispatcher.prepare(e) };
  batches = [];
  const batch = deps.store.batch.bind(deps.store);
  deps.store.batch = async (ops) => {
    batches.push(ops);
    return batch(ops);
  };
});
afterEach(async () => deps.close());

/** The events written in the same batch as the workflow reaching `status`. */
function eventsWith(status: string): string[] {
  const found = batches.filter((ops) => ops.some((o) => o.type === 'put' && o.collection === WORKFLOWS && (o.value as { status: string }).status === status));
  expect(found).toHaveLength(1);
  return found[0].filter((o) => o.type === 'put' && o.collection === EVENTS).map((o) => (o as { value: StoredWebhookEvent }).value.envelope.event);
}

describe('workflow transitions with their webhook events', () => {
  it('writes IN_PROGRESS with PENDING and COMPLETED with COMPLETED, each in one batch', async () => {
    const wf = await createWorkflow(deps, { tenantId: TENANT, projectId: PROJECT, datapoints: DATAPOINTS });
    await markInProgress(deps, wf.id, { didcommThreadId: 'thread-1' });
    await complete(deps, wf.id, 'urn:uuid:cred-1');
    expect(eventsWith('IN_PROGRESS')).toEqual(['CREDENTIAL_ISSUANCE_PENDING']);
    expect(eventsWith('COMPLETED')).toEqual(['CREDENTIAL_ISSUANCE_COMPLETED']);
  });

  it('writes FAILED and EXPIRED with CREDENTIAL_ISSUANCE_FAILED in one batch', async () => {
    const a = await createWorkflow(deps, { tenantId: TENANT, projectId: PROJECT, datapoints: DATAPOINTS });
    await fail(deps, a.id, 'offer_declined');
    expect(eventsWith('FAILED')).toEqual(['CREDENTIAL_ISSUANCE_FAILED']);
    await createWorkflow(deps, { tenantId: TENANT, projectId: PROJECT, datapoints: DATAPOINTS, expiresIn: 60_000 });
    deps.clock.advance(60_001);
    expect(await expireDue(deps)).toBe(1);
    expect(eventsWith('EXPIRED')).toEqual(['CREDENTIAL_ISSUANCE_FAILED']);
    const stored = (await deps.store.collection<StoredWebhookEvent>(EVENTS).list()).map((e) => e.value.envelope.event);
    expect(stored.sort()).toEqual(['CREDENTIAL_ISSUANCE_FAILED', 'CREDENTIAL_ISSUANCE_FAILED']);
  });

  it('still emits through a sink that cannot prepare, after the state change', async () => {
    const seen: string[] = [];
    deps.events = { emit: async (e) => void seen.push(e.event) };
    const wf = await createWorkflow(deps, { tenantId: TENANT, projectId: PROJECT, datapoints: DATAPOINTS });
    await markInProgress(deps, wf.id);
    await complete(deps, wf.id, 'urn:uuid:cred-2');
    expect(seen).toEqual(['CREDENTIAL_ISSUANCE_PENDING', 'CREDENTIAL_ISSUANCE_COMPLETED']);
  });
});
