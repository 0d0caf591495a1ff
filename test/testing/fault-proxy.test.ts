// fault-proxy.ts (`idsync proxy`) over real sockets: DIDComm POST bodies, their return-routed
// replies and WebSocket frames get the plan's faults; other requests pass untouched; every fault
// is recorded. Then a whole flow through the proxy: the service's public URL is the proxy.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { createService } from '../../src/service/app.js';
import { openStore } from '../../src/store/store.js';
import { startFaultProxy, type FaultProxy } from '../../src/testing/fault-proxy.js';
import type { FaultPlan } from '../../src/testing/fault-plan.js';
import { createServiceClient } from '../../src/testing/rest-client.js';
import { connectUser, syncDatapoints } from '../../src/testing/flows.js';
import { createWallet } from '../../src/wallet/wallet.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const ENC = 'application/didcomm-encrypted+json';
const msg = (n: number) => JSON.stringify({ protected: 'eyJ0eXAiOiJ4In0', recipients: [], iv: 'aXY', ciphertext: `Y2lwaGVydGV4dA${n}`, tag: 'dGFn' });

/** A target that records each request and answers DIDComm POSTs with a return-routed reply. */
async function target() {
  const got: { method?: string; url?: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      got.push({ method: req.method, url: req.url, body });
      if (req.method === 'POST') res.writeHead(200, { 'content-type': ENC }).end(msg(900 + got.length));
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

/** Delays take no time; a reordered message is held until the next one (the hold never times out). */
async function proxyTo(url: string, plan: FaultPlan): Promise<FaultProxy> {
  const p = await startFaultProxy({ listen: 0, target: url, plan, sleep: () => new Promise(() => {}) });
  cleanup.push(() => p.close());
  return p;
}

const post = (url: string, body: string, type = ENC) => fetch(`${url}/didcomm`, { method: 'POST', headers: { 'content-type': type }, body });

describe('fault proxy over HTTP', () => {
  it('drops (202 to the sender), duplicates and tampers DIDComm POST bodies as the plan says, and records each fault', async () => {
    const t = await target();
    const p = await proxyTo(t.url, { rules: [{ fault: 'drop', direction: 'to-target', nth: 1 }, { fault: 'duplicate', direction: 'to-target', nth: 2 }, { fault: 'tamper', direction: 'to-target', nth: 3 }] });
    const first = await post(p.url, msg(1));
    expect(first.status).toBe(202);
    const second = await post(p.url, msg(2));
    expect(second.status).toBe(200);
    expect(await second.text()).toBe(msg(901));
    await post(p.url, msg(3));
    expect(t.got.map((g) => g.body)).toEqual([msg(2), msg(2), expect.not.stringMatching(msg(3))]);
    expect(t.got[2].body).toHaveLength(msg(3).length);
    expect(p.injector.applied.map((f) => [f.fault, f.direction, f.mediaType, f.endpoint])).toEqual([
      ['drop', 'to-target', 'encrypted', '/didcomm'],
      ['duplicate', 'to-target', 'encrypted', '/didcomm'],
      ['tamper', 'to-target', 'encrypted', '/didcomm'],
    ]);
  });

  it('reorders: the held message reaches the target after the next one', async () => {
    const t = await target();
    const p = await proxyTo(t.url, { rules: [{ fault: 'reorder', direction: 'to-target', nth: 1 }] });
    expect((await post(p.url, msg(1))).status).toBe(202);
    await post(p.url, msg(2));
    expect(t.got.map((g) => g.body)).toEqual([msg(2), msg(1)]);
  });

  it('answers 503 with Retry-After for fail503, and drops a return-routed reply on the way back', async () => {
    const t = await target();
    const p = await proxyTo(t.url, { rules: [{ fault: 'fail503', nth: 1, retryAfterSeconds: 4 }, { fault: 'drop', direction: 'to-client', nth: 1 }] });
    const refused = await post(p.url, msg(1));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('4');
    expect(await refused.json()).toEqual({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'fault injected', code: 'temporarily_unavailable', retryAfter: 4 });
    const noReply = await post(p.url, msg(2));
    expect(noReply.status).toBe(202);
    expect(await noReply.text()).toBe('');
    expect(t.got).toHaveLength(1);
  });

  it('forwards anything that is not a DIDComm POST untouched, path and query kept', async () => {
    const t = await target();
    const p = await proxyTo(t.url, { rules: [{ fault: 'drop' }] });
    const res = await fetch(`${p.url}/.well-known/did.json?x=1`);
    expect(await res.json()).toEqual({ ok: true });
    const rest = await post(p.url, '{"clientId":"a"}', 'application/json');
    expect(rest.status).toBe(200);
    expect(t.got.map((g) => `${g.method} ${g.url}`)).toEqual(['GET /.well-known/did.json?x=1', 'POST /didcomm']);
    expect(p.injector.applied).toEqual([]);
  });
});

describe('fault proxy over WebSocket', () => {
  it('drops and duplicates frames each way and disconnects both sockets on a disconnect fault', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(wss, 'listening');
    cleanup.push(() => new Promise((r) => wss.close(r)));
    const atTarget: string[] = [];
    wss.on('connection', (s) => s.on('message', (d) => {
      atTarget.push(d.toString());
      s.send(`echo:${d.toString()}`);
    }));
    const p = await proxyTo(`http://127.0.0.1:${(wss.address() as AddressInfo).port}`, {
      rules: [{ fault: 'drop', direction: 'to-target', nth: 1 }, { fault: 'duplicate', direction: 'to-client', nth: 1 }, { fault: 'disconnect', direction: 'to-target', nth: 3 }],
    });
    const client = new WebSocket(`${p.url.replace('http', 'ws')}/didcomm`);
    await once(client, 'open');
    const back: string[] = [];
    const twoBack = new Promise<void>((resolve) => client.on('message', (d) => void (back.push(d.toString()), back.length === 2 && resolve())));
    client.send(msg(1));
    client.send(msg(2));
    await twoBack;
    expect(atTarget).toEqual([msg(2)]);
    expect(back).toEqual([`echo:${msg(2)}`, `echo:${msg(2)}`]);
    const closed = once(client, 'close');
    client.send(msg(3));
    await closed;
    expect(p.injector.counts()).toMatchObject({ drop: 1, duplicate: 1, disconnect: 1 });
  });
});

describe("the proxy's own answers and what it lets go", () => {
  it('closes its socket to the target when the client leaves during the target handshake', async () => {
    // The target takes its time to accept, so the proxy's socket to it is still connecting when
    // the client goes: that socket used to open later and stay open for good.
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, verifyClient: (_info, done) => void setTimeout(() => done(true), 100) });
    await once(wss, 'listening');
    cleanup.push(() => new Promise((r) => wss.close(r)));
    const p = await proxyTo(`http://127.0.0.1:${(wss.address() as AddressInfo).port}`, { rules: [] });
    for (let i = 0; i < 10; i++) {
      const client = new WebSocket(`${p.url.replace('http', 'ws')}/didcomm`);
      await once(client, 'open');
      client.close();
      await once(client, 'close');
    }
    const deadline = Date.now() + 5000;
    while (wss.clients.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300)); // any handshake still pending completes by now
    expect(wss.clients.size).toBe(0);
  });

  it('answers a target that is down and a body too large as problem details', async () => {
    const dead = http.createServer();
    dead.listen(0, '127.0.0.1');
    await once(dead, 'listening');
    const url = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
    await new Promise((r) => dead.close(r));
    const p = await proxyTo(url, { rules: [] });
    const down = await fetch(`${p.url}/health`);
    expect(down.status).toBe(502);
    expect(down.headers.get('content-type')).toBe('application/problem+json');
    expect(await down.json()).toMatchObject({ status: 502, code: 'transport_unreachable' });
    const big = await fetch(`${p.url}/didcomm`, { method: 'POST', headers: { 'content-type': ENC }, body: 'x'.repeat(3 * 1024 * 1024) });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
  });

  it('says address_in_use for a port another process holds', async () => {
    const { url } = await target();
    const taken = Number(new URL(url).port);
    await expect(startFaultProxy({ listen: taken, target: url, plan: { rules: [] } })).rejects.toMatchObject({ code: 'address_in_use' });
  });
});

