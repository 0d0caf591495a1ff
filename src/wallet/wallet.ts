// The holder wallet agent: one did:ion, a LevelDB store, a DIDComm router with the holder's
// protocols (Data Pipe, Present Proof, Issue Credential, Message Pickup, trust-ping,
// discover-features, report-problem), inbound endpoints or Message Pickup, and an event API.
//
//   const wallet = createWallet({ store });            // nothing happens yet
//   await wallet.listen({ http: { port: 0 } });         // optional; creates the DID with this URL
//   await wallet.init();                               // else: loads or creates the DID (no service)
//   const accepted = await wallet.acceptInvitation(url);
//   if (accepted.kind === 'data-pipe') accepted.connection;   // state 'established'
//   else await accepted.done;                          // 'issuance': the verified credential
//   const credential = await wallet.waitForCredential();   // e.g. after a datapoints update
//   await wallet.pickup(); / await wallet.goLive();    // without an inbound endpoint
//
// This file is the wallet's public entry point: the types callers need are re-exported below.
import { sameDid } from '../didcomm/message.js';
import type { ReceiveInfo, RouterResult } from '../router/router.js';
import type { InboundHandler } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import type { Invitation } from '../protocols/out-of-band.js';
import type { ConnectionQuery, ConnectionRecord } from '../store/connections.js';
import type { LoggedMessage, MessageQuery } from '../store/messages.js';
import { refreshStatuses, type StatusRefresh } from './credential-status.js';
import type { CredentialQuery, RejectedCredential, StoredCredential } from './credential-store.js';
import { WalletEvents, waitForEvent, type WaitOptions, type WalletEventMap } from './events.js';
import { WALLET_DID_METHODS, type WalletIdentity } from './identity.js';
import type { Listening, ListenOptions } from './inbound.js';
import type { Acceptance, AcceptOptions } from './invitations.js';
import type { PendingItem } from './policies.js';
import type { PickupOptions, PickupResult } from './pickup.js';
import { startWallet, type Runtime } from './runtime.js';
import type { WalletOptions } from './options.js';
import type { WalletThread } from './threads.js';
import type { RetryStatus } from './retry-status.js';
import type { MediationRecord } from './mediation.js';
import type { MediatorCollector } from './mediator-collect.js';
import { stopWaits } from '../wait.js';

export type { WalletOptions };


// Listeners (HTTP, WebSocket) load on the first listen(), once per process.
let inboundModule: Promise<typeof import('./inbound.js')> | undefined;

export class Wallet extends WalletEvents {
  private runtime?: Runtime;
  private starting?: Promise<Runtime>;
  private listening?: Listening;
  // Kept after close(): who the wallet was stays readable (a test compares it with the wallet
  // that replaced it after a restart) instead of asking for an init() that already happened.
  private closedIdentity?: WalletIdentity;
  // Resolves with the router's result: the HTTP endpoint answers 503 + Retry-After when the
  // message failed for a transient reason and its id was left free for the sender's retry.
  private readonly inbound: InboundHandler = (packed, info) => this.receive(packed, info);

  constructor(readonly options: WalletOptions) {
    super();
  }

  private get rt(): Runtime {
    if (!this.runtime) throw new IdsyncError('wallet_not_initialized', 'call wallet.init() (or listen()) first');
    return this.runtime;
  }

  /** True once init() completed. */
  get initialized(): boolean {
    return this.runtime !== undefined;
  }
  /** The long-form did:ion. */
  get did(): string {
    return this.identity.did;
  }
  get shortDid(): string {
    return this.identity.shortDid;
  }
  get identity(): WalletIdentity {
    return this.runtime?.ctx.identity ?? this.closedIdentity ?? this.rt.ctx.identity;
  }
  /** The mediator the wallet sits behind and its grant (state, version), when it has one. */
  get mediation(): MediationRecord | undefined {
    return this.runtime?.mediation();
  }
  /** How the running wallet collects from its mediator: 'live', 'polling'; undefined without one. */
  get collecting(): MediatorCollector['mode'] | undefined {
    return this.runtime?.collector()?.mode;
  }
  /** The inbound endpoints while listening. */
  get endpoints(): Omit<Listening, 'close'> | undefined {
    if (!this.listening) return undefined;
    const { close: _c, ...urls } = this.listening;
    return urls;
  }

