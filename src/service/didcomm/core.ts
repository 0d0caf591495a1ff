// The shared state of the service's DIDComm agent: what every flow module (data pipe, sync,
// issuance, workflows, mediator) is handed. Plain data plus a few helpers; the agent builds it.
import { EventEmitter } from 'node:events';
import type { Router } from '../../router/router.js';
import type { EnvelopeContext, PlainMessage, Transport } from '../../didcomm/types.js';
import type { MessageDraft } from '../../didcomm/message.js';
import type { StoredDidRegistry } from '../../store/dids.js';
import type { MessageLogOptions } from '../../store/messages.js';
import type { ServiceDeps } from '../deps.js';
import type { ServiceEvent } from '../context.js';
import type { EndpointPolicy } from '../net/endpoint-policy.js';
import type { QueueOptions } from '../../mediator/queue.js';
import type { MediatorPolicy } from '../../mediator/policy.js';
import type { RedeliveryOptions } from './redelivery.js';
import type { StepOptions } from '../../router/steps/engine.js';
import type { CrashPoint } from '../../crash-point.js';
import type { BatchOp } from '../../store/store.js';

/** Store collections of the DIDComm side (names: src/store/store.ts rules). */

export interface AgentOptions {
  /** Outbound transports by URL scheme (default HTTP and WebSocket). */
  transports?: Transport[];
  /**
   * Wraps each outbound transport (given or default), e.g. with testing/faulty-transport.ts;
   * `receive` takes return-routed replies that arrive later than the send.
   */
  wrapTransport?: (transport: Transport, receive: (packed: string) => Promise<unknown>) => Transport;
  /**
   * Lifetime of a Data Pipe invitation, counted from its creation; default `deps.invitationTtlMs`
   * (30 days, docs/service.md). The invitation's own `expires_time` is enforced as well.
   */
  invitationTtlMs?: number;
  /** How long message ids are remembered for replay detection (default 7 days, injected clock). */
  seenRetentionMs?: number;
  /** At most one prune of old message ids per this interval, run on inbound traffic (default 1 h). */
  seenSweepMs?: number;
  /** Extra endpoint URLs that mean "this service" (a wallet naming one of them has no endpoint of its own). */
  ownEndpoints?: string[];
  /**
   * A running sync without progress for this long is failed (DATA_SYNC_FAILED) by the agent's
   * sweep or by the next request (default 10 minutes).
   */
  syncTimeoutMs?: number;
  /**
   * A new sync request supersedes a running sync that has not moved for this long (default 60 s):
   * the old one fails (`superseded`) and the new one starts at once.
   */
  syncStallMs?: number;
  /** How often the sweep of stuck syncs runs (default 30 s; `agent.sweep()` runs it now). */
  sweepMs?: number;
  /**
   * The retry scheduler's one back-off (router/retry/backoff.ts) and the steps' deadline: a send
   * that failed (or was kept for pickup because the endpoint failed) is retried after 2 s,
   * doubling to 60 s with jitter, at most 1 s apart while nothing listens at the wallet's address;
   * one the wallet's endpoint accepted only after 30 s (liveness); for 10 minutes after the first
   * send, then the sync or workflow fails (`unanswered`). After a start everything is due at once.
   */
  retry?: Pick<StepOptions, 'baseDelayMs' | 'maxDelayMs' | 'acceptedDelayMs' | 'unreachableDelayMs' | 'deadlineMs' | 'random'>;
  /** Crash tests: called at named steps (crash-point.ts); default IDSYNC_TEST_CRASH_AT. */
  crashPoint?: CrashPoint;
  /** Overrides createService's `outboundEndpoints` (which endpoint addresses of peers may be called). */
  outboundEndpoints?: EndpointPolicy;
  /** Message Pickup queue bounds: TTL (default 30 days) and messages per recipient (default 1000). */
  queue?: QueueOptions;
  /** The mediator's policy for the service's wallets (deny rules, message size, delays); its queue is the one above. */
  mediation?: Partial<MediatorPolicy>;
  /**
   * Messages a peer's endpoint answered 503/429 are sent again (redelivery.ts) by the retry
   * scheduler, with its back-off (`retry`): attempts (default 8, the first one included).
   */
  redelivery?: RedeliveryOptions;
  /**
   * Retention of the message log (`messages` collection): records older than `maxAgeMs` (default
   * 30 days) and the oldest beyond `maxEntries` (default 100,000) are deleted (store/messages.ts).
   */
  messageLog?: MessageLogOptions;
  /**
   * Received messages larger than this (packed bytes) are logged as a digest even when their sender
   * is authenticated (default 256 KiB); unauthenticated ones always are (router/records.ts).
   */
  logMessageMaxBytes?: number;
  /** Random index source for status lists (tests make it deterministic). */
  statusIndex?: (max: number) => number;
}

/** A message of the service stored with its step, to be sent by deliver(). */
export interface PreparedMessage {
  message: PlainMessage;
  deliver(): Promise<PlainMessage>;
}

/** What the flow modules share. */
export interface AgentCore {
  deps: ServiceDeps;
  options: AgentOptions;
  router: Router;
  envelope: EnvelopeContext;
  registry: StoredDidRegistry;
  /** Agent events for tests and embedders (see agent.ts for the names). */
  events: EventEmitter;
  /** Serialises work on one key (a thread id, a user) inside this process. Never hold it while sending. */
  lock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` in the background; failures are logged and emitted as 'agent-error'. close() waits for them. */
  background(what: string, fn: () => Promise<void>): void;
  /**
   * Sends an authcrypted message from the service DID (outbound.ts decides: push, deliver or
   * queue); `ops`, the rest of its step, are stored in one batch with it first.
   */
  send(draft: MessageDraft, to: string, ops?: BatchOp[]): Promise<PlainMessage>;
  /** The first half of send: made, packed and stored with `ops`; `deliver()` sends it (outside any lock held while preparing). */
  prepare(draft: MessageDraft, to: string, ops?: BatchOp[]): Promise<PreparedMessage>;
  /** Crash tests (crash-point.ts): a named step outside the message sends. */
  crashPoint(step: string): void;
  /** Emits a webhook event; never throws. */
  emit(event: ServiceEvent): Promise<void>;
  now(): string;
}
