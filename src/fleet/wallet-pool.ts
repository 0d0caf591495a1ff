// The simulated wallets of one thread: each a real holder wallet (its own did:ion, keys, store,
// router and protocols), made cheap to keep by what they share: one HTTP server whose paths are
// their inbound endpoints (/w/<n>), one fetch with one connection pool, one resolver and its
// cache for the service's did:web, and a light store each (plain Maps, store/light-store.ts)
// instead of a LevelDB. A wallet made ahead of its flow (prepare) is kept as a page, its store's
// content only (wallet-pages.ts), and made live again when asked for: an idle holder costs its
// page, not a running agent. With a link to an embedded service (link.ts), requests to the
// service and its messages to the wallets skip the sockets; the server stays for the rest.
// Behind a mediator (`mediator`), the wallets have no endpoint: the service forwards to the
// mediator over HTTP and each wallet collects live on its own WebSocket to it, confirming what
// was pushed to it at most every FLEET_ACK_DELAY_MS and when it closes (see below). With a link
// to a mediator started for the run (`mediatorLink`), the wallets' HTTP requests to it (mediation,
// keylist updates) skip the sockets too, and so does live mode: a link socket for each wallet
// stands in for its WebSocket (link-socket.ts).
import { createResolver } from '../did/resolver.js';
import { connectionReset, handleHttpInbound, problemResponse, startHttpEndpoint, type HttpEndpoint, type HttpInboundHandler } from '../didcomm/transport/http.js';
import type { EnvelopeEngine } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import { connectGuard } from '../net/connect-guard.js';
import { guardedFetch, type GuardedFetch } from '../net/guarded-fetch.js';
import { openLightStore } from '../store/light-store.js';
import { DEFAULT_WALLET_ADDRESSES } from '../wallet/addresses.js';
import { createWallet, type Wallet } from '../wallet/wallet.js';
import { byOrigin, linkFetch, type LinkHandler, type LinkResponse } from './link.js';
import { linkedWebSocket, type SocketOpener } from './link-socket.js';
import { pageOf, pageStore, recordingStore, storeOfPage, type RecordingStore } from './wallet-pages.js';

/**
 * How long a mediated fleet wallet's confirmation of live deliveries waits for more to confirm
 * with it (the wallet's `mediation.ackDelayMs`). A fleet wallet lives for one flow and closes,
 * and close() confirms whatever is waiting, so a flow's pushed messages are confirmed by one
 * messages-received (§Messages Received: "message_id_list is a list of ids of each message
 * received") and answered by one status, where confirming each as it came cost a
 * messages-received and a status per message. Nothing is lost by the wait: each message is
 * handled and stored before it is listed, and "Delivered messages MUST NOT be deleted until
 * delivery is acknowledged by a messages-received message". Longer than a flow takes on a loaded
 * machine (200 wallets at load 9 took 15 s a flow, and confirmed on the way with 10 s). Measured
 * (200 wallets, the wallets' thread CPU in the flows' window): 16.8 to 18.0 ms per flow with 0,
 * 13.4 to 14.8 with 10 s.
 */
export const FLEET_ACK_DELAY_MS = 60_000;

export interface WalletPoolOptions {
  envelopeEngine?: EnvelopeEngine;
  /** Address of the shared inbound server (default 127.0.0.1). */
  host?: string;
  /** The service's URL: plain http to it is allowed for status lists and did:web (a twin on another host). */
  serviceUrl?: string;
  /** Private addresses allowed (a service on a LAN). */
  allowPrivate?: boolean;
  /** Requests to the service (serviceUrl's origin) go to this link instead of the network. */
  serviceLink?: LinkHandler;
  /** Characters of idle wallets' pages kept in memory before they go to disk (default PAGE_MEMORY_BUDGET). */
  pageMemoryChars?: number;
  /**
   * Wallets behind this mediator (its invitation URL or DID): no endpoint of their own, their DIDs
   * name the mediator, they collect over Message Pickup 3.0 live on its WebSocket.
   */
  mediator?: string;
  /**
   * Requests to the mediator started for the run (its URL's origin) go to this link instead of the
   * network; with `open`, so do the wallets' WebSockets to it (live mode on a link socket).
   */
  mediatorLink?: { url: string; call: LinkHandler; open?: SocketOpener };
}

export interface WalletPool {
  /** The wallet numbered `index`, live: made (DID created) on first ask, or read back from its page. */
  wallet(index: number): Promise<Wallet>;
  /** Makes wallet `index` (its DID and keys) and keeps it idle, as a page, until wallet(index). */
  prepare(index: number): Promise<void>;
  /** Forgets a wallet (its memory goes with it). */
  release(index: number): Promise<void>;
  /** Live wallets. */
  readonly size: number;
  /** Idle wallets kept as pages, in memory and on disk. */
  readonly idle: { inMemory: number; onDisk: number };
  /** The prefix of every wallet's endpoint URL (`<server>/w/`). */
  readonly endpointPrefix: string;
  /** Answers a request to a wallet's endpoint as the inbound server would (for a link). */
  deliver: LinkHandler;
  /** What the wallets fetch with (through the link to the service, if there is one). */
  readonly fetch: typeof fetch;
  close(): Promise<void>;
}