  /**
   * Loads the wallet DID from the store, or creates it once: with a DIDCommMessaging service for
   * `options.endpoint`, else for the listener started by listen(), else without a service.
   */
  async init(): Promise<WalletIdentity> {
    if (this.runtime) return this.runtime.ctx.identity;
    this.starting ??= startWallet(this.options, this, {
      endpoint: this.options.endpoint ?? this.listening?.url,
      isListening: () => this.listening !== undefined,
    });
    try {
      this.runtime = await this.starting;
    } finally {
      this.starting = undefined;
    }
    const published = this.runtime.ctx.identity.endpoint;
    if (this.listening && published && !this.runtime.mediation() && !Object.values(this.endpoints ?? {}).includes(published)) {
      this.runtime.ctx.logger('warn', 'the DID names another endpoint than the one listening', { published, listening: this.listening.url });
    }
    return this.runtime.ctx.identity;
  }

  /**
   * Starts inbound endpoints, then init() (a DID created now names the first listener's URL,
   * so `port: 0` works). A DID created earlier keeps the endpoint it names.
   */
  async listen(options: ListenOptions = { http: true }): Promise<Omit<Listening, 'close'>> {
    if (this.listening) throw new IdsyncError('invalid_state', 'the wallet is already listening');
    const { startListening } = await (inboundModule ??= import('./inbound.js'));
    this.listening = await startListening(this.inbound, options);
    try {
      await this.init();
    } catch (err) {
      await this.listening.close();
      this.listening = undefined;
      throw err;
    }
    return this.endpoints!;
  }

  /** Handles one packed message from any transport (what listeners and in-process transports call). */
  async receive(packed: string, info: ReceiveInfo & { bind?: (key: string) => void } = {}): Promise<RouterResult> {
    const rt = this.runtime ?? (await this.init(), this.rt);
    return rt.receive(packed, info);
  }

  /**
   * The user's consent to an invitation URL (`_oob` or `_oobid`) or invitation: goal
   * `idsync.data-pipe` resolves once the Data Pipe is established; `streamlined-vc` resolves once
   * the proposal is sent, with `done` for the credential.
   */
  async acceptInvitation(input: string | Invitation, options: AcceptOptions = {}): Promise<Acceptance> {
    await this.init();
    return this.rt.acceptInvitation(input, options);
  }

  /** Offers, proof requests and invitations waiting for approve/decline. */
  async pending(): Promise<PendingItem[]> {
    await this.init();
    return this.rt.ctx.pending.list();
  }
  /**
   * Approves a pending item. An invitation resolves with its acceptance (as acceptInvitation: the
   * Data Pipe established, or the issuance started with `done`); offers and proof requests with
   * undefined once answered.
   */
  async approve(id: string, options?: AcceptOptions): Promise<Acceptance | undefined> {
    await this.init();
    return this.rt.approve(id, options);
  }
  /** Offers: report-problem e.p.req.offer-declined; proof requests: e.p.req.declined. */
  async decline(id: string, reason?: string): Promise<void> {
    await this.init();
    return this.rt.decline(id, reason);
  }

