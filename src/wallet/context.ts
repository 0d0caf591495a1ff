// What the wallet's protocol handlers share: its identity, stores, router and policy. Built once
// by wallet.ts at init(); handler files take it instead of importing the Wallet class.
import type { Clock, IdGenerator } from '../clock.js';
import { sameDid } from '../didcomm/message.js';
import type { MessageHandler, ProtocolModule, Router } from '../router/router.js';
import type { DIDResolutionResult, DocumentResolver } from '../did/types.js';
import type { Connections } from '../store/connections.js';
import type { StoredSecrets } from '../store/secrets.js';
import type { Store } from '../store/store.js';
import type { CredentialStore } from './credential-store.js';
import type { WalletEvents } from './events.js';
import type { WalletIdentity } from './identity.js';
import type { PendingStore, ResolvedPolicy } from './policies.js';
import type { ThreadStore } from './threads.js';

export type WalletLogger = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;

export interface WalletContext {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  resolve: DocumentResolver;
  /** The whole resolution result (why a DID did not resolve: did/resolver.ts resolutionError). */
  resolution(did: string): Promise<DIDResolutionResult>;
  identity: WalletIdentity;
  secrets: StoredSecrets;
  router: Router;
  threads: ThreadStore;
  credentials: CredentialStore;
  pending: PendingStore;
  connections: Connections;
  policy: ResolvedPolicy;
  events: WalletEvents;
  logger: WalletLogger;
  /** Fetches a status list credential while verifying a received credential (default: HTTP GET). */
  statusListFetch?: (url: string) => Promise<unknown>;
  /** True when the wallet has no inbound endpoint: outgoing messages ask for return_route 'all'. */
  needsReturnRoute(): boolean;
}


/**
 * The DID the wallet writes as `from` to `peer`. docs/protocols.md "Data Pipe 1.0" rules: the
 * data-pipe `request` MUST come from the long form (the service cannot resolve a short form it
 * has never seen); after `established` both sides know the long form, so later messages to that
 * peer use the short form (and, through the envelope, short-form key ids for authcrypt), which
 * keeps every message ~2 KB smaller. Peers without an established Data Pipe get the long form.
 */
export async function fromFor(ctx: Pick<WalletContext, 'connections' | 'identity'>, peer: string | undefined): Promise<string> {
  if (!peer) return ctx.identity.did;
  const connection = (await ctx.connections.listByTheirDid(peer)).find((c) => c.state === 'established' && sameDid(c.myDid, ctx.identity.did));
  return connection ? ctx.identity.shortDid : ctx.identity.did;
}

/** Headers every outgoing draft to `peer` gets: `from`, and return_route 'all' for a wallet without an endpoint. */
export interface OutgoingHeaders {
  from: string;
  return_route?: 'all';
}

export async function outgoingHeaders(ctx: WalletContext, peer: string | undefined): Promise<OutgoingHeaders> {
  const headers: OutgoingHeaders = { from: await fromFor(ctx, peer) };
  // DIDComm v2 §Routing "return_route": without an endpoint, replies can only come back on our
  // own connection (HTTP response or WebSocket) or through Message Pickup.
  if (ctx.needsReturnRoute()) headers.return_route = 'all';
  return headers;
}

/**
 * A protocol module whose replies carry the wallet's `from` for the peer (short form after
 * `established`, see fromFor): for modules of other layers (trust-ping, discover-features),
 * whose replies would otherwise go out from the router's first DID, the long form.
 */
export function withWalletFrom(ctx: () => WalletContext, module: ProtocolModule): ProtocolModule {
  const handlers: Record<string, MessageHandler> = {};
  for (const [name, handler] of Object.entries(module.handlers)) {
    handlers[name] = (h) =>
      handler({
        ...h,
        reply: async (draft, o) => h.reply({ ...draft, from: (draft.from as string | undefined) ?? (await fromFor(ctx(), h.sender ?? h.message.from)) }, o),
      });
  }
  return { ...module, handlers };
}
