// Persistent connections over the fleet's link (src/fleet/link-socket.ts): frames both ways in
// order, a close heard at the other end, refusal without an acceptor, every socket closed with
// the link; and a wallet behind idsync's mediator in live mode (Message Pickup 3.0 §Live Mode) on
// a link socket instead of a WebSocket: a message forwarded to it is pushed over the link, and
// its live binding ends when it closes.
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { portEnd } from '../../src/fleet/link.js';
import { directSockets, linkedWebSocket, type LinkSocket, type SocketAcceptor, type SocketOpener } from '../../src/fleet/link-socket.js';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { openStore, type Store } from '../../src/store/store.js';
import { createWallet, type Wallet } from '../../src/wallet/wallet.js';

const noRequests = async () => ({ status: 404, headers: {} });

/** Resolves once `check` holds, polling the event loop (a port hands messages over asynchronously). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setImmediate(r));
  expect(check()).toBe(true);
}

/** An acceptor that records what its sockets receive and keeps them. */
function recordingAcceptor() {
  const got: string[] = [];
  const closed: string[] = [];
  const sockets: LinkSocket[] = [];
  const accept: SocketAcceptor = (socket, url) => {
    sockets.push(socket);
    return { frame: (d) => void got.push(`${url} ${d}`), closed: () => void closed.push(url) };
  };
  return { got, closed, sockets, accept };
}

const openers: Array<[string, (accept?: SocketAcceptor) => { open: SocketOpener; drop(): void }]> = [
  [
    'on a MessagePort',
    (accept) => {
      const { port1, port2 } = new MessageChannel();
      const server = portEnd(port1, noRequests, undefined, accept);
      const client = portEnd(port2, noRequests);
      return { open: client.open, drop: () => server.close() };
    },
  ],
  ['in one thread', (accept) => ({ open: directSockets(accept ?? (() => ({ frame() {}, closed() {} }))), drop() {} })],
];

describe.each(openers)('link sockets %s', (_name, make) => {
  it('carries frames both ways in order, and a close from either end reaches the other', async () => {
    const server = recordingAcceptor();
    const link = make(server.accept);
    const heard: string[] = [];
    let clientClosed = 0;
    const a = await link.open('ws://127.0.0.1:9/didcomm', { frame: (d) => void heard.push(d), closed: () => void clientClosed++ });
    expect(a.open).toBe(true);
    for (const n of [1, 2, 3]) await a.send(`m${n}`);
    await until(() => server.got.length === 3);
    expect(server.got).toEqual(['ws://127.0.0.1:9/didcomm m1', 'ws://127.0.0.1:9/didcomm m2', 'ws://127.0.0.1:9/didcomm m3']);
    await server.sockets[0]!.send('push 1');
    await server.sockets[0]!.send('push 2');
    await until(() => heard.length === 2);
    expect(heard).toEqual(['push 1', 'push 2']);

    // The accepting end closes: the opener hears it once, and its sends fail from then on.
    server.sockets[0]!.close();
    expect(server.closed).toEqual(['ws://127.0.0.1:9/didcomm']);
    await until(() => clientClosed === 1);
    expect(a.open).toBe(false);
    await expect(a.send('late')).rejects.toMatchObject({ code: 'transport_unreachable' });

    // The opening end closes a second socket: the acceptor hears it.
    const b = await link.open('ws://127.0.0.1:9/other', { frame() {}, closed() {} });
    b.close();
    await until(() => server.closed.length === 2);
    expect(server.closed[1]).toBe('ws://127.0.0.1:9/other');
    expect(clientClosed).toBe(1);
  });

  if (_name === 'on a MessagePort') {
    it('is refused by an end that takes no sockets, and closes with the link', async () => {
      const refusing = make(undefined);
      await expect(refusing.open('ws://127.0.0.1:9/didcomm', { frame() {}, closed() {} })).rejects.toMatchObject({ code: 'transport_unreachable' });

      const server = recordingAcceptor();
      const link = make(server.accept);
      let closed = 0;
      const s = await link.open('ws://127.0.0.1:9/didcomm', { frame() {}, closed: () => void closed++ });
      link.drop();
      await until(() => closed === 1 && server.closed.length === 1);
      expect(s.open).toBe(false);
      await expect(link.open('ws://127.0.0.1:9/didcomm', { frame() {}, closed() {} })).rejects.toMatchObject({ code: 'transport_unreachable' });
    });
  }
});

describe('the wallet\'s WebSocket client over a link', () => {
  it('reaches the linked origin on link sockets (pushes, replies, close heard as a socket\'s end) and any other on a real WebSocket', async () => {
    const server = recordingAcceptor();
    const inbound: string[] = [];
    const closes: string[] = [];
    const ws = linkedWebSocket(directSockets(server.accept), 'http://127.0.0.1:9')({
      onInbound: async (packed, info) => {
        inbound.push(`${info.transport} ${packed}`);
        await info.reply?.(`re: ${packed}`);
      },
      onClose: (endpoint) => void closes.push(endpoint),
    });
    const url = 'ws://127.0.0.1:9/didcomm';
    await ws.connect(url);
    expect(ws.isOpen(url)).toBe(true);
    await server.sockets[0]!.send('pushed');
    await until(() => server.got.length === 1);
    expect(inbound).toEqual(['link pushed']);
    expect(server.got).toEqual([`${url} re: pushed`]);

    // The mediator's end closes: the wallet hears it as its socket's end; the next send opens another.
    server.sockets[0]!.close();
    await until(() => closes.length === 1);
    expect(closes).toEqual([url]);
    expect(ws.isOpen(url)).toBe(false);
    const plain = JSON.stringify({ id: '1', type: 'https://didcomm.org/trust-ping/2.0/ping', body: {} });
    await ws.send(url, plain);
    await until(() => server.got.length === 2);
    expect(server.sockets).toHaveLength(2);

    // Another port is not the linked server: a real WebSocket, refused where nothing listens.
    await expect(ws.connect('ws://127.0.0.1:1/didcomm')).rejects.toMatchObject({ code: 'transport_unreachable' });
    await ws.close();
    await until(() => server.closed.length === 2);
  });
});