  /** Accepted credentials (status valid, replaced, revoked or suspended), oldest first. */
  async credentials(query?: CredentialQuery): Promise<StoredCredential[]> {
    await this.init();
    return this.rt.ctx.credentials.list(query);
  }
  /**
   * Re-reads the status lists of stored credentials (all, or `ids`) and marks them 'revoked',
   * 'suspended' or 'valid' again; fires 'credential-status-changed' for each change.
   */
  async refreshCredentialStatus(ids?: string[]): Promise<StatusRefresh[]> {
    await this.init();
    return refreshStatuses(this.rt.ctx, ids);
  }
  /** Credentials refused by a check, kept for inspection (never valid). */
  async rejectedCredentials(): Promise<RejectedCredential[]> {
    await this.init();
    return this.rt.ctx.credentials.listRejected();
  }
  async connections(query?: ConnectionQuery): Promise<ConnectionRecord[]> {
    await this.init();
    return this.rt.ctx.connections.list(query);
  }
  /** Every message in and out (direction, type, thread, envelope mode, conformance results). */
  async messages(query?: MessageQuery): Promise<LoggedMessage[]> {
    await this.init();
    return this.rt.log.list(query);
  }
  async threads(query?: { protocol?: string; state?: string }): Promise<WalletThread[]> {
    await this.init();
    return this.rt.ctx.threads.list(query);
  }

  /**
   * Message Pickup 3.0 over HTTP from `peer` (default: the wallet's mediator, else the one
   * established Data Pipe's service; a URL is taken as the endpoint to use). Resolves when the service's queue is empty.
   */
  async pickup(target?: string, options?: PickupOptions): Promise<PickupResult> {
    await this.init();
    return this.rt.pickup(target, options);
  }
  /**
   * Every peer that may hold messages for this wallet: the other side of each connection (any
   * state), of each open protocol thread, and of each pending item. A restarted wallet collects
   * from all of them (`wallet serve`), not only from peers it has a Data Pipe with.
   */
  async peers(): Promise<string[]> {
    await this.init();
    const ctx = this.rt.ctx;
    const out = new Map<string, string>();
    const add = (did: unknown) => {
      if (typeof did !== 'string' || !did.startsWith('did:') || this.rt.ctx.identity.did === did || sameDid(did, ctx.identity.did)) return;
      const key = did.split('#')[0];
      if (![...out.values()].some((d) => sameDid(d, key))) out.set(key, key);
    };
    for (const c of await ctx.connections.list()) if (sameDid(c.myDid, ctx.identity.did)) add(c.theirDid);
    for (const t of await ctx.threads.list()) if (t.state !== 'done' && t.state !== 'abandoned' && t.state !== 'closed') add(t.peer);
    for (const p of await ctx.pending.list()) add(p.from);
    return [...out.values()];
  }

  /** Opens a WebSocket to the peer (default: its ws endpoint) and asks for live delivery. */
  async goLive(target?: string): Promise<void> {
    await this.init();
    return this.rt.goLive(target);
  }
  /** Trust Ping 2.0: resolves when `peer` answered. */
  async ping(peer?: string, options: WaitOptions = {}): Promise<void> {
    await this.init();
    await this.rt.ping(peer, options.timeoutMs);
  }

  /**
   * Sends again, now, every unanswered protocol message whose retry time (injected clock) has
   * come; a timer does this too (docs/protocols.md "Durable steps"). Resolves with how many went out.
   */
  async retryDue(): Promise<number> {
    await this.init();
    return this.rt.ctx.router.steps()!.runDue();
  }

  /**
   * What the retry scheduler holds now: steps waiting for their time, due, being sent again, and
   * given up since the wallet started (router/retry; `idsync wallet status`).
   */
  async retries(): Promise<RetryStatus> {
    await this.init();
    return this.rt.ctx.router.steps()!.scheduler.counts();
  }

