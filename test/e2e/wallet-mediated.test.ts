// idsync's wallet behind idsync's standalone mediator, with the service twin, over real sockets on
// 127.0.0.1 (port 0): the wallet's DID names the mediator, the twin wraps what it sends in routing
// 2.0 forwards to the mediator, and the wallet collects over Message Pickup 3.0 (live on the
// mediator's WebSocket, or polling). Both flows run; a restarted wallet keeps its grant and
// collects what was queued while it was down.
import { afterEach, describe, expect, it } from 'vitest';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { createService, type Service } from '../../src/service/app.js';
import type { ServiceDidcommAgent } from '../../src/service/didcomm/agent.js';
import { resolveIonLongForm } from '../../src/did/ion.js';
import { openStore, type Store } from '../../src/store/store.js';
import { createWallet, type Wallet, type WalletOptions } from '../../src/wallet/wallet.js';
import { FORWARD_TYPE } from '../../src/didcomm/envelope/forward.js';
import { startFaultProxy } from '../../src/testing/fault-proxy.js';
import { freePort } from './processes.js';
import { ManualClock, systemClock, uuid } from '../../src/clock.js';
import { memoryNetwork } from '../../src/didcomm/transport/memory.js';
import { resolvePeerDid } from '../../src/did/peer.js';
import { createMediatorAgent } from '../../src/mediator/agent.js';
import { createServiceAgent } from '../../src/service/didcomm/agent.js';
import type { InboundInfo } from '../../src/service/didcomm-seam.js';
import { createPing } from '../../src/protocols/trust-ping.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';

/** Polls `check` every 10 ms until it holds, or fails after `timeoutMs`. */
async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const CLIENT = { clientId: 'qa-client', clientSecret: 'qa-secret-123', projectId: 'qa-project' };
const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10', residentialAddressCountry: 'GB' };
type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any }>;

interface Env {
  service: Service;
  agent: ServiceDidcommAgent;
  mediator: RunningMediator;
  call: Call;
  stores: Store[];
  wallets: Wallet[];
}

let env: Env | undefined;
afterEach(async () => {
  if (!env) return;
  for (const w of env.wallets) await w.close();
  await env.agent.idle();
  await env.service.close();
  await env.mediator.close();
  for (const s of env.stores) await s.close();
  env = undefined;
});

async function start(o: { mediatorPublicUrl?: string; deny?: string[] } = {}): Promise<Env> {
  const store = await openStore();
  const service = await createService({ store, env: CLIENT, rateLimit: false });
  const url = await service.listen({ port: 0, host: '127.0.0.1' });
  const agent = service.deps.agent as ServiceDidcommAgent;
  const medStore = await openStore();
  const mediator = await startMediator({ store: medStore, ...(o.mediatorPublicUrl ? { publicUrl: o.mediatorPublicUrl } : {}), ...(o.deny ? { policy: { deny: o.deny } } : {}) });
  const raw = async (method: string, path: string, body?: unknown, token?: string) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
  const token = (await raw('POST', '/api/v1/auth/token', { clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret })).json.accessToken as string;
  env = { service, agent, mediator, call: (m, p, b) => raw(m, p, b, token), stores: [store, medStore], wallets: [] };
  return env;
}

async function wallet(e: Env, o: Partial<WalletOptions> = {}, store?: Store): Promise<Wallet> {
  const s = store ?? (await openStore());
  if (!store) e.stores.push(s);
  const w = createWallet({ store: s, mediator: e.mediator.invitationUrl, ...o });
  e.wallets.push(w);
  await w.init();
  return w;
}

async function invite(call: Call, userId: string): Promise<string> {
  expect((await call('PUT', `/api/v1/provider/users/${userId}`, { settings: { isSyncOn: true } })).status).toBeLessThan(300);
  const res = await call('POST', `/api/v1/provider/users/${userId}/invite`, {});
  expect(res.status).toBe(200);
  return res.json.invitationUrl as string;
}

/** Data Pipe, then a datapoints update synced: the credential arrives through the mediator. */
async function dataPipeAndSync(e: Env, w: Wallet, userId: string): Promise<void> {
  const acceptance = await w.acceptInvitation(await invite(e.call, userId));
  expect(acceptance.kind === 'data-pipe' && acceptance.connection.state).toBe('established');
  const completed = e.agent.waitFor('sync-completed', undefined, 15_000);
  const received = w.waitForCredential({ timeoutMs: 15_000 });
  expect((await e.call('PUT', `/api/v1/provider/users/${userId}/datapoints`, DATAPOINTS)).status).toBeLessThan(300);
  expect(await received).toMatchObject({ verified: true, status: 'valid', issuer: e.service.deps.serviceDid });
  await completed;
  expect((await e.call('GET', `/api/v1/provider/users/${userId}/sync-context`)).json).toMatchObject({ isSessionEstablished: true, isLinked: true });
}