describe('link socket requests', () => {
  it('resolves with the answer on an open link socket, and fails at once with transport_unreachable when the server end closes first', async () => {
    const server = recordingAcceptor();
    const ws = linkedWebSocket(directSockets(server.accept), 'http://127.0.0.1:9')({ onInbound: async () => {} });
    const url = 'ws://127.0.0.1:9/didcomm';
    const plain = JSON.stringify({ id: '1', type: 'https://didcomm.org/trust-ping/2.0/ping', body: {} });
    expect(await ws.request(url, plain, Promise.resolve('answered'))).toBe('answered');
    const pending = ws.request(url, plain, new Promise(() => {}));
    await until(() => server.got.length === 2);
    server.sockets[0]!.close();
    await expect(pending).rejects.toMatchObject({ code: 'transport_unreachable', details: { endpoint: url } });
    await ws.close();
  });
});

describe('link socket requests, answered just before the close', () => {
  it('resolves with the answer that came in the last frame before the server end closed', async () => {
    const answers: ((p: string) => void)[] = [];
    const answer = new Promise<string>((r) => answers.push(r));
    const accept: SocketAcceptor = (socket) => ({
      frame: (d) => {
        void socket.send(d).then(() => socket.close());
      },
      closed: () => {},
    });
    // Handling an arrival takes time (a router unpacks it): the close comes in before it ends.
    const ws = linkedWebSocket(directSockets(accept), 'http://127.0.0.1:9')({
      onInbound: async (p) => {
        await new Promise((r) => setTimeout(r, 30));
        answers[0]!(p);
      },
    });
    const plain = JSON.stringify({ id: '2', type: 'https://didcomm.org/trust-ping/2.0/ping', body: {} });
    expect(await ws.request('ws://127.0.0.1:9/didcomm', plain, answer)).toBe(plain);
    await ws.close();
  });
});

describe('a wallet live on a link socket to idsync\'s mediator', () => {
  let mediator: RunningMediator | undefined;
  const stores: Store[] = [];
  const wallets: Wallet[] = [];
  afterEach(async () => {
    for (const w of wallets.splice(0)) await w.close();
    await mediator?.close();
    mediator = undefined;
    for (const s of stores.splice(0)) await s.close();
  });

  it.each(openers)('collects live %s: a forwarded message is pushed over the link, no WebSocket is opened', async (_name, make) => {
    const medStore = await openStore();
    stores.push(medStore);
    const m = (mediator = await startMediator({ store: medStore }));
    const transports: string[] = [];
    m.agent.events.on('inbound', (e: { transport: string }) => transports.push(e.transport));
    const link = make((socket) => m.attach(socket));

    const aStore = await openStore();
    stores.push(aStore);
    const a = createWallet({ store: aStore, mediator: m.invitationUrl, webSocket: linkedWebSocket(link.open, m.url) });
    wallets.push(a);
    await a.init();
    expect(a.collecting).toBe('live');
    // Live mode was asked for on the link, and nothing came to the mediator's WebSocket endpoint.
    expect(transports).toContain('link');
    expect(m.ws.sockets.size).toBe(0);
    expect(m.agent.mediator.live.has(a.did)).toBe(true);

    // Another wallet, on its own HTTP endpoint, pings the mediated one: the ping goes to the
    // mediator in a forward and reaches the wallet live; its answer comes back.
    const bStore = await openStore();
    stores.push(bStore);
    const b = createWallet({ store: bStore });
    wallets.push(b);
    await b.listen({ http: { host: '127.0.0.1', port: 0 } });
    const queued: string[] = [];
    m.agent.mediator.events.on('forward-queued', (e: { to: string }) => queued.push(e.to));
    await b.ping(a.did, { timeoutMs: 10_000 });
    expect(queued).toEqual([a.shortDid]);
    // Pushed live in a delivery (wallet/pickup.ts logs what a delivery carries as 'pickup').
    const inbound = (await a.messages({ direction: 'in' })).map((r) => `${r.type.split('/').slice(-2).join('/')} ${r.transport}`);
    expect(inbound).toEqual(expect.arrayContaining(['3.0/delivery ws-live', '2.0/ping pickup']));
    expect(m.ws.sockets.size).toBe(0);

    // Not a DIDComm message at all: the mediator closes that connection (its WebSocket endpoint
    // answers 1007), and nothing else is hurt.
    let junkClosed = false;
    const junk = await link.open(`${m.url.replace('http', 'ws')}/didcomm`, { frame() {}, closed: () => void (junkClosed = true) });
    await junk.send('not json at all {{{');
    await until(() => junkClosed);
    expect(m.agent.mediator.live.has(a.did)).toBe(true);

    // The wallet closes: its link socket with it, and "a new inbound connection starts with Live Mode disabled".
    const did = a.did;
    await a.close();
    wallets.splice(wallets.indexOf(a), 1);
    await until(() => !m.agent.mediator.live.has(did));
  });
});
