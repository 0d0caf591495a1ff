// Wiring of the issuance runtime into the service: outbox, invitation senders (SMTP / SMS
// gateway / DIDComm), webhook dispatcher (the events sink unless the caller gave one) and the
// workflow expiry sweep. Built once per service, here only; runs while the service listens.
import type { ServiceBase } from '../context.js';
import type { WebhookDispatcher } from '../webhooks/dispatcher.js';
import type { DidcommDelivery } from './delivery/didcomm.js';
import { createIssuanceServices, type IssuanceRuntime } from './services.js';

/** What the issuance runtime is built from: the service's base, its agent (for DIDCOMM invitations) and what is built already. */
export interface IssuanceHost extends ServiceBase {
  /** The DIDComm agent; when it has `deliverInvitation`, DIDCOMM destinations go through it. */
  agent: object;
  webhooks?: WebhookDispatcher;
  issuance?: IssuanceRuntime;
}

export interface Extensions {
  start(): void;
  stop(): Promise<void>;
}

/**
 * The issuance services of a service: `deps.issuance`, built from deps on first use (reusing
 * deps.webhooks and the agent's deliverInvitation when there are).
 */
export function issuanceServicesOf(deps: IssuanceHost): IssuanceRuntime {
  if (deps.issuance) return deps.issuance;
  const agent = deps.agent as { deliverInvitation?: DidcommDelivery };
  deps.issuance = createIssuanceServices({
    store: deps.store,
    clock: deps.clock,
    ids: deps.ids,
    // Read at call time: the service DID follows publicUrl, known only after listen().
    get serviceDid() {
      return deps.serviceDid;
    },
    config: deps.config,
    logger: deps.logger,
    ...(deps.smtpUrl ? { smtpUrl: deps.smtpUrl } : {}),
    ...(deps.smsGatewayUrl ? { smsGatewayUrl: deps.smsGatewayUrl } : {}),
    ...(agent.deliverInvitation ? { didcomm: (did: string, inv: Parameters<DidcommDelivery>[1]) => agent.deliverInvitation!(did, inv) } : {}),
    ...(deps.webhooks ? { webhooks: deps.webhooks } : {}),
    ...(deps.resolveHost ? { resolveHost: deps.resolveHost } : {}),
  });
  return deps.issuance;
}

export function wireExtensions(deps: IssuanceHost, options: { eventsGiven: boolean }): Extensions {
  const runtime = issuanceServicesOf(deps);
  deps.webhooks = runtime.webhooks;
  if (!options.eventsGiven) deps.events = runtime.events;
  let started = false;
  return {
    start() {
      if (started) return;
      started = true;
      runtime.start();
    },
    async stop() {
      if (!started) return;
      started = false;
      await runtime.stop();
    },
  };
}