  /** Resolves with the next `event` payload passing `predicate` (guard timeout 10 s). */
  waitFor<K extends keyof WalletEventMap>(event: K, predicate?: (data: WalletEventMap[K]) => boolean, options?: WaitOptions): Promise<WalletEventMap[K]> {
    return waitForEvent(this, event, predicate, options);
  }
  /**
   * The next credential stored (matching `thid` / `predicate`). With `thid`, a credential already
   * stored on that thread resolves at once.
   */
  async waitForCredential(o: { thid?: string; predicate?: (c: StoredCredential) => boolean } & WaitOptions = {}): Promise<StoredCredential> {
    const matches = (c: StoredCredential) => (o.thid === undefined || c.thid === o.thid) && (o.predicate?.(c) ?? true);
    const next = this.waitFor('credential-received', (e) => matches(e.credential), o);
    if (o.thid !== undefined) {
      const stored = (await this.credentials({ thid: o.thid })).find(matches);
      if (stored) {
        next.catch(() => undefined);
        return stored;
      }
    }
    return (await next).credential;
  }
  /** The next established connection (with `theirDid`, or any); with `theirDid`, one already established resolves at once. */
  async waitForConnection(o: { theirDid?: string } & WaitOptions = {}): Promise<ConnectionRecord> {
    const matches = (c: ConnectionRecord) => c.state === 'established' && (o.theirDid === undefined || sameDid(c.theirDid, o.theirDid));
    const next = this.waitFor('connection-established', (e) => matches(e.connection), o);
    const existing = o.theirDid !== undefined ? (await this.connections({ state: 'established' })).find(matches) : undefined;
    if (existing) {
      next.catch(() => undefined);
      return existing;
    }
    return (await next).connection;
  }
  /** The next pending item of `kind`; one already pending resolves at once. */
  async waitForPending(o: { kind?: PendingItem['kind'] } & WaitOptions = {}): Promise<PendingItem> {
    const matches = (i: PendingItem) => o.kind === undefined || i.kind === o.kind;
    const events = ['offer-pending', 'proof-request-pending', 'invitation-received'] as const;
    const stop = new AbortController();
    const waits = events.map((e) => this.waitFor(e, (d) => matches(d.item), { ...o, signal: stop.signal }).then((d) => d.item));
    waits.forEach((w) => w.catch(() => undefined));
    const existing = (await this.pending()).find(matches);
    if (existing) {
      stopWaits(stop);
      return existing;
    }
    return Promise.race(waits).finally(() => stopWaits(stop));
  }
  /** The next problem report received (about thread `pthid`, or any). */
  async waitForProblem(o: { pthid?: string } & WaitOptions = {}): Promise<WalletEventMap['problem-received']> {
    return this.waitFor('problem-received', (e) => o.pthid === undefined || e.problem.pthid === o.pthid, o);
  }

  /** Stops listeners, live sockets and transports. The store stays open (its owner closes it). */
  async close(): Promise<void> {
    await this.listening?.close();
    this.listening = undefined;
    if (this.runtime) this.closedIdentity = this.runtime.ctx.identity;
    await this.runtime?.close();
    this.runtime = undefined;
  }
}

export function createWallet(options: WalletOptions): Wallet {
  if (!options?.store) throw new IdsyncError('invalid_argument', 'createWallet needs a store');
  if (options.didMethod !== undefined && !WALLET_DID_METHODS.includes(options.didMethod)) {
    throw new IdsyncError('invalid_argument', `didMethod must be ${WALLET_DID_METHODS.map((m) => `'${m}'`).join(' or ')}: ${String(options.didMethod).slice(0, 40)}`);
  }
  return new Wallet(options);
}

export type { WalletLogger } from './context.js';
export type { StatusRefresh } from './credential-status.js';
export type { CredentialQuery, CredentialStatus, RejectedCredential, StoredCredential } from './credential-store.js';
export type { DataPipeMeta } from './data-pipe.js';
export type { WaitOptions, WalletEventMap, WalletEventName } from './events.js';
export type { WalletDidMethod, WalletIdentity } from './identity.js';
export type { Listening, ListenOptions } from './inbound.js';
export type { Acceptance, AcceptOptions } from './invitations.js';
export type { Decision, PendingItem, PendingKind, WalletPolicy } from './policies.js';
export type { PickupOptions, PickupResult } from './pickup.js';
export type { WalletThread } from './threads.js';
export type { RetryStatus } from './retry-status.js';
export type { MediationOptions, MediationRecord, MediatorEndpointForm } from './mediation.js';
