// Outbound guards (service-security.md #4): the service calls only endpoints its policy allows
// (never link-local or cloud metadata; loopback by default, private ranges when configured),
// queues messages only for DIDs it has a relationship with, and its queue is bounded.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../../src/clock.js';
import { createKeyDid } from '../../../src/did/key.js';
import { createPeerDid } from '../../../src/did/peer.js';
import { createResolver, documentResolver } from '../../../src/did/resolver.js';
import type { CreatedDid, DIDDocument } from '../../../src/did/types.js';
import { createWebDid } from '../../../src/did/web.js';
import { pack } from '../../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../../src/didcomm/secrets.js';
import { httpTransport } from '../../../src/didcomm/transport/http.js';
import type { ServiceDidcommAgent } from '../../../src/service/didcomm/agent.js';
import { COLLECTIONS } from '../../../src/service/didcomm/collections.js';
import { messageQueue } from '../../../src/mediator/queue.js';
import { DEFAULT_ENDPOINT_POLICY, endpointFetch, endpointRefusal } from '../../../src/service/net/endpoint-policy.js';
import { messageLog } from '../../../src/store/messages.js';
import { openStore } from '../../../src/store/store.js';
import { startService, type Harness } from '../http-helpers.js';
import { memoryHarness, type MemoryHarness } from './harness.js';

const PING = 'https://didcomm.org/trust-ping/2.0/ping';

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** A local HTTP server that records what reaches it. */
async function trap(): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanup.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, hits };
}

async function service(options: Parameters<typeof startService>[0] = {}): Promise<Harness & { agent: ServiceDidcommAgent }> {
  const h = await startService(options);
  cleanup.push(() => h.close());
  return Object.assign(h, { agent: h.service.deps.agent as ServiceDidcommAgent });
}

/** An authcrypted trust ping (response requested, no return route) from `sender` to the service, POSTed. */
async function ping(h: Harness, sender: CreatedDid, senderDocument?: DIDDocument): Promise<number> {
  const svc = h.service.deps;
  const base = documentResolver(createResolver());
  const resolve = async (did: string) =>
    did.startsWith(svc.serviceDid) ? svc.identity.document : senderDocument && did.startsWith(sender.did) ? senderDocument : base(did);
  const message = { id: `ping-${Math.random()}`, typ: 'application/didcomm-plain+json', type: PING, from: sender.did, to: [svc.serviceDid], body: { response_requested: true } };
  const packed = await pack(message as never, { mode: 'authcrypt' }, { resolve, secrets: memorySecrets(sender.secrets) });
  const r = await h.call('POST', '/didcomm', { raw: true, body: packed.packed, headers: { 'content-type': 'application/didcomm-encrypted+json' } });
  return r.status;
}

const queued = async (h: Harness) => (await h.store.collection(COLLECTIONS.queue).list()).length;

