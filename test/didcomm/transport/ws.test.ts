import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { IdsyncError } from '../../../src/errors.js';
import { startHttpEndpoint } from '../../../src/didcomm/transport/http.js';
import { attachWsEndpoint, startWsEndpoint, wsTransport, type StandaloneWsEndpoint, type WsEndpointOptions, type WsTransportOptions } from '../../../src/didcomm/transport/ws.js';
import { createPeerDid4 } from '../../../src/did/peer4.js';
import { deferred, encrypted, inbox } from './helpers.js';

const ION_SHORT = `did:ion:EiA${'b'.repeat(43)}`;
const ION_LONG = `${ION_SHORT}:eyJkZWx0YSI6e319`;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function server(options: WsEndpointOptions): Promise<StandaloneWsEndpoint> {
  const ep = await startWsEndpoint(options);
  cleanups.push(() => ep.close());
  return ep;
}

function client(options: WsTransportOptions = {}) {
  const t = wsTransport(options);
  cleanups.push(() => t.close());
  return t;
}

/** A raw client socket, for frames our transport would never send. */
async function raw(url: string): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  const ws = new WebSocket(url);
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  await new Promise((r, j) => {
    ws.on('open', r);
    ws.on('error', j);
  });
  return { ws, closed };
}

describe('websocket transport', () => {
  it('sends each message as a text frame on one socket, in order', async () => {
    const got = inbox<{ packed: string; conn: number }>();
    const ep = await server({ handler: async (packed, info) => got.push({ packed, conn: info.connection.id }) });
    expect(ep.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/didcomm$/);
    const t = client();
    expect(await t.send(ep.url, encrypted(1))).toEqual([]);
    await t.send(ep.url, encrypted(2));
    await Promise.all([t.send(ep.url, encrypted(3)), t.send(ep.url, encrypted(4))]);
    const frames = [await got.next(), await got.next(), await got.next(), await got.next()];
    expect(frames.map((f) => f.packed)).toEqual([encrypted(1), encrypted(2), encrypted(3), encrypted(4)]);
    expect(new Set(frames.map((f) => f.conn)).size).toBe(1);
    expect(ep.sockets.size).toBe(1);
    expect(t.isOpen(ep.url)).toBe(true);
  });

  it('delivers return-routed replies through onInbound and lets the client answer on the socket', async () => {
    const atServer = inbox();
    const ep = await server({
      handler: async (packed, info) => {
        atServer.push(packed);
        if (packed === encrypted(1)) await info.reply(encrypted(10));
      },
    });
    const atClient = inbox();
    const t = client({
      onInbound: async (packed, info) => {
        atClient.push(packed);
        expect(info.transport).toBe('ws');
        await info.reply!(encrypted(11));
      },
    });
    expect(await t.send(ep.url, encrypted(1), { returnRoute: true })).toEqual([]);
    expect(await atClient.next()).toBe(encrypted(10));
    expect(await atServer.next()).toBe(encrypted(1));
    expect(await atServer.next()).toBe(encrypted(11));
  });

  it('tells the handler the remote address of the connection, taken from the upgrade request', async () => {
    const addresses = inbox<string | undefined>();
    const ep = await server({ handler: async (_packed, info) => addresses.push(info.connection.remoteAddress) });
    await client().send(ep.url, encrypted());
    // Listening on 127.0.0.1: the peer is the loopback address (IPv4, possibly IPv4-mapped).
    expect(await addresses.next()).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect([...ep.sockets][0].remoteAddress).toMatch(/127\.0\.0\.1$/);
  });

  it('pushes later to the socket a DID was bound to, by long or short form', async () => {
    const bound = deferred();
    const ep = await server({
      handler: async (_packed, info) => {
        info.bind(ION_LONG);
        bound.resolve();
      },
    });
    const atClient = inbox();
    const t = client({ onInbound: async (p) => atClient.push(p) });
    expect(ep.isConnected(ION_SHORT)).toBe(false);
    expect(await ep.pushTo(ION_SHORT, encrypted(5))).toBe(false);
    await t.send(ep.url, encrypted(1), { returnRoute: true });
    await bound.promise;
    expect(ep.isConnected(ION_SHORT)).toBe(true);
    expect([...ep.sockets][0].keys).toEqual(new Set([ION_SHORT]));
    expect(await ep.pushTo(ION_SHORT, encrypted(6))).toBe(true);
    expect(await ep.pushTo(ION_LONG, encrypted(7))).toBe(true);
    expect(await atClient.next()).toBe(encrypted(6));
    expect(await atClient.next()).toBe(encrypted(7));
    expect(await ep.pushTo('did:example:other', encrypted(8))).toBe(false);
  });

  it('pushes to the socket a did:peer:4 was bound to in one form when addressed in the other (DID Peer §Method 4)', async () => {
    const { did: long, shortDid } = createPeerDid4();
    const short = shortDid!;
    const bound = deferred();
    const ep = await server({
      handler: async (_packed, info) => {
        info.bind(long);
        bound.resolve();
      },
    });
    const atClient = inbox();
    const t = client({ onInbound: async (p) => atClient.push(p) });
    await t.send(ep.url, encrypted(1), { returnRoute: true });
    await bound.promise;
    expect([...ep.sockets][0].keys).toEqual(new Set([short]));
    expect(ep.isConnected(short)).toBe(true);
    expect(await ep.pushTo(short, encrypted(2))).toBe(true);
    expect(await ep.pushTo(long, encrypted(3))).toBe(true);
    expect(await atClient.next()).toBe(encrypted(2));
    expect(await atClient.next()).toBe(encrypted(3));
  });

  it('forgets a binding when the socket closes, and reconnects on the next send', async () => {
    const conns = inbox<number>();
    const gone = inbox<number>();
    const ep = await server({
      handler: async (_p, info) => {
        info.bind(ION_SHORT);
        conns.push(info.connection.id);
      },
      onDisconnect: (c) => gone.push(c.id),
    });
    const closed = inbox<number>();
    const t = client({ onClose: (_url, code) => closed.push(code) });
    await t.send(ep.url, encrypted(1));
    const first = await conns.next();
    [...ep.sockets][0].close(4000, 'bye');
    expect(await closed.next()).toBe(4000);
    expect(await gone.next()).toBe(first);
    expect(ep.isConnected(ION_SHORT)).toBe(false);
    expect(await ep.pushTo(ION_SHORT, encrypted(2))).toBe(false);
    expect(t.isOpen(ep.url)).toBe(false);
    await t.send(ep.url, encrypted(3));
    const second = await conns.next();
    expect(second).not.toBe(first);
    // A client-side close also leaves the transport usable.
    await t.close();
    await t.send(ep.url, encrypted(4));
    expect(await conns.next()).not.toBe(second);
  });

  it('can open a socket without sending, for live mode', async () => {
    const ep = await server({ handler: async () => {} });
    const t = client({ onInbound: async () => {} });
    await t.connect(ep.url);
    expect(t.isOpen(ep.url)).toBe(true);
    expect(ep.sockets.size).toBe(1);
  });

  it('closes a socket that sends a frame that is not a DIDComm message with 1007, and keeps serving', async () => {
    const got = inbox();
    const ep = await server({ handler: async (p) => got.push(p) });
    const bad = await raw(ep.url);
    bad.ws.send('hello');
    expect(await bad.closed).toBe(1007);
    // JSON, but shaped as no DIDComm serialisation (no JWE, JWS or plaintext members).
    const odd = await raw(ep.url);
    odd.ws.send('{"hello":"world"}');
    expect(await odd.closed).toBe(1007);
    const t = client();
    await t.send(ep.url, encrypted(1));
    expect(await got.next()).toBe(encrypted(1));
  });

  it('closes a socket that sends an oversized frame with 1009', async () => {
    const ep = await server({ handler: async () => {}, maxBytes: 1000 });
    const big = await raw(ep.url);
    big.ws.send(JSON.stringify({ ciphertext: 'x'.repeat(2000) }));
    expect(await big.closed).toBe(1009);
  });

  it('fails a request at once when the peer closes its socket before answering (1009 after an oversized frame), and the next send reconnects', async () => {
    const conns = inbox<number>();
    const ep = await server({
      maxBytes: 1000,
      handler: async (packed, info) => {
        conns.push(info.connection.id);
        await info.reply(packed);
      },
    });
    const replies = inbox();
    const closes = inbox<number>();
    const t = client({ onInbound: async (p) => replies.push(p), onClose: (_url, code) => closes.push(code) });
    await t.send(ep.url, encrypted(1));
    const first = await conns.next();
    expect(await replies.next()).toBe(encrypted(1));
    // Written back to back: the second frame goes out before the server's 1009 close frame can
    // arrive, on a socket the server no longer reads.
    const oversized = JSON.stringify({ ciphertext: 'x'.repeat(2000) });
    const started = Date.now();
    const [bigSent, after] = await Promise.allSettled([
      t.send(ep.url, oversized),
      t.request(ep.url, encrypted(2), new Promise((r) => setTimeout(() => r('timed out'), 5000))),
    ]);
    expect(bigSent.status).toBe('fulfilled');
    expect(after.status).toBe('rejected');
    const err = (after as PromiseRejectedResult).reason as IdsyncError;
    expect(err.code).toBe('transport_unreachable');
    expect(err.details).toMatchObject({ endpoint: ep.url, code: 1009 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await closes.next()).toBe(1009);
    // The next request goes on a new socket and is answered.
    expect(await t.request(ep.url, encrypted(3), replies.next())).toBe(encrypted(3));
    expect(await conns.next()).not.toBe(first);
  });

  it('resolves a request with the answer that came just before the peer closed the socket', async () => {
    const ep = await server({
      handler: async (packed, info) => {
        await info.reply(packed);
        info.connection.close(1000);
      },
    });
    const replies = inbox();
    // Handling an arrival takes time (a router unpacks it): the close frame is in before it ends.
    const t = client({
      onInbound: async (p) => {
        await new Promise((r) => setTimeout(r, 30));
        replies.push(p);
      },
    });
    expect(await t.request(ep.url, encrypted(1), replies.next())).toBe(encrypted(1));
  });

  it('resolves a request with its answer while the socket stays open', async () => {
    const ep = await server({ handler: async (packed, info) => info.reply(packed) });
    const replies = inbox();
    const t = client({ onInbound: async (p) => replies.push(p) });
    expect(await t.request(ep.url, encrypted(1), replies.next())).toBe(encrypted(1));
    expect(t.isOpen(ep.url)).toBe(true);
  });

  it('keeps the socket open when the handler fails, and reports the error', async () => {
    const errors = inbox<IdsyncError>();
    const got = inbox();
    const ep = await server({
      handler: async (p) => {
        if (p === encrypted(1)) throw new IdsyncError('didcomm_malformed', 'bad');
        got.push(p);
      },
      onError: (e) => errors.push(e),
    });
    const t = client();
    await t.send(ep.url, encrypted(1));
    await t.send(ep.url, encrypted(2));
    expect((await errors.next()).code).toBe('didcomm_malformed');
    expect(await got.next()).toBe(encrypted(2));
    expect(ep.sockets.size).toBe(1);
  });

  it('accepts a binary frame as UTF-8 text', async () => {
    const got = inbox();
    const ep = await server({ handler: async (p) => got.push(p) });
    const c = await raw(ep.url);
    c.ws.send(Buffer.from(encrypted(9)), { binary: true });
    expect(await got.next()).toBe(encrypted(9));
    c.ws.close();
    await c.closed;
  });

  it('reports transport_unreachable when nothing listens and transport_rejected for a refused upgrade', async () => {
    const ep = await startWsEndpoint({ handler: async () => {} });
    await ep.close();
    await expect(client().send(ep.url, encrypted())).rejects.toMatchObject({ code: 'transport_unreachable' });
    const live = await server({ handler: async () => {} });
    await expect(client().send(live.url.replace('/didcomm', '/nope'), encrypted())).rejects.toMatchObject({ code: 'transport_rejected', details: { status: 404 } });
    await expect(client().send('http://127.0.0.1:1/x', encrypted())).rejects.toMatchObject({ code: 'unsupported_scheme' });
    await expect(client().send(live.url, 'not json')).rejects.toMatchObject({ code: 'transport_invalid_message' });
  });

  it('reports transport_timeout when the upgrade is never answered', async () => {
    const silent = net.createServer(() => {
      /* accepts TCP, never answers */
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => silent.close(() => r())));
    const sockets: net.Socket[] = [];
    silent.on('connection', (s) => sockets.push(s));
    cleanups.push(async () => sockets.forEach((s) => s.destroy()));
    const url = `ws://127.0.0.1:${(silent.address() as net.AddressInfo).port}/didcomm`;
    await expect(client({ timeoutMs: 150 }).send(url, encrypted())).rejects.toMatchObject({ code: 'transport_timeout' });
  });

  it('ends a connect whose upgrade is never answered when its signal aborts, and refuses what comes after', async () => {
    const sockets: net.Socket[] = [];
    const connected = deferred<void>();
    const silent = net.createServer((s) => {
      // accepts TCP, never answers the upgrade
      sockets.push(s);
      connected.resolve();
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => silent.close(() => r())));
    cleanups.push(async () => sockets.forEach((s) => s.destroy()));
    const url = `ws://127.0.0.1:${(silent.address() as net.AddressInfo).port}/didcomm`;
    const stop = new AbortController();
    const errors: IdsyncError[] = [];
    // The default timeout (10 s) is far off: only the abort can end the connect in the test's time.
    const t = client({ signal: stop.signal, onError: (e) => errors.push(e) });
    const sent = t.send(url, encrypted());
    await connected.promise;
    stop.abort();
    await expect(sent).rejects.toMatchObject({ code: 'aborted' });
    await expect(t.send(url, encrypted())).rejects.toMatchObject({ code: 'aborted' });
    await expect(t.connect(url)).rejects.toMatchObject({ code: 'aborted' });
    expect(t.isOpen(url)).toBe(false);
    // The handshake it cut short is not reported as a transport error.
    expect(errors).toEqual([]);
  });

  it('refuses to write on an open socket once its signal aborted', async () => {
    const got = inbox();
    const ep = await server({ handler: async (p) => got.push(p) });
    const stop = new AbortController();
    const t = client({ signal: stop.signal });
    await t.send(ep.url, encrypted(1));
    await got.next();
    stop.abort();
    await expect(t.send(ep.url, encrypted(2))).rejects.toMatchObject({ code: 'aborted' });
  });

  it('shares a port with the HTTP endpoint', async () => {
    const got = inbox<string>();
    const http = await startHttpEndpoint({ handler: async (_p, info) => got.push(info.transport) });
    cleanups.push(() => http.close());
    const ws = attachWsEndpoint(http.server, { path: '/didcomm', handler: async (_p, info) => got.push(info.transport) });
    cleanups.push(() => ws.close());
    await client().send(http.url.replace('http:', 'ws:'), encrypted());
    expect(await got.next()).toBe('ws');
    const res = await fetch(http.url, { method: 'POST', headers: { 'content-type': 'application/didcomm-encrypted+json' }, body: encrypted() });
    expect(res.status).toBe(202);
    expect(await got.next()).toBe('http');
  });
});