describe('a whole flow through the proxy', () => {
  it('completes a Data Pipe and a sync with every message from the wallet to the service duplicated', async () => {
    // The service's public URL (its did:web and endpoints) is the proxy's address.
    const reserve = http.createServer().listen(0, '127.0.0.1');
    await once(reserve, 'listening');
    const proxyPort = (reserve.address() as AddressInfo).port;
    await new Promise((r) => reserve.close(r));
    const store = await openStore();
    const CLIENT = { clientId: 'qa-client', clientSecret: 'qa-secret-123', projectId: 'qa-project' };
    const service = await createService({ store, env: CLIENT, rateLimit: false, publicUrl: `http://127.0.0.1:${proxyPort}` });
    const serviceUrl = await service.listen({ port: 0 });
    cleanup.push(async () => (await service.close(), store.close()));
    const p = await startFaultProxy({ listen: proxyPort, target: serviceUrl, plan: { seed: 4, rules: [{ fault: 'duplicate', direction: 'to-target' }] } });
    cleanup.push(() => p.close());

    const walletStore = await openStore();
    const wallet = createWallet({ store: walletStore });
    await wallet.listen({ http: { host: '127.0.0.1', port: 0 } });
    cleanup.push(async () => (await wallet.close(), walletStore.close()));
    const client = createServiceClient({ url: p.url, ...CLIENT });
    await connectUser(client, 'ada', wallet);
    const { credential } = await syncDatapoints(client, 'ada', wallet, { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' });
    expect(credential.verified).toBe(true);
    expect(p.injector.counts().duplicate).toBeGreaterThanOrEqual(3);
  });
});
