// The wallet against the real service (createService with its DIDComm agent): over real
// HTTP on 127.0.0.1 port 0, and in-process on a memory network. The provider drives the flow
// through the REST API; the wallet meets the service only on the wire.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { memoryNetwork } from '../../src/didcomm/transport/memory.js';
import { createService, type Service } from '../../src/service/app.js';
import { createServiceAgent, type ServiceDidcommAgent } from '../../src/service/didcomm/agent.js';
import type { InboundInfo } from '../../src/service/didcomm-seam.js';
import { openStore, type Store } from '../../src/store/store.js';
import { createWallet, type Wallet } from '../../src/wallet/wallet.js';

const CLIENT = { clientId: 'qa-client', clientSecret: 'qa-secret-123', projectId: 'qa-project' };
const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10', residentialAddressCountry: 'GB' };

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any }>;

interface Env {
  service: Service;
  agent: ServiceDidcommAgent;
  call: Call;
  stores: Store[];
  wallets: Wallet[];
}

let env: Env | undefined;
afterEach(async () => {
  if (!env) return;
  for (const w of env.wallets) await w.close();
  // Let the agent finish what it is doing, then close the service (which closes its agent).
  await env.agent.idle();
  await env.service.close();
  for (const s of env.stores) await s.close();
  env = undefined;
});

/** A bearer-token REST client over `send` (real fetch, or fastify inject). */
async function client(send: (method: string, path: string, headers: Record<string, string>, body?: string) => Promise<{ status: number; text: string }>): Promise<Call> {
  const raw = async (method: string, path: string, body?: unknown, token?: string) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await send(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
    return { status: res.status, json: res.text ? JSON.parse(res.text) : undefined };
  };
  const token = (await raw('POST', '/api/v1/auth/token', { clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret })).json.accessToken as string;
  return (method, path, body) => raw(method, path, body, token);
}

async function httpEnv(): Promise<Env & { url: string }> {
  const store = await openStore();
  // createService runs the DIDComm agent by default; it starts once listen() fixed the service DID.
  const service = await createService({ store, env: CLIENT, rateLimit: false });
  const url = await service.listen({ port: 0, host: '127.0.0.1' });
  const agent = service.deps.agent as ServiceDidcommAgent;
  const call = await client(async (method, path, headers, body) => {
    const res = await fetch(url + path, { method, headers, body });
    return { status: res.status, text: await res.text() };
  });
  return { service, agent, call, stores: [store], wallets: [], url };
}

async function invite(call: Call, userId: string): Promise<string> {
  expect((await call('PUT', `/api/v1/provider/users/${userId}`, { settings: { isSyncOn: true } })).status).toBeLessThan(300);
  const res = await call('POST', `/api/v1/provider/users/${userId}/invite`, {});
  expect(res.status).toBe(200);
  return res.json.invitationUrl as string;
}

