// statusChangeTerms end to end (docs/service.md "statusChangeTerms"): the service as
// `createService` runs it (default DIDComm agent) over HTTP on 127.0.0.1, the real holder wallet
// (src/wallet) answering workflow invitations sent by DIDCOMM, and the status list credential
// fetched from GET /status-lists/:name exactly as a verifier would.
import { afterEach, describe, expect, it } from 'vitest';
import { checkStatus } from '../../../src/credentials/status-list.js';
import type { W3cCredential } from '../../../src/credentials/types.js';
import { createService, type Service } from '../../../src/service/app.js';
import type { ServiceEvent } from '../../../src/service/context.js';
import type { ServiceDidcommAgent } from '../../../src/service/didcomm/agent.js';
import { openStore, type Store } from '../../../src/store/store.js';
import { createWallet, type Wallet } from '../../../src/wallet/wallet.js';
import { CLIENT, DATAPOINTS, named } from './harness.js';

interface Env {
  service: Service;
  agent: ServiceDidcommAgent;
  url: string;
  wallet: Wallet;
  webhooks: ServiceEvent[];
  stores: Store[];
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
}

let env: Env | undefined;
afterEach(async () => {
  if (!env) return;
  await env.wallet.close();
  await env.agent.idle();
  await env.service.close();
  for (const s of env.stores) await s.close();
  env = undefined;
});

async function start(): Promise<Env> {
  const store = await openStore();
  const webhooks: ServiceEvent[] = [];
  const service = await createService({ store, env: CLIENT, rateLimit: false, events: { emit: async (e) => void webhooks.push(e) } });
  const url = await service.listen({ port: 0, host: '127.0.0.1' });
  const raw = async (method: string, path: string, body?: unknown, token?: string) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
  const token = (await raw('POST', '/api/v1/auth/token', { clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret })).json.accessToken as string;
  const walletStore = await openStore();
  // The wallet fetches status lists over HTTP (its default statusListFetch).
  const wallet = createWallet({ store: walletStore });
  await wallet.listen({ http: { port: 0 } });
  env = {
    service, agent: service.deps.agent as ServiceDidcommAgent, url, wallet, webhooks, stores: [store, walletStore],
    call: (method, path, body) => raw(method, path, body, token),
  };
  return env;
}

async function createWorkflow(e: Env, body: Record<string, unknown>): Promise<{ id: string }> {
  const res = await e.call('POST', '/api/v1/issuance-workflows', { projectId: CLIENT.projectId, datapoints: DATAPOINTS, ...body });
  expect(res.status).toBe(201);
  return res.json.issuanceWorkflow;
}

/** Credentials already collected (the next one is the one not in here). */
const seen = new Set<string>();

/** Sends the workflow's invitation to the wallet by DIDCOMM; the user approves; resolves with the stored credential. */
async function collect(e: Env, workflowId: string) {
  const pending = e.wallet.waitForPending({ kind: 'invitation' });
  const sent = await e.call('POST', `/api/v1/issuance-workflows/${workflowId}/send-invitation`, { destinations: [{ channel: 'DIDCOMM', target: e.wallet.did }] });
  expect(sent.status).toBe(200);
  const item = await pending;
  const completed = e.agent.waitFor('workflow-completed', (d: { workflowId: string }) => d.workflowId === workflowId, 15_000);
  const received = e.wallet.waitForCredential({ timeoutMs: 15_000, predicate: (c) => !seen.has(c.id) });
  await e.wallet.approve(item.id);
  const credential = await received;
  seen.add(credential.id);
  await completed;
  await e.agent.idle();
  return credential;
}

/** The credential's bit in the list served at its statusListCredential URL (fetched like a verifier). */
async function servedStatus(raw: unknown): Promise<{ purpose: string; set: boolean }> {
  const entry = (raw as W3cCredential).credentialStatus as { statusPurpose: string; statusListCredential: string };
  const res = await fetch(entry.statusListCredential, { headers: { accept: 'application/vc+ld+json' } });
  expect(res.status).toBe(200);
  const check = checkStatus(entry, (await res.json()) as W3cCredential);
  if (!check.ok) throw new Error(check.detail);
  return { purpose: check.purpose, set: check.set };
}