export async function startWalletPool(options: WalletPoolOptions = {}): Promise<WalletPool> {
  const wallets = new Map<number, Wallet>();
  const making = new Map<number, Promise<Wallet>>();
  const preparing = new Map<number, Promise<void>>();
  const pages = pageStore(options.pageMemoryChars === undefined ? {} : { memoryChars: options.pageMemoryChars });
  const guard = connectGuard({ ...DEFAULT_WALLET_ADDRESSES, ...(options.allowPrivate ? { allowPrivate: true } : {}) });
  const guarded: GuardedFetch = guardedFetch(guard);
  const toService = options.serviceLink && options.serviceUrl ? byOrigin(options.serviceUrl, linkFetch(options.serviceLink), guarded) : guarded;
  const fetch = options.mediatorLink ? byOrigin(options.mediatorLink.url, linkFetch(options.mediatorLink.call), toService) : toService;
  const webSocket = options.mediatorLink?.open ? linkedWebSocket(options.mediatorLink.open, options.mediatorLink.url) : undefined;
  const serviceHost = options.serviceUrl ? new URL(options.serviceUrl).hostname : undefined;
  const allowHttpHosts = ['localhost', '127.0.0.1', ...(serviceHost ? [serviceHost] : [])];
  // did:web of the service, resolved once for all the pool's wallets (did:ion resolves offline in
  // each). The cache keeps results; concurrent first resolutions share one request too, or a
  // fleet starting at once would fetch the service's did.json once per wallet.
  const cached = createResolver({ fetch, webAllowHttpHosts: allowHttpHosts });
  const inFlight = new Map<string, ReturnType<typeof cached.resolve>>();
  const resolver = {
    resolve(did: string) {
      let p = inFlight.get(did);
      if (!p) {
        p = cached.resolve(did).finally(() => inFlight.delete(did));
        inFlight.set(did, p);
      }
      return p;
    },
  };
  const handlerFor = (sub: string): HttpInboundHandler | undefined => {
    const w = /^\d+$/.test(sub) ? wallets.get(Number(sub)) : undefined;
    return w ? (packed, info) => w.receive(packed, info) : undefined;
  };
  const server: HttpEndpoint = await startHttpEndpoint({
    host: options.host ?? '127.0.0.1',
    port: 0,
    path: '/w',
    handler: async () => {
      throw new IdsyncError('not_found', 'messages go to /w/<wallet>');
    },
    handlerFor,
  });
  const endpointPrefix = `${server.url}/`;
  // What the server answers, without it (a POST to /w/<n>, as startHttpEndpoint routes it).
  const deliver: LinkHandler = async (req) => {
    const handler = req.url.startsWith(endpointPrefix) ? handlerFor(req.url.slice(endpointPrefix.length).replace(/[?#].*$/, '')) : undefined;
    const r = !handler
      ? problemResponse('not_found', 'messages go to /w/<wallet>')
      : req.method !== 'POST'
        ? problemResponse('method_not_allowed', 'messages are POSTed')
        : await handleHttpInbound({ body: req.body ?? '', contentType: req.headers['content-type'] ?? null }, handler);
    // A handler whose process died answers nothing: the link's caller sees a reset connection.
    if (r.abandon) throw connectionReset();
    const headers: Record<string, string> = { ...r.headers };
    if (r.body !== undefined) headers['content-type'] = r.contentType ?? 'application/octet-stream';
    return { status: r.status, headers, ...(r.body !== undefined ? { body: r.body } : {}) } satisfies LinkResponse;
  };

  /**
   * A live wallet on `store`: a new DID when the store is empty, else the one it holds. `collect`
   * false: behind a mediator, it registers with it but opens no live socket (a wallet made to be
   * kept idle has nothing to collect; its flow's wallet goes live).
   */
  const make = async (index: number, store: RecordingStore = recordingStore(openLightStore()), collect = true): Promise<Wallet> => {
    const w = createWallet({
      store,
      ...(options.mediator ? { mediator: options.mediator, mediation: { live: true, ackDelayMs: FLEET_ACK_DELAY_MS, collect } } : { endpoint: `${server.url}/${index}` }),
      fetch,
      ...(webSocket ? { webSocket } : {}),
      resolver,
      statusListLimits: { allowHttpHosts },
      // DIDCOMM invitations (issuance scenario) are accepted as they arrive; offers and proof
      // requests are answered at once (the default).
      policy: { invitations: 'auto' },
      ...(options.envelopeEngine ? { envelopeEngine: options.envelopeEngine } : {}),
    });
    wallets.set(index, w);
    try {
      await w.init();
    } catch (err) {
      wallets.delete(index);
      throw err;
    }
    return w;
  };
  /** Live again from its page, or made. */
  const open = async (index: number): Promise<Wallet> => {
    const page = await pages.take(index);
    return make(index, page === undefined ? undefined : await storeOfPage(page));
  };
  const once = (index: number, fn: () => Promise<Wallet>): Promise<Wallet> => {
    let p = making.get(index);
    if (!p) {
      p = fn().finally(() => making.delete(index));
      making.set(index, p);
    }
    return p;
  };

  return {
    async wallet(index) {
      await preparing.get(index);
      const w = wallets.get(index);
      if (w?.initialized) return w;
      return once(index, () => open(index));
    },
    async prepare(index) {
      if (wallets.has(index) || making.has(index) || preparing.has(index) || pages.has(index)) return;
      const paged = (async () => {
        const w = await make(index, undefined, false);
        // Closed, then its store's content kept: the store is quiet once the wallet is closed.
        wallets.delete(index);
        await w.close();
        await pages.put(index, await pageOf(w.options.store as RecordingStore));
      })().finally(() => preparing.delete(index));
      preparing.set(index, paged);
      return paged;
    },
    async release(index) {
      const w = wallets.get(index);
      wallets.delete(index);
      await w?.close();
    },
    get size() {
      return wallets.size;
    },
    get idle() {
      const { inMemory, onDisk } = pages.counts;
      return { inMemory, onDisk };
    },
    endpointPrefix,
    deliver,
    fetch,
    async close() {
      for (const w of wallets.values()) await w.close().catch(() => undefined);
      wallets.clear();
      await pages.close();
      await server.close();
      await guarded.close();
    },
  };
}
