// What every wing of the service is given: store, clock, ids, configuration, its identity, the
// event sink and a logger (no module reaches for globals). The wings depend on this file only;
// deps.ts adds the wings themselves for the composition root (app.ts) and the routes.
import type { Clock, IdGenerator } from '../clock.js';
import type { BatchOp, Store } from '../store/store.js';
import type { ServiceConfig } from './config/config.js';
import type { EndpointPolicy } from './net/endpoint-policy.js';
import type { HostResolver } from '../net/connect-guard.js';
import type { EnvelopeEngine } from '../didcomm/types.js';
import type { ServiceIdentity } from './identity.js';

/**
 * A service event, in the vendor's webhook shape (vendor-facts "Webhooks"): the body of a
 * webhook is `{type, action, event, params}`; `tenantId` says whose subscribers get it.
 */
export interface ServiceEvent {
  tenantId: string;
  type: string;
  action?: string;
  event: string;
  params: Record<string, unknown>;
}

/** Where events go (the webhook dispatcher implements it). Must not throw for delivery failures. */
export interface EventSink {
  emit(event: ServiceEvent): Promise<void>;
  /**
   * Optional outbox support (event-outbox.ts): the store writes that record the event, for the
   * caller to put in the same batch as the state change it reports; `commit()` after that batch.
   * Sinks without it get emit() after the state change is stored.
   */
  prepare?(event: ServiceEvent): Promise<{ ops: BatchOp[]; commit(): void }>;
}

/** The subset of fastify's (pino) logger the service uses; any pino-like logger fits. */
export interface ServiceLogger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export const silentLogger: ServiceLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** The part of the service's dependencies every wing may use. */
export interface ServiceBase {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  /** Tenants, clients, projects, data profiles, issuance settings (store-backed). */
  config: ServiceConfig;
  /** The base URL the service is reached at, without a trailing slash, e.g. http://127.0.0.1:8080. */
  publicUrl: string;
  /** did:web of publicUrl. */
  serviceDid: string;
  /** The service's DID document and keys (secrets stay inside; never served or logged). */
  identity: ServiceIdentity;
  events: EventSink;
  logger: ServiceLogger;
  /** Lifetime of a Data Pipe invitation in ms (its expires_time; docs/service.md, default 30 days). */
  invitationTtlMs: number;
  /** Which DIDComm endpoints of peers the agent may send to (endpoint-policy.ts; docs/service.md "Outbound endpoints"). */
  outboundEndpoints?: EndpointPolicy;
  /** Resolves host names of outbound connections (DIDComm endpoints, did:web, webhooks); default the system resolver. */
  resolveHost?: HostResolver;
  /** Envelope engine of the DIDComm agent (default: the envelope layer's, native). */
  envelopeEngine?: EnvelopeEngine;
  /** Outbound delivery endpoints given on the command line (the invitation senders read them). */
  smtpUrl?: string;
  smsGatewayUrl?: string;
}