describe('statusChangeTerms', () => {
  it('{REVOKED, WORKFLOW_COMPLETION}: valid when issued; revoked once a later workflow for the same user completes', async () => {
    const e = await start();
    const first = await createWorkflow(e, { userId: 'ada', statusChangeTerms: { status: 'REVOKED', statusUpdateTrigger: 'WORKFLOW_COMPLETION' } });
    const credential = await collect(e, first.id);
    expect(credential).toMatchObject({ verified: true, status: 'valid' });
    expect(credential.checks.find((c) => c.check === 'status')).toMatchObject({ ok: true });
    expect(await servedStatus(credential.raw)).toEqual({ purpose: 'revocation', set: false });
    expect(await e.wallet.refreshCredentialStatus()).toEqual([{ id: credential.id, status: 'valid', changed: false }]);

    const second = await createWorkflow(e, { userId: 'ada' });
    expect(await servedStatus(credential.raw)).toMatchObject({ set: false }); // creation is not this trigger
    const newer = await collect(e, second.id);
    expect(newer).toMatchObject({ verified: true, status: 'valid' });
    expect(await servedStatus(credential.raw)).toEqual({ purpose: 'revocation', set: true });
    expect(named(e.webhooks, 'CREDENTIAL_REVOKED')).toEqual([
      expect.objectContaining({
        type: 'SSI_AGENT',
        action: 'CREDENTIAL_STATUS_UPDATE',
        params: expect.objectContaining({ userAccountId: 'ada', credentialId: credential.id }),
      }),
    ]);

    const refreshed = await e.wallet.refreshCredentialStatus();
    expect(refreshed).toEqual(expect.arrayContaining([{ id: credential.id, status: 'revoked', changed: true }]));
    const stored = await e.wallet.credentials();
    expect(stored.find((c) => c.id === credential.id)?.status).toBe('revoked');
    expect(stored.find((c) => c.id === newer.id)?.status).toBe('valid');
  });

  it('{REVOKED, WORKFLOW_COMPLETION} on two workflows the user accepts at once: the later workflow\'s credential stays valid', async () => {
    const e = await start();
    const terms = { status: 'REVOKED', statusUpdateTrigger: 'WORKFLOW_COMPLETION' };
    // Created one after the other (the first's invitation sent in between: not in one millisecond).
    const send = async (wf: { id: string }) =>
      expect((await e.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, { destinations: [{ channel: 'DIDCOMM', target: e.wallet.did }] })).status).toBe(200);
    const first = await createWorkflow(e, { userId: 'ada', statusChangeTerms: terms });
    await send(first);
    const second = await createWorkflow(e, { userId: 'ada', statusChangeTerms: terms });
    await send(second);
    // Both invitations wait for the user (each arrival is an event: waited for, not slept on).
    let items = (await e.wallet.pending()).filter((i) => i.kind === 'invitation');
    for (let tries = 0; items.length < 2 && tries < 50; tries++) {
      await e.wallet.waitFor('invitation-received', () => true, { timeoutMs: 200 }).catch(() => undefined);
      items = (await e.wallet.pending()).filter((i) => i.kind === 'invitation');
    }
    expect(items).toHaveLength(2);
    const completed = Promise.all([first, second].map((wf) => e.agent.waitFor('workflow-completed', (d: { workflowId: string }) => d.workflowId === wf.id, 15_000)));
    await Promise.all(items.map((i) => e.wallet.approve(i.id)));
    await completed;
    await e.agent.idle();
    const credentialOf = async (id: string) => (await e.call('GET', `/api/v1/issuance-workflows/${id}`)).json.issuanceWorkflow.credentialId as string;
    const [c1, c2] = [await credentialOf(first.id), await credentialOf(second.id)];
    // docs/service.md: "When a later workflow … is completed … every earlier credential … gets the
    // terms' status": the first workflow is not later than the second.
    const revoked = named(e.webhooks, 'CREDENTIAL_REVOKED').map((w) => (w.params as { credentialId: string }).credentialId);
    expect(revoked).not.toContain(c2);
    expect(revoked.filter((id) => id === c1).length).toBeLessThanOrEqual(1);
    const c2Raw = (await e.wallet.credentials()).find((c) => c.id === c2)!.raw;
    expect(await servedStatus(c2Raw)).toEqual({ purpose: 'revocation', set: false });
  });

  it('{SUSPENDED, WORKFLOW_CREATION}: valid when issued; suspended as soon as a later workflow for the same user is created', async () => {
    const e = await start();
    const first = await createWorkflow(e, { userId: 'bob', statusChangeTerms: { status: 'SUSPENDED', statusUpdateTrigger: 'WORKFLOW_CREATION' } });
    const credential = await collect(e, first.id);
    expect(credential).toMatchObject({ verified: true, status: 'valid' });
    expect(await servedStatus(credential.raw)).toEqual({ purpose: 'suspension', set: false });

    await createWorkflow(e, { userId: 'someone-else' });
    expect(await servedStatus(credential.raw)).toMatchObject({ set: false });

    // Another workflow for the user's DID (no userId): created, so the earlier credential is suspended.
    await createWorkflow(e, { userDID: e.wallet.did });
    expect(await servedStatus(credential.raw)).toEqual({ purpose: 'suspension', set: true });
    expect(named(e.webhooks, 'CREDENTIAL_SUSPENDED')).toEqual([
      expect.objectContaining({ params: expect.objectContaining({ userAccountId: 'bob', credentialId: credential.id, statusUpdateTrigger: 'WORKFLOW_CREATION' }) }),
    ]);
    expect(await e.wallet.refreshCredentialStatus()).toEqual([{ id: credential.id, status: 'suspended', changed: true }]);
  });
});