describe('wallet ↔ service end to end', () => {
  it('over HTTP: invitation, Data Pipe, datapoints update, verified credential, linked', async () => {
    const e = await httpEnv();
    env = e;
    const walletStore = await openStore();
    e.stores.push(walletStore);
    const wallet = createWallet({ store: walletStore });
    e.wallets.push(wallet);
    await wallet.listen({ http: { port: 0 } });
    expect(wallet.identity.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/didcomm$/);

    const url = await invite(e.call, 'u1');
    const acceptance = await wallet.acceptInvitation(url);
    expect(acceptance.kind).toBe('data-pipe');
    if (acceptance.kind !== 'data-pipe') return;
    expect(acceptance.connection).toMatchObject({ state: 'established', theirDid: e.service.deps.serviceDid, meta: { shortDid: wallet.shortDid } });
    expect((await e.call('GET', '/api/v1/provider/users/u1/sync-context')).json).toMatchObject({ isSessionEstablished: true, isLinked: false });
    await wallet.ping(); // trust-ping 2.0 to the connected service, answered at the wallet's endpoint

    const completed = e.agent.waitFor('sync-completed', undefined, 15_000);
    const received = wallet.waitForCredential({ timeoutMs: 15_000 });
    expect((await e.call('PUT', '/api/v1/provider/users/u1/datapoints', DATAPOINTS)).status).toBeLessThan(300);
    const credential = await received;
    await completed;
    expect(credential).toMatchObject({ verified: true, status: 'valid', issuer: e.service.deps.serviceDid });
    expect(credential.claims).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10', residentialAddress: { country: 'GB' } });
    expect(credential.checks.every((c) => c.ok)).toBe(true);
    expect(credential.checks.map((c) => c.check)).toEqual(expect.arrayContaining(['proof', 'issuer_key', 'subject', 'validity', 'status', 'claims']));
    expect((await e.call('GET', '/api/v1/provider/users/u1/sync-context')).json).toMatchObject({ isSessionEstablished: true, isLinked: true });

    // Every message the wallet saw conforms, and after `established` it wrote its short form.
    const log = await wallet.messages();
    const errors = log.flatMap((m) => (m.conformance ?? []).filter((c) => !c.ok && c.severity === 'error').map((c) => `${m.type}: ${c.rule}`));
    expect(errors).toEqual([]);
    const out = log.filter((m) => m.direction === 'out');
    expect(out[0].from).toBe(wallet.did);
    expect(out.slice(1).every((m) => m.from === wallet.shortDid)).toBe(true);

    // A second update issues a replacement; the first credential becomes 'replaced'.
    const second = wallet.waitForCredential({ predicate: (c) => c.id !== credential.id, timeoutMs: 15_000 });
    const secondCompleted = e.agent.waitFor('sync-completed', undefined, 15_000);
    await e.call('PUT', '/api/v1/provider/users/u1/datapoints', { lastName: 'King' });
    const replacement = await second;
    await secondCompleted;
    expect(replacement.replaces).toBe(credential.id);
    expect((await wallet.credentials()).map((c) => c.status)).toEqual(['replaced', 'valid']);
  });

  it('over HTTP: a did:peer:2 wallet runs the Data Pipe and the sync, and the service links that DID', async () => {
    const e = await httpEnv();
    env = e;
    const walletStore = await openStore();
    e.stores.push(walletStore);
    const wallet = createWallet({ store: walletStore, didMethod: 'peer' });
    e.wallets.push(wallet);
    await wallet.listen({ http: { port: 0 } });
    expect(wallet.did).toMatch(/^did:peer:2\./);
    const acceptance = await wallet.acceptInvitation(await invite(e.call, 'u-peer'));
    expect(acceptance.kind === 'data-pipe' && acceptance.connection.state).toBe('established');
    const received = wallet.waitForCredential({ timeoutMs: 15_000 });
    const completed = e.agent.waitFor('sync-completed', undefined, 15_000);
    expect((await e.call('PUT', '/api/v1/provider/users/u-peer/datapoints', DATAPOINTS)).status).toBeLessThan(300);
    expect(await received).toMatchObject({ verified: true, status: 'valid', subject: wallet.did });
    await completed;
    expect((await e.call('GET', '/api/v1/provider/users/u-peer/sync-context')).json).toMatchObject({ isSessionEstablished: true, isLinked: true });
    // The DID-auth presentation is signed with the did:peer:2's Ed25519 key (its #key-2, the V element).
    const presentation = (await wallet.messages({ direction: 'out' })).find((m) => m.type.endsWith('/presentation'));
    expect(JSON.stringify(presentation?.message)).toContain(`${wallet.did}#key-2`);
    // A wallet made again on the same store keeps its did:peer:2, whatever method is asked for.
    const did = wallet.did;
    await wallet.close();
    const warnings: string[] = [];
    const again = createWallet({ store: walletStore, didMethod: 'ion', logger: (level, msg) => void (level === 'warn' && warnings.push(msg)) });
    e.wallets.push(again);
    expect((await again.init()).did).toBe(did);
    expect(warnings).toEqual([expect.stringContaining("the wallet DID is a did:peer: didMethod 'ion' is ignored")]);
    // A method it does not know is refused at once, with a code.
    expect(() => createWallet({ store: walletStore, didMethod: 'dht' as 'ion' })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('over HTTP: a wallet without an endpoint picks up the sync it missed', async () => {
    const e = await httpEnv();
    env = e;
    const walletStore = await openStore();
    e.stores.push(walletStore);
    const wallet = createWallet({ store: walletStore });
    e.wallets.push(wallet);
    await wallet.init();
    expect(wallet.identity.endpoint).toBeUndefined();

    const acceptance = await wallet.acceptInvitation(await invite(e.call, 'u2'));
    expect(acceptance.kind === 'data-pipe' && acceptance.connection.state).toBe('established');
    await wallet.ping(); // answered on the return route (the HTTP response)

    // The credential comes back on the request's own return route: 'offer-received' still
    // announces the offer before the answer goes out, so before the credential (events.ts).
    const order: string[] = [];
    wallet.on('offer-received', () => order.push('offer-received'));
    wallet.on('credential-received', () => order.push('credential-received'));
    const completed = e.agent.waitFor('sync-completed', undefined, 15_000);
    expect((await e.call('PUT', '/api/v1/provider/users/u2/datapoints', DATAPOINTS)).status).toBeLessThan(300);
    // The sync waits in the service's queue until the wallet collects it; each round trip
    // may queue the next step, so collect until the credential is in.
    for (let round = 0; round < 10 && (await wallet.credentials()).length === 0; round++) {
      await e.agent.idle();
      await wallet.pickup();
    }
    const [credential] = await wallet.credentials();
    expect(credential).toMatchObject({ verified: true, status: 'valid' });
    const transports = new Set((await wallet.messages({ direction: 'in' })).map((m) => m.transport));
    expect(transports.has('pickup')).toBe(true);
    expect(order).toEqual(['offer-received', 'credential-received']);
    await completed;
    expect((await e.call('GET', '/api/v1/provider/users/u2/sync-context')).json).toMatchObject({ isLinked: true });
  });

  it('over HTTP: a wallet without an endpoint goes live on the WebSocket and receives the sync as it happens', async () => {
    const e = await httpEnv();
    env = e;
    const walletStore = await openStore();
    e.stores.push(walletStore);
    const wallet = createWallet({ store: walletStore });
    e.wallets.push(wallet);
    await wallet.acceptInvitation(await invite(e.call, 'u3'));
    await wallet.goLive();
    const pushed = wallet.waitFor('message', (m) => m.direction === 'in' && m.status === 'handled');
    const completed = e.agent.waitFor('sync-completed', undefined, 15_000);
    const received = wallet.waitForCredential({ timeoutMs: 15_000 });
    await e.call('PUT', '/api/v1/provider/users/u3/datapoints', DATAPOINTS);
    expect(await received).toMatchObject({ verified: true, status: 'valid' });
    // The event carries the message as it travelled: an envelope, not the plaintext.
    expect(JSON.parse((await pushed).packed!)).toHaveProperty('ciphertext');
    await completed;
    expect((await e.call('GET', '/api/v1/provider/users/u3/sync-context')).json).toMatchObject({ isLinked: true });
    const pushedTypes = (await wallet.messages({ direction: 'in' })).filter((m) => m.transport === 'ws-live').map((m) => m.type.split('/').pop());
    expect(pushedTypes).toEqual(expect.arrayContaining(['request-presentation', 'offer-credential']));
  });

  it('over HTTP: an issuance workflow invitation sent by DIDCOMM waits for consent, then completes', async () => {
    const e = await httpEnv();
    env = e;
    const walletStore = await openStore();
    e.stores.push(walletStore);
    const wallet = createWallet({ store: walletStore });
    e.wallets.push(wallet);
    await wallet.listen({ http: { port: 0 } });
    const created = await e.call('POST', '/api/v1/issuance-workflows', { projectId: CLIENT.projectId, datapoints: DATAPOINTS });
    expect(created.status).toBe(201);
    const wf = created.json.issuanceWorkflow;
    const pending = wallet.waitForPending({ kind: 'invitation' });
    const sent = await e.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, { destinations: [{ channel: 'DIDCOMM', target: wallet.did }] });
    expect(sent.status).toBeLessThan(300);
    const item = await pending;
    expect(item).toMatchObject({ goalCode: 'streamlined-vc', from: e.service.deps.serviceDid });

    const completed = e.agent.waitFor('workflow-completed', undefined, 15_000);
    const received = wallet.waitForCredential({ timeoutMs: 15_000 });
    await wallet.approve(item.id); // the user's consent: propose-credential, pthid = the invitation
    const credential = await received;
    await completed;
    expect(credential).toMatchObject({ verified: true, status: 'valid' });
    const after = (await e.call('GET', `/api/v1/issuance-workflows/${wf.id}`)).json.issuanceWorkflow;
    expect(after).toMatchObject({ status: 'COMPLETED', credentialId: credential.id });
  });

  it('in process: the same flow on a memory network, REST through fastify inject', async () => {
    const store = await openStore();
    const clock = new ManualClock(Date.now());
    const network = memoryNetwork();
    let agent: ServiceDidcommAgent | undefined;
    // The agent factory: the default agent with a memory transport (createService starts it: the public URL is given).
    const service = await createService({
      store, clock, env: CLIENT, rateLimit: false, publicUrl: 'http://127.0.0.1:9',
      agent: (deps) => (agent = createServiceAgent(deps, { transports: [network.transport({ onInbound: (p, i) => agent!.receive(p, i as InboundInfo) })] })),
    });
    network.endpoint('memory://service', (packed, info) => agent!.receive(packed, { transport: 'memory', reply: info.reply, bind: info.bind } as unknown as InboundInfo));
    const call = await client(async (method, url, headers, payload) => {
      const res = await service.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
      return { status: res.statusCode, text: res.body };
    });
    const walletStore = await openStore();
    const serviceDid = service.deps.serviceDid;
    const wallet = createWallet({
      store: walletStore,
      clock,
      resolver: async (did) => (did.split('#')[0] === serviceDid ? service.deps.identity.document : null),
      routes: { [serviceDid]: 'memory://service' },
      transports: [(inbound) => network.transport({ onInbound: inbound })],
    });
    env = { service, agent: agent!, call, stores: [store, walletStore], wallets: [wallet] };
    await wallet.listen({ memory: { network, url: 'memory://wallet' } });

    const acceptance = await wallet.acceptInvitation(await invite(call, 'u4'));
    expect(acceptance.kind === 'data-pipe' && acceptance.connection.state).toBe('established');
    const completed = env.agent.waitFor('sync-completed', undefined, 15_000);
    const received = wallet.waitForCredential({ timeoutMs: 15_000 });
    await call('PUT', '/api/v1/provider/users/u4/datapoints', DATAPOINTS);
    expect(await received).toMatchObject({ verified: true, status: 'valid', issuer: serviceDid });
    await completed;
    expect((await call('GET', '/api/v1/provider/users/u4/sync-context')).json).toMatchObject({ isSessionEstablished: true, isLinked: true });
  });
});
