// What a wallet is made from: its store and, optionally, clock, ids, resolver, transports,
// endpoint, policy and limits (startWallet, wallet.ts).
import type { Resolvable } from 'did-resolver';
import type { Clock, IdGenerator } from '../clock.js';
import type { DocumentResolver } from '../did/types.js';
import type { EnvelopeEngine, InboundHandler, Transport } from '../didcomm/types.js';
import type { WsTransport, WsTransportOptions } from '../didcomm/transport/ws.js';
import type { AddressPolicy } from '../net/address-policy.js';
import type { HostResolver } from '../net/connect-guard.js';
import type { Store } from '../store/store.js';
import type { WalletLogger } from './context.js';
import type { StatusListFetchOptions } from './credential-check.js';
import type { WalletPolicy } from './policies.js';
import type { CrashPoint } from '../crash-point.js';
import type { StepOptions } from '../router/steps/engine.js';
import type { MediationOptions } from './mediation.js';
import type { WalletDidMethod } from './identity.js';

/** Retries of the wallet's protocol steps (router/steps, router/retry; docs/protocols.md "Durable steps"). */
export type StepRetryOptions = Pick<StepOptions, 'baseDelayMs' | 'maxDelayMs' | 'acceptedDelayMs' | 'unreachableDelayMs' | 'deadlineMs' | 'random'>;

export interface WalletOptions {
  store: Store;
  clock?: Clock;
  ids?: IdGenerator;
  /** Resolves every DID but did:ion (ion always resolves offline, short forms via the store). Default: did:web over HTTP(S). */
  resolver?: Resolvable | DocumentResolver;
  /**
   * For DIDComm endpoints over HTTP(S), did:web documents, `_oobid` short URLs and status lists,
   * used as it is. Default: a fetch whose every connection is checked under `outboundAddresses`
   * after name resolution (src/net/guarded-fetch.ts).
   */
  fetch?: typeof fetch;
  /**
   * Aborts the wallet's HTTP(S) requests and WebSocket connects and writes, those under way and
   * those to come, and the waits for the mediator's answers while the wallet starts (a grant that
   * is to come after a 202, or over a socket): what waits on one fails at once. A command stopped
   * by Ctrl-C while it waits for a mediator (`wallet create`) gets its failure, and with it its
   * clean-up, at once.
   */
  signal?: AbortSignal;
  /**
   * Which addresses the wallet connects to on others' say-so (peers' endpoints, did:web hosts,
   * status list and short invitation URLs; WebSocket endpoints too). Default: loopback allowed
   * (the local service twin), private ranges refused; link-local and metadata addresses always.
   */
  outboundAddresses?: AddressPolicy;
  /** Resolves host names for those connections (default the system resolver; tests inject one). */
  resolveHost?: HostResolver;
  /** Outbound transports besides HTTP(S) and WebSocket; a function gets the wallet's inbound handler (for live replies). */
  transports?: Array<Transport | ((inbound: InboundHandler) => Transport)>;
  /**
   * Makes the wallet's WebSocket client (sends to ws/wss endpoints, live mode) from the options the
   * wallet gives it. Default: a real WebSocket (didcomm/transport/ws.ts). The fleet gives one that
   * reaches the mediator started for the run over its link (fleet/link-socket.ts).
   */
  webSocket?: (options: WsTransportOptions) => WsTransport;
  /** Wraps each outbound transport (given and built-in), e.g. with testing/faulty-transport.ts. */
  wrapTransport?: (transport: Transport, inbound: InboundHandler) => Transport;
  /** The inbound URL to publish in the DID created by init(). Without it (and without listen()), the DID has no service. */
  endpoint?: string;
  /**
   * The method of the DID init() creates: 'ion' (default: a did:ion long form, as the service's
   * users hold) or 'peer' (a did:peer:2, as mobile wallets behind mediators use). A wallet that
   * already has its DID keeps it.
   */
  didMethod?: WalletDidMethod;
  /**
   * A mediator to sit behind: an out-of-band invitation to mediate (URL or JSON) or the mediator's
   * DID. A wallet created with it names the mediator in its DID's service, asks for mediation and
   * registers its DID, and collects over Message Pickup 3.0 while it runs (mediation.ts). The
   * grant is kept in the store: a restarted wallet keeps it, with or without this option.
   */
  mediator?: string;
  /** Coordinate-mediation version, the DID's service form, live or polling collection. */
  mediation?: MediationOptions;
  /** 'auto' (default) answers offers at once; 'manual' holds them in pending(). See policies.ts. */
  policy?: WalletPolicy;
  /** Endpoint to use for a peer DID instead of its DID document's (in-process tests). */
  routes?: Record<string, string>;
  /** Fetches status list credentials not attached to the issue message (default: HTTP(S) GET, see statusListLimits). */
  statusListFetch?: (url: string) => Promise<unknown>;
  /** Limits of the default status list fetch: timeout (10 s), size (1 MiB), plain-http hosts (localhost, 127.0.0.1). */
  statusListLimits?: StatusListFetchOptions;
  logger?: WalletLogger;
  /** Envelope engine: 'native' (default) or 'didcomm-node'. */
  envelopeEngine?: EnvelopeEngine;
  /**
   * Retries of unanswered protocol messages: first after 2 s, doubling to 60 s with jitter, until
   * 10 minutes after the first send; then the thread ends as `abandoned` (error `unanswered`).
   */
  retry?: StepRetryOptions;
  /** Crash tests: called at named steps (crash-point.ts); default IDSYNC_TEST_CRASH_AT. */
  crashPoint?: CrashPoint;
}