describe('a wallet behind idsync\'s mediator', () => {
  it('names the mediator DID as its endpoint, holds a 2.0 grant, and runs Data Pipe and sync with live pickup', async () => {
    const e = await start();
    const w = await wallet(e);
    // DIDComm v2.1 §Using a DID as an endpoint: the service's URI is the mediator's DID.
    expect(w.identity.endpoint).toBe(e.mediator.did);
    expect(w.mediation).toMatchObject({ mediator: e.mediator.did, state: 'registered', version: '2.0', form: 'did' });
    expect(w.collecting).toBe('live');
    const doc = resolveIonLongForm(w.did);
    expect(doc.service?.[0]).toMatchObject({ type: 'DIDCommMessaging', serviceEndpoint: { uri: e.mediator.did } });
    expect(await e.mediator.agent.mediator.keylist.lookup(w.did)).toMatchObject({ owner: expect.any(String) });

    const forwarded: string[] = [];
    e.mediator.agent.mediator.events.on('forward-queued', (ev: { to: string }) => forwarded.push(ev.to));
    await dataPipeAndSync(e, w, 'u1');
    // Everything the twin sent the wallet went through the mediator as forwards to its DID.
    expect(forwarded.length).toBeGreaterThanOrEqual(3);
    expect(new Set(forwarded)).toEqual(new Set([w.shortDid]));
    const inbound = await w.messages({ direction: 'in' });
    const viaMediator = inbound.filter((m) => m.transport === 'ws-live' || m.transport === 'pickup').map((m) => m.type.split('/').pop());
    expect(viaMediator).toEqual(expect.arrayContaining(['established', 'request-presentation', 'offer-credential', 'issue-credential']));
    // Live, nothing is asked for over HTTP: the Data Pipe's `established` is pushed, not polled.
    expect(await w.messages({ direction: 'out', type: 'https://didcomm.org/messagepickup/3.0/status-request' })).toHaveLength(0);
    // Nothing is left queued: every delivery was confirmed with messages-received.
    expect(await e.mediator.agent.mediator.queue.count(w.did)).toBe(0);
  });

  it('coordinate-mediation 3.0 and polling (no live socket): the issuance workflow completes through the mediator', async () => {
    const e = await start();
    const w = await wallet(e, { mediation: { version: '3.0', live: false, pollIntervalMs: 50 } });
    expect(w.collecting).toBe('polling');
    expect(w.mediation).toMatchObject({ version: '3.0', state: 'registered' });

    const created = await e.call('POST', '/api/v1/issuance-workflows', { projectId: CLIENT.projectId, datapoints: DATAPOINTS });
    const wf = created.json.issuanceWorkflow;
    const pending = w.waitForPending({ kind: 'invitation', timeoutMs: 15_000 });
    expect((await e.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, { destinations: [{ channel: 'DIDCOMM', target: w.did }] })).status).toBeLessThan(300);
    const item = await pending;
    const completed = e.agent.waitFor('workflow-completed', undefined, 15_000);
    const received = w.waitForCredential({ timeoutMs: 15_000 });
    await w.approve(item.id);
    const credential = await received;
    await completed;
    expect((await e.call('GET', `/api/v1/issuance-workflows/${wf.id}`)).json.issuanceWorkflow).toMatchObject({ status: 'COMPLETED', credentialId: credential.id });
    const picked = (await w.messages({ direction: 'in' })).filter((m) => m.transport === 'pickup').map((m) => m.type.split('/').pop());
    expect(picked).toEqual(expect.arrayContaining(['invitation', 'offer-credential', 'issue-credential']));
  });

  it('the routing-keys form names the mediator URI and key, and is refused with a coded error when ION has no room for the key', async () => {
    const e = await start();
    const store = await openStore();
    e.stores.push(store);
    const w = createWallet({ store, mediator: e.mediator.did, mediation: { endpointForm: 'routing-keys' } });
    e.wallets.push(w);
    // The mediator's did:peer:2 key id (~400 characters) takes the ION delta over its 1000 bytes.
    await expect(w.init()).rejects.toMatchObject({ code: 'mediation_failed' });
    // Nothing half made is kept: the same store can still make a wallet in the DID form.
    const again = createWallet({ store, mediator: e.mediator.did });
    e.wallets.push(again);
    await again.init();
    expect(again.identity.endpoint).toBe(e.mediator.did);
  });

  it('a did:peer:2 wallet names the mediator in the routing-keys form (no ION size cap) and runs Data Pipe and sync through it', async () => {
    const e = await start();
    const w = await wallet(e, { didMethod: 'peer', mediation: { endpointForm: 'routing-keys' } });
    expect(w.did).toMatch(/^did:peer:2\./);
    expect(w.shortDid).toBe(w.did);
    expect(w.mediation).toMatchObject({ mediator: e.mediator.did, state: 'registered', form: 'routing-keys' });
    // DIDComm v2.1 §Routing: the mediator's URI with its key agreement key as the routing key.
    const doc = resolvePeerDid(w.did);
    const mediatorKey = resolvePeerDid(e.mediator.did).keyAgreement?.[0];
    expect(doc.service?.[0]).toMatchObject({ type: 'DIDCommMessaging', serviceEndpoint: { uri: `${e.mediator.url}/didcomm`, routingKeys: [mediatorKey] } });
    // Its keys are the did:peer:2 numbering: key-1 the X25519 (E), key-2 the Ed25519 (V).
    expect(w.identity).toMatchObject({ keyAgreementKid: `${w.did}#key-1`, authenticationKid: `${w.did}#key-2` });

    const forwarded: string[] = [];
    e.mediator.agent.mediator.events.on('forward-queued', (ev: { to: string }) => forwarded.push(ev.to));
    await dataPipeAndSync(e, w, 'u-peer');
    expect(forwarded.length).toBeGreaterThanOrEqual(3);
    expect(new Set(forwarded)).toEqual(new Set([w.did]));
    const [credential] = await w.credentials();
    expect(credential).toMatchObject({ subject: w.did, verified: true });
    expect(await e.mediator.agent.mediator.queue.count(w.did)).toBe(0);
    const errors = (await w.messages()).flatMap((m) => (m.conformance ?? []).filter((c) => !c.ok && c.severity === 'error').map((c) => `${m.type}: ${c.rule}`));
    expect(errors).toEqual([]);
  });

  it('a mediate-deny is mediation_denied, in whichever version was asked, and 3.0 is not tried after it', async () => {
    const e = await start({ deny: ['did:ion:*'] });
    const store = await openStore();
    e.stores.push(store);
    const w = createWallet({ store, mediator: e.mediator.invitationUrl });
    e.wallets.push(w);
    const denied: string[] = [];
    e.mediator.agent.mediator.events.on('mediation-denied', (ev: { version: string }) => denied.push(ev.version));
    await expect(w.init()).rejects.toMatchObject({ code: 'mediation_denied', details: { version: '2.0' } });
    expect(denied).toEqual(['2.0']);
  });

  it('a restarted wallet keeps its grant and collects what was queued while it was down', async () => {
    const e = await start();
    const store = await openStore();
    e.stores.push(store);
    const first = await wallet(e, {}, store);
    await first.acceptInvitation(await invite(e.call, 'u3'));
    const did = first.did;
    await first.close();

    // While the wallet is down, a sync: the twin's messages wait at the mediator.
    const queued = new Promise<void>((resolve) => e.mediator.agent.mediator.events.on('forward-queued', () => resolve()));
    expect((await e.call('PUT', '/api/v1/provider/users/u3/datapoints', DATAPOINTS)).status).toBeLessThan(300);
    await queued;
    expect(await e.mediator.agent.mediator.queue.count(did)).toBeGreaterThan(0);

    // Restarted without the option: the grant is in its store; it collects, answers, and the sync completes.
    const completed = e.agent.waitFor('sync-completed', undefined, 15_000);
    const again = createWallet({ store });
    e.wallets.push(again);
    const received = again.waitForCredential({ timeoutMs: 15_000 });
    await again.init();
    expect(again.did).toBe(did);
    expect(again.mediation).toMatchObject({ mediator: e.mediator.did, state: 'registered' });
    await received;
    await completed;
    // A message both pushed live and brought by the collect is confirmed once its live copy is
    // handled (a copy refused while the other is handled is not confirmed): soon after, not before.
    await until(async () => (await e.mediator.agent.mediator.queue.count(did)) === 0, 5_000);
    const seenForward = (await again.messages({ direction: 'in' })).some((m) => m.type === FORWARD_TYPE);
    expect(seenForward).toBe(false);
  });

  it('live again after the mediator restarts, it collects what was queued between its last poll and live mode', async () => {
    const port = await freePort();
    const e = await start({ mediatorPublicUrl: `http://127.0.0.1:${port}` });
    await e.mediator.close();
    const medStore = e.stores[1]!;
    e.mediator = await startMediator({ store: medStore, port, host: '127.0.0.1' });
    const w = await wallet(e, { mediation: { live: true, pollIntervalMs: 30 } });
    expect(w.collecting).toBe('live');

    // The mediator goes away: the live socket ends and the wallet polls until it is back.
    await e.mediator.close();
    await until(() => w.collecting === 'polling', 10_000);
    e.mediator = await startMediator({ store: medStore, port, host: '127.0.0.1' });
    // A message queued right after the round's pickup answered, before live mode is on: it is not
    // pushed (§Live Mode: "Messages already in the queue are not affected by Live Mode").
    const ping = createPing({ to: w.did, responseRequested: false }, { clock: systemClock, ids: uuid });
    const { packed } = await pack(ping, { mode: 'anoncrypt', to: w.did, forward: false }, { resolve: async (did) => resolveIonLongForm(did.split('#')[0]!), secrets: memorySecrets([]) });
    let queued: Promise<unknown> | undefined;
    e.mediator.agent.events.on('inbound', (ev: { type?: string }) => {
      if (!queued && ev.type?.endsWith('/status-request')) queued = e.mediator.agent.mediator.queue.enqueue(w.did, packed);
    });
    await until(() => w.collecting === 'live' && queued !== undefined, 10_000);
    await queued;
    // The status answering the live-delivery-change counted it: the wallet collected it.
    await until(async () => (await e.mediator.agent.mediator.queue.count(w.did)) === 0, 10_000);
    expect((await w.messages({ direction: 'in' })).map((m) => m.id)).toContain(ping.id);
  });

  it('in process on a memory network: the mediator, the twin and the wallet with no sockets, Data Pipe and sync', async () => {
    const clock = new ManualClock(Date.now());
    const network = memoryNetwork();
    const store = await openStore();
    let agent: ServiceDidcommAgent | undefined;
    const service = await createService({
      store, clock, env: CLIENT, rateLimit: false, publicUrl: 'http://127.0.0.1:9',
      agent: (deps) => (agent = createServiceAgent(deps, { transports: [network.transport({ onInbound: (p, i) => agent!.receive(p, i as InboundInfo) })] })),
    });
    network.endpoint('memory://service', (packed, info) => agent!.receive(packed, { transport: 'memory', reply: info.reply, bind: info.bind } as unknown as InboundInfo));
    const medStore = await openStore();
    const med = await createMediatorAgent({ store: medStore, clock, publicUrl: 'memory://mediator', transports: [network.transport()] });
    network.endpoint('memory://mediator/didcomm', (packed, info) => med.receive(packed, { transport: 'memory', reply: info.reply, bind: info.bind }));
    const walletStore = await openStore();
    const serviceDid = service.deps.serviceDid;
    const w = createWallet({
      store: walletStore,
      clock,
      mediator: med.invitationUrl,
      mediation: { live: false, pollIntervalMs: 20 },
      resolver: async (did) => (did.split('#')[0] === serviceDid ? service.deps.identity.document : did.startsWith('did:peer:') ? resolvePeerDid(did.split('#')[0]) : null),
      routes: { [serviceDid]: 'memory://service' },
      transports: [(inbound) => network.transport({ onInbound: inbound })],
    });
    const call: Call = async (method, path, body) => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
      const res = await service.app.inject({ method: method as 'GET', url: path, headers, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
      return { status: res.statusCode, json: res.body ? JSON.parse(res.body) : undefined };
    };
    const tokenRes = await service.app.inject({ method: 'POST', url: '/api/v1/auth/token', payload: { clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret } });
    const token = JSON.parse(tokenRes.body).accessToken as string;
    env = { service, agent: agent!, mediator: { close: () => med.close() } as unknown as RunningMediator, call, stores: [store, medStore, walletStore], wallets: [w] };
    await w.init();
    expect(w.identity.endpoint).toBe(med.did);
    expect(w.mediation).toMatchObject({ state: 'registered', version: '2.0' });
    await dataPipeAndSync(env, w, 'u5');
    const picked = (await w.messages({ direction: 'in' })).filter((m) => m.transport === 'pickup').map((m) => m.type.split('/').pop());
    expect(picked).toEqual(expect.arrayContaining(['established', 'request-presentation', 'offer-credential', 'issue-credential']));
  });

  it('through idsync proxy in front of the mediator: duplicated requests and dropped answers lose and duplicate nothing', async () => {
    // The mediator's DID names the proxy (its public URL): the wallet's pickups and the twin's forwards pass it.
    const port = await freePort();
    const e = await start({ mediatorPublicUrl: `http://127.0.0.1:${port}` });
    const proxy = await startFaultProxy({
      listen: port,
      target: e.mediator.url,
      // Encrypted on the wire: the proxy knows no message types, so the rules pick messages by order.
      plan: { seed: 7, rules: [{ fault: 'duplicate', direction: 'to-target', probability: 0.4 }, { fault: 'drop', direction: 'to-client', nth: [4, 7] }] },
    });
    try {
      const w = await wallet(e, { mediation: { live: false, pollIntervalMs: 30 } });
      await dataPipeAndSync(e, w, 'u6');
      expect(proxy.injector.counts().duplicate).toBeGreaterThan(0);
      expect(proxy.injector.counts().drop).toBe(2);
      expect(await w.credentials()).toHaveLength(1);
      await w.pickup();
      expect(await e.mediator.agent.mediator.queue.count(w.did)).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});
