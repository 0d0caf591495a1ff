// The service's dependencies once composed: the base every wing gets (context.ts) plus the wings
// themselves (the DIDComm agent, users, webhooks, issuance). Only the composition root (app.ts),
// the routes and the DIDComm agent see this whole; the wings below take ServiceBase.
import type { ServiceBase } from './context.js';
import type { ServiceAgent } from './didcomm-seam.js';
import type { UserStore } from './users/users.js';
import type { WebhookDispatcher } from './webhooks/dispatcher.js';
import type { IssuanceRuntime } from './issuance/services.js';

export interface ServiceDeps extends ServiceBase {
  /** Data Pipe / sync / DIDComm side. Routes call it; the default records sync operations as queued. */
  agent: ServiceAgent;
  /** Provider users; also how the DIDComm side links wallets and records syncs (users.ts). */
  users: UserStore;
  /** Webhook subscriptions and deliveries; also the events sink unless one was given. */
  webhooks?: WebhookDispatcher;
  /** Outbox, invitation senders, webhooks, partners, built once by createService. */
  issuance?: IssuanceRuntime;
}