describe('endpoint policy', () => {
  it('never calls a link-local (cloud metadata) endpoint named by a peer, and drops the answer', async () => {
    const h = await service();
    const dropped = h.agent.waitFor<{ reason: string }>('message-dropped');
    expect(await ping(h, createPeerDid({ endpoint: 'http://169.254.169.254/latest/meta-data' }))).toBe(202);
    expect((await dropped).reason).toMatch(/endpoint refused: cloud metadata/);
    expect(await queued(h)).toBe(0);
    const log = await messageLog(h.store, h.service.deps.clock).list({});
    expect(log.find((r) => r.direction === 'out' && r.type.endsWith('/ping-response'))?.result).toBe('dropped');
  });

  it('calls a loopback endpoint by default (wallets of the local twin), and not when loopback is turned off', async () => {
    const t = await trap();
    const h = await service();
    await ping(h, createPeerDid({ endpoint: `${t.url}/wallet` }));
    expect(t.hits).toEqual(['POST /wallet']);

    const t2 = await trap();
    const strict = await service({ outboundEndpoints: { allowLoopback: false } });
    const dropped = strict.agent.waitFor<{ reason: string }>('message-dropped');
    await ping(strict, createPeerDid({ endpoint: `${t2.url}/internal/api?secret=1` }));
    expect((await dropped).reason).toMatch(/endpoint refused: loopback/);
    expect(t2.hits).toEqual([]);
  });

  it('resolves a sender\'s did:web under the same policy (no fetch to a loopback host when loopback is off)', async () => {
    const t = await trap();
    const h = await service({ outboundEndpoints: { allowLoopback: false } });
    const sender = createWebDid({ url: `${t.url}/internal/admin` });
    // The service cannot resolve the sender, so the message is refused; its host was never asked.
    await ping(h, sender, sender.document);
    expect(t.hits).toEqual([]);
  });

  it('refuses private ranges unless allowed', () => {
    expect(endpointRefusal('http://10.1.2.3/didcomm')).toMatch(/private/);
    expect(endpointRefusal('https://192.168.0.10/didcomm')).toMatch(/private/);
    expect(endpointRefusal('ws://172.20.0.1/didcomm')).toMatch(/private/);
    expect(endpointRefusal('http://10.1.2.3/didcomm', { allowPrivate: true })).toBeUndefined();
    expect(endpointRefusal('http://169.254.169.254/', { allowPrivate: true, allowLoopback: true })).toMatch(/never/);
    expect(endpointRefusal('http://[fe80::1]/', { allowPrivate: true })).toMatch(/never/);
    expect(endpointRefusal('http://localhost:8080/didcomm')).toBeUndefined();
    expect(endpointRefusal('https://wallet.example.com/didcomm')).toBeUndefined();
    expect(endpointRefusal('memory://wallet')).toBeUndefined();
  });

  it('does not follow a 307 redirect to a refused address', async () => {
    const hits: string[] = [];
    const server = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      req.resume().on('end', () => res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data' }).end());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    cleanup.push(() => new Promise((r) => server.close(r)));
    const f = endpointFetch(() => DEFAULT_ENDPOINT_POLICY);
    cleanup.push(() => f.close());
    const transport = httpTransport({ fetch: f });
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/didcomm`;
    await expect(transport.send(url, JSON.stringify({ id: '1', typ: 'application/didcomm-plain+json', type: PING, body: {} }), { returnRoute: false })).rejects.toMatchObject({
      code: 'endpoint_refused',
    });
    expect(hits).toEqual(['POST /didcomm']);
  });
});

describe('who gets messages queued', () => {
  it('queues nothing for strangers: 30 pings from fresh DIDs without endpoints leave the queue empty', async () => {
    const h = await service();
    for (let i = 0; i < 30; i++) await ping(h, createKeyDid());
    await h.agent.idle();
    expect(await queued(h)).toBe(0);
    const log = await messageLog(h.store, h.service.deps.clock).list({});
    expect(log.filter((r) => r.direction === 'out' && r.result === 'dropped')).toHaveLength(30);
  });

  describe('in memory', () => {
    let m: MemoryHarness;
    const pingFrom = async (holder: ReturnType<MemoryHarness['holder']>) =>
      holder.router.send({ type: PING, to: [m.service.deps.serviceDid], from: holder.from(), body: { response_requested: true } });

    it('queues an answer for a linked wallet without an endpoint, and drops one for an unknown wallet', async () => {
      m = await memoryHarness();
      cleanup.push(() => m.close());
      const stranger = m.holder({ offline: true });
      const dropped = m.agent.waitFor<{ reason: string }>('message-dropped');
      await pingFrom(stranger);
      expect((await dropped).reason).toMatch(/no relationship/);
      expect(await m.agent.queue.count(stranger.did.did)).toBe(0);

      const ref = await m.user('u1');
      const wallet = m.holder({ offline: true });
      await wallet.acceptDataPipe(await m.invitation(ref));
      const kept = m.agent.waitFor<{ relationship: string }>('message-queued');
      await pingFrom(wallet);
      expect((await kept).relationship).toBe('linked-user');
      expect(await m.agent.queue.count(wallet.did.did)).toBe(1);
    });

    it('queues the service\'s own messages (a sync for a linked wallet that collects by pickup)', async () => {
      m = await memoryHarness();
      cleanup.push(() => m.close());
      const ref = await m.user('u1');
      const wallet = m.holder({ offline: true });
      await wallet.acceptDataPipe(await m.invitation(ref));
      const kept = m.agent.waitFor<{ relationship: string; type: string }>('message-queued', (e) => e.type.endsWith('/request-presentation'));
      await m.service.deps.users.startSync(ref);
      expect((await kept).relationship).toBe('service-initiated');
    });
  });
});

describe('the pickup queue', () => {
  it('forgets messages older than the TTL (injected clock) and prunes them', async () => {
    const store = await openStore();
    cleanup.push(() => store.close());
    const clock = new ManualClock();
    const queue = messageQueue({ store, clock, ids: sequentialIds('q') }, { ttlMs: 60_000, collection: COLLECTIONS.queue });
    await queue.enqueue('did:example:a', 'old');
    clock.advance(30_000);
    await queue.enqueue('did:example:a', 'new');
    clock.advance(30_001);
    expect((await queue.list('did:example:a')).map((e) => e.packed)).toEqual(['new']);
    expect(await queue.count('did:example:a')).toBe(1);
    clock.advance(30_000);
    expect(await queue.count('did:example:a')).toBe(0);
    expect(await queue.recipients()).toEqual([]);
    await queue.enqueue('did:example:b', 'fresh');
    expect(await queue.prune()).toBe(1);
    expect(await store.collection(COLLECTIONS.queue).count()).toBe(1);
  });

  it('holds at most maxPerRecipient messages per recipient and refuses more with queue_full', async () => {
    const store = await openStore();
    cleanup.push(() => store.close());
    const queue = messageQueue({ store, clock: new ManualClock(), ids: sequentialIds('q') }, { maxPerRecipient: 3 });
    for (let i = 0; i < 3; i++) await queue.enqueue('did:example:a', `m${i}`);
    await expect(queue.enqueue('did:example:a', 'm3')).rejects.toMatchObject({ code: 'queue_full' });
    await queue.enqueue('did:example:b', 'other recipient');
    expect((await queue.list('did:example:a')).map((e) => e.packed)).toEqual(['m0', 'm1', 'm2']);
  });

  it('defaults to 30 days and 1000 messages', async () => {
    const store = await openStore();
    cleanup.push(() => store.close());
    const clock = new ManualClock();
    const queue = messageQueue({ store, clock, ids: sequentialIds('q') });
    for (let i = 0; i < 1000; i++) await queue.enqueue('did:example:a', 'x');
    await expect(queue.enqueue('did:example:a', 'x')).rejects.toMatchObject({ code: 'queue_full' });
    clock.advance(30 * 24 * 3600 * 1000);
    expect(await queue.count('did:example:a')).toBe(1000);
    clock.advance(1);
    expect(await queue.count('did:example:a')).toBe(0);
  });
});
