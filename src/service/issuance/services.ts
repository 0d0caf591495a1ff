// The long-lived pieces behind issuance: the outbox, the invitation sender (SMTP / SMS gateway /
// DIDComm), the webhook dispatcher (it is the service's EventSink), ecosystem partners and the
// workflow expiry sweep. createService builds them once and hands them to the route plugins.
import type { Clock, IdGenerator } from '../../clock.js';
import type { Store } from '../../store/store.js';
import type { ServiceConfig } from '../config/config.js';
import type { EventSink, ServiceLogger } from '../context.js';
import type { DidcommDelivery } from './delivery/didcomm.js';
import { createEmailSender, type EmailSender } from './delivery/email.js';
import { createInvitationSender, type InvitationSender } from './delivery/sender.js';
import { createSmsSender } from './delivery/sms.js';
import { createOutbox, type Outbox } from './invitation-outbox.js';
import { partnerRepo, type PartnerRepo } from './partners.js';
import type { BackoffOptions } from '../webhooks/backoff.js';
import { createWebhookDispatcher, type WebhookDispatcher } from '../webhooks/dispatcher.js';
import { expireDue } from './workflows.js';
import type { HostResolver } from '../../net/connect-guard.js';

export interface IssuanceServices {
  outbox: Outbox;
  invitations: InvitationSender;
  webhooks: WebhookDispatcher;
  /** The webhook dispatcher as the service's EventSink (ServiceDeps.events). */
  events: EventSink;
  partners: PartnerRepo;
  /** Shown in invitation e-mail and SMS texts. */
  issuerName?: string;
}

export interface IssuanceServicesOptions {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  serviceDid: string;
  config?: ServiceConfig;
  logger?: ServiceLogger;
  smtpUrl?: string;
  /** From address of invitation e-mail. */
  smtpFrom?: string;
  smsGatewayUrl?: string;
  /** The DIDComm agent's invitation delivery; without it DIDCOMM destinations are only recorded. */
  didcomm?: DidcommDelivery;
  issuerName?: string;
  /** An existing dispatcher to reuse (otherwise one is created). */
  webhooks?: WebhookDispatcher;
  webhookFetch?: typeof fetch;
  /** Resolves webhook subscribers' host names (default the system resolver). */
  resolveHost?: HostResolver;
  webhookBackoff?: Partial<BackoffOptions>;
  random?: () => number;
  /** How often start() sweeps expired workflows; default 60 s. */
  expirySweepMs?: number;
}

export interface IssuanceRuntime extends IssuanceServices {
  /** Starts the webhook delivery loop and the expiry sweep (timers are unref'd). */
  start(): void;
  /** Stops both and closes the SMTP transport. */
  stop(): Promise<void>;
}

export function createIssuanceServices(o: IssuanceServicesOptions): IssuanceRuntime {
  const outbox = createOutbox(o);
  const email: EmailSender | undefined = o.smtpUrl ? createEmailSender({ smtpUrl: o.smtpUrl, ...(o.smtpFrom ? { from: o.smtpFrom } : {}) }) : undefined;
  const invitations = createInvitationSender({
    outbox,
    ...(email ? { email } : {}),
    ...(o.smsGatewayUrl ? { sms: createSmsSender({ gatewayUrl: o.smsGatewayUrl, ...(o.resolveHost ? { resolveHost: o.resolveHost } : {}) }) } : {}),
    ...(o.didcomm ? { didcomm: o.didcomm } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
  });
  const webhooks = o.webhooks ?? createWebhookDispatcher({
    store: o.store,
    clock: o.clock,
    ids: o.ids,
    ...(o.webhookFetch ? { fetch: o.webhookFetch } : {}),
    ...(o.resolveHost ? { resolveHost: o.resolveHost } : {}),
    ...(o.webhookBackoff ? { backoff: o.webhookBackoff } : {}),
    ...(o.random ? { random: o.random } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
  });
  const partners = partnerRepo({
    store: o.store,
    clock: o.clock,
    ids: o.ids,
    // Read at call time: the service DID follows publicUrl, known only after listen().
    get serviceDid() {
      return o.serviceDid;
    },
    ...(o.issuerName ? { serviceName: o.issuerName } : {}),
    ...(o.config ? { provider: async (tenantId: string) => ({ name: (await o.config!.getTenant(tenantId))?.name }) } : {}),
  });
  const events: EventSink = {
    // Queued durably before it resolves; delivery failures never surface here.
    async emit(event) {
      await webhooks.emit(event);
    },
    // Outbox: the event's writes go into the caller's batch with the state change (event-outbox.ts).
    prepare: (event) => webhooks.prepare(event),
  };
  let sweep: NodeJS.Timeout | undefined;
  const stateDeps = { store: o.store, clock: o.clock, events, ...(o.logger ? { logger: o.logger } : {}) };
  return {
    outbox,
    invitations,
    webhooks,
    events,
    partners,
    ...(o.issuerName ? { issuerName: o.issuerName } : {}),
    start() {
      webhooks.start();
      if (!sweep) {
        sweep = setInterval(() => {
          expireDue(stateDeps).catch((err) => o.logger?.error({ err }, 'workflow expiry sweep failed'));
        }, o.expirySweepMs ?? 60_000);
        sweep.unref();
      }
    },
    async stop() {
      if (sweep) clearInterval(sweep);
      sweep = undefined;
      await webhooks.stop();
      email?.close();
    },
  };
}
