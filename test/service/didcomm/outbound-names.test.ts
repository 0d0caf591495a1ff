// The endpoint policy after name resolution (docs/service.md "Outbound endpoints"): a peer's
// DIDComm endpoint, WebSocket endpoint or did:web host named by a host name is resolved once,
// every address is checked, and the connection goes to the checked address. Names are answered
// by a resolver injected into the service (there is no DNS here); `localhost` by /etc/hosts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createPeerDid } from '../../../src/did/peer.js';
import { createResolver, documentResolver } from '../../../src/did/resolver.js';
import type { CreatedDid, DIDDocument } from '../../../src/did/types.js';
import { createWebDid } from '../../../src/did/web.js';
import { pack } from '../../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../../src/didcomm/secrets.js';
import type { HostResolver } from '../../../src/net/connect-guard.js';
import type { ServiceDidcommAgent } from '../../../src/service/didcomm/agent.js';
import type { CreateServiceOptions } from '../../../src/service/app.js';
import { startService, type Harness } from '../http-helpers.js';

const PING = 'https://didcomm.org/trust-ping/2.0/ping';

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  const all = cleanup.reverse();
  cleanup = [];
  for (const c of all) await c();
});

/** Names only this table knows; a name not in it does not resolve. */
function table(entries: Record<string, string[]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  return Object.assign(
    async (host: string) => {
      asked.push(host);
      const list = entries[host];
      if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return list.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
    },
    { asked },
  );
}

/** A local HTTP server recording each request's method, path and Host header. */
async function trap(): Promise<{ port: number; hits: { line: string; host?: string }[] }> {
  const hits: { line: string; host?: string }[] = [];
  const server = http.createServer((req, res) => {
    hits.push({ line: `${req.method} ${req.url}`, host: req.headers.host });
    req.resume().on('end', () => res.writeHead(202).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanup.push(() => new Promise((r) => server.close(r)));
  return { port: (server.address() as AddressInfo).port, hits };
}

async function service(options: Partial<CreateServiceOptions>): Promise<Harness & { agent: ServiceDidcommAgent }> {
  const h = await startService(options);
  cleanup.push(() => h.close());
  return Object.assign(h, { agent: h.service.deps.agent as ServiceDidcommAgent });
}

/** POSTs an authcrypted trust ping (response requested) from `sender`: the service answers at the sender's endpoint. */
async function ping(h: Harness, sender: CreatedDid, senderDocument?: DIDDocument): Promise<number> {
  const svc = h.service.deps;
  const base = documentResolver(createResolver({ cache: false }));
  const resolve = async (did: string) =>
    did.startsWith(svc.serviceDid) ? svc.identity.document : senderDocument && did.startsWith(sender.did) ? senderDocument : base(did);
  const message = { id: `ping-${Math.random()}`, typ: 'application/didcomm-plain+json', type: PING, from: sender.did, to: [svc.serviceDid], body: { response_requested: true } };
  const packed = await pack(message as never, { mode: 'authcrypt' }, { resolve, secrets: memorySecrets(sender.secrets) });
  return (await h.call('POST', '/didcomm', { raw: true, body: packed.packed, headers: { 'content-type': 'application/didcomm-encrypted+json' } })).status;
}

describe('DIDComm endpoints named by host names', () => {
  it('connects to the checked address: a name only the injected resolver knows reaches the peer, Host intact', async () => {
    const t = await trap();
    const resolver = table({ 'wallet.internal': ['127.0.0.1'] });
    const h = await service({ resolveHost: resolver });
    const delivered = h.agent.waitFor('message-delivered');
    await ping(h, createPeerDid({ endpoint: `http://wallet.internal:${t.port}/didcomm` }));
    await delivered;
    expect(t.hits).toEqual([{ line: 'POST /didcomm', host: `wallet.internal:${t.port}` }]);
    expect(resolver.asked).toContain('wallet.internal');
  });

  it('with --no-loopback-endpoints, refuses a name that resolves to loopback and never connects', async () => {
    const t = await trap();
    const h = await service({ resolveHost: table({ 'wallet.internal': ['127.0.0.1'] }), outboundEndpoints: { allowLoopback: false } });
    const dropped = h.agent.waitFor<{ reason: string }>('message-dropped');
    await ping(h, createPeerDid({ endpoint: `http://wallet.internal:${t.port}/didcomm` }));
    expect((await dropped).reason).toMatch(/endpoint refused: loopback/);
    expect(t.hits).toEqual([]);
  });

  it('refuses names resolving to private (by default), metadata, NAT64 and 6to4 forms of forbidden addresses', async () => {
    const resolver = table({
      'private.example': ['10.0.0.5'],
      'meta.example': ['169.254.169.254'],
      'nat64.example': ['64:ff9b::a9fe:a9fe'],
      'sixtofour.example': ['2002:a9fe:a9fe::1'],
      'split.example': ['93.184.216.34', 'fd00:ec2::254'],
    });
    const h = await service({ resolveHost: resolver, outboundEndpoints: { allowLoopback: true } });
    const expected: Record<string, RegExp> = {
      'private.example': /private network/,
      'meta.example': /cloud metadata/,
      'nat64.example': /cloud metadata/,
      'sixtofour.example': /cloud metadata/,
      'split.example': /cloud metadata/,
    };
    for (const [host, reason] of Object.entries(expected)) {
      const dropped = h.agent.waitFor<{ reason: string }>('message-dropped');
      await ping(h, createPeerDid({ endpoint: `http://${host}/didcomm` }));
      expect((await dropped).reason, host).toMatch(reason);
    }
  });

  it('refuses localhost (from /etc/hosts, over the system resolver) with --no-loopback-endpoints', async () => {
    const t = await trap();
    const h = await service({ outboundEndpoints: { allowLoopback: false } });
    const dropped = h.agent.waitFor<{ reason: string }>('message-dropped');
    await ping(h, createPeerDid({ endpoint: `http://localhost:${t.port}/didcomm` }));
    expect((await dropped).reason).toMatch(/endpoint refused: loopback/);
    expect(t.hits).toEqual([]);
  });

  it('guards WebSocket endpoints the same way', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    let upgrades = 0;
    wss.on('connection', () => upgrades++);
    cleanup.push(() => new Promise((r) => wss.close(r)));
    const port = (wss.address() as AddressInfo).port;
    const h = await service({ resolveHost: table({ 'wallet.internal': ['127.0.0.1'] }), outboundEndpoints: { allowLoopback: false } });
    const dropped = h.agent.waitFor<{ reason: string }>('message-dropped');
    await ping(h, createPeerDid({ endpoint: `ws://wallet.internal:${port}/didcomm` }));
    expect((await dropped).reason).toMatch(/endpoint refused: loopback/);
    expect(upgrades).toBe(0);
  });

  it("resolves a sender's did:web under the policy after name resolution: its host is never fetched when refused", async () => {
    const t = await trap();
    const resolver = table({ 'issuer.internal': ['127.0.0.1'] });
    const h = await service({ resolveHost: resolver, outboundEndpoints: { allowLoopback: false } });
    // did:web hosts other than localhost/127.0.0.1 are fetched over https; the name leads to loopback.
    const sender = createWebDid({ url: `https://issuer.internal:${t.port}` });
    await ping(h, sender, sender.document);
    expect(resolver.asked).toContain('issuer.internal');
    expect(t.hits).toEqual([]);
  });
});
