// A workflow's trigger reads the watched statusChangeTerms of its own user only (status.ts): by
// user id and by holder DID, through an index written with each watched credential. Before, each
// trigger read every watched credential of the project, so issuing with terms to many users grew
// quadratically. Behaviour end to end is test/service/didcomm/status-terms.test.ts; here, what is
// read, what is triggered, and a store from before the index.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { generateKeyPair } from '../../../src/keys.js';
import { COLLECTIONS } from '../../../src/service/didcomm/collections.js';
import type { AgentCore } from '../../../src/service/didcomm/core.js';
import { statusService, type IssuedCredentialRecord, type StatusService } from '../../../src/service/didcomm/status.js';
import { openStore, type Store } from '../../../src/store/store.js';
import { countingStore } from '../../store/counting-store.js';

const assertionKey = generateKeyPair('Ed25519', new Uint8Array(32).fill(5));

function core(store: Store, did = 'did:web:svc.example'): AgentCore {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  return {
    // Webhook events go nowhere: what is asserted is the status, not the webhook.
    deps: { store, publicUrl: 'https://svc.example', serviceDid: did, identity: { did, assertionKid: '#key-3', assertionKey }, clock, events: { emit: () => undefined } },
    options: {},
    lock: <T>(_key: string, fn: () => Promise<T>) => fn(),
    now: () => new Date(clock.now()).toISOString(),
    events: new EventEmitter(),
  } as unknown as AgentCore;
}

/** A credential of `userId` (holder `did:example:<userId>`) watched with {REVOKED, WORKFLOW_COMPLETION}, with a status index of its own. */
async function issued(service: StatusService, userId: string, workflowId: string): Promise<IssuedCredentialRecord> {
  const { list, index } = await service.allocate('revocation');
  const rec: IssuedCredentialRecord = {
    id: `cred-${userId}-${workflowId}`, tenantId: 't', projectId: 'p', subject: `did:example:${userId}`, userId, workflowId, format: 'ldp',
    status: { list, purpose: 'revocation', index, set: false },
    terms: { status: 'REVOKED', statusUpdateTrigger: 'WORKFLOW_COMPLETION' },
    issuedAt: '2026-01-01T00:00:00.000Z',
  };
  await service.recordCredential(rec);
  return rec;
}

describe('watched statusChangeTerms, by holder', () => {
  it("a trigger reads its user's watched terms only, by user id or by holder DID", async () => {
    const inner = await openStore();
    try {
      const counted = countingStore(inner, COLLECTIONS.statusTerms);
      const service = statusService(core(counted.store));
      // The first trigger over a store marks its (empty) index complete.
      expect(await service.workflowTriggered({ id: 'wf-0', tenantId: 't', projectId: 'p', userId: 'nobody' }, 'WORKFLOW_COMPLETION')).toEqual([]);
      for (let i = 0; i < 60; i++) await issued(service, `u${i}`, `wf-${i}`);
      const before = counted.reads();
      // Another user's workflow completes: nothing of theirs is watched, nothing is read.
      expect(await service.workflowTriggered({ id: 'wf-x', tenantId: 't', projectId: 'p', userId: 'nobody' }, 'WORKFLOW_COMPLETION')).toEqual([]);
      expect(counted.reads()).toBe(before);
      // u7's next workflow, named by user id: its one watched credential is read and revoked.
      expect(await service.workflowTriggered({ id: 'wf-7b', tenantId: 't', projectId: 'p', userId: 'u7' }, 'WORKFLOW_COMPLETION')).toEqual(['cred-u7-wf-7']);
      // u8's, named by holder DID only.
      expect(await service.workflowTriggered({ id: 'wf-8b', tenantId: 't', projectId: 'p', userDID: 'did:example:u8' }, 'WORKFLOW_COMPLETION')).toEqual(['cred-u8-wf-8']);
      expect(counted.reads() - before).toBe(2);
      // Each is watched no more, in either index.
      expect(await service.workflowTriggered({ id: 'wf-7c', tenantId: 't', projectId: 'p', userId: 'u7', userDID: 'did:example:u7' }, 'WORKFLOW_COMPLETION')).toEqual([]);
      expect(await inner.collection(COLLECTIONS.statusTerms).count()).toBe(58);
      expect(await inner.collection(COLLECTIONS.statusTermsByHolder).count()).toBe(58 * 2 + 1);
    } finally {
      await inner.close();
    }
  });

  it("leaves a workflow's own credential and another trigger's terms watched", async () => {
    const store = await openStore();
    try {
      const service = statusService(core(store));
      await issued(service, 'u1', 'wf-1');
      expect(await service.workflowTriggered({ id: 'wf-1', tenantId: 't', projectId: 'p', userId: 'u1' }, 'WORKFLOW_COMPLETION')).toEqual([]);
      expect(await service.workflowTriggered({ id: 'wf-2', tenantId: 't', projectId: 'p', userId: 'u1' }, 'WORKFLOW_CREATION')).toEqual([]);
      expect(await service.workflowTriggered({ id: 'wf-2', tenantId: 't', projectId: 'other', userId: 'u1' }, 'WORKFLOW_COMPLETION')).toEqual([]);
      expect(await store.collection(COLLECTIONS.statusTerms).count()).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('indexes the watched terms of a store written before the index at its first trigger', async () => {
    const store = await openStore();
    try {
      await issued(statusService(core(store)), 'u1', 'wf-1');
      const index = store.collection(COLLECTIONS.statusTermsByHolder);
      for (const e of await index.list()) await index.del(e.key);
      // A new process: a credential issued before its first trigger is indexed already; the older one is indexed then.
      const service = statusService(core(store));
      await issued(service, 'u2', 'wf-2');
      expect(await service.workflowTriggered({ id: 'wf-1b', tenantId: 't', projectId: 'p', userId: 'u1' }, 'WORKFLOW_COMPLETION')).toEqual(['cred-u1-wf-1']);
      expect(await service.workflowTriggered({ id: 'wf-2b', tenantId: 't', projectId: 'p', userId: 'u2' }, 'WORKFLOW_COMPLETION')).toEqual(['cred-u2-wf-2']);
      expect((await index.list()).map((e) => e.key)).toEqual(['~complete']);
    } finally {
      await store.close();
    }
  });
});
