// Wiring of engineer G's issuance runtime into the service: outbox, invitation senders
// (SMTP / SMS gateway / DIDComm), webhook dispatcher (the events sink unless the caller gave
// one) and the workflow expiry sweep. Built once per service; runs while the service listens.
import type { ServiceDeps } from './deps.js';
import type { DidcommDelivery } from './delivery/didcomm.js';
import { createIssuanceServices } from './workflows/services.js';

export interface Extensions {
  start(): void;
  stop(): Promise<void>;
}

export function wireExtensions(deps: ServiceDeps, options: { eventsGiven: boolean }): Extensions {
  const agent = deps.agent as ServiceDeps['agent'] & { deliverInvitation?: DidcommDelivery };
  const runtime = createIssuanceServices({
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
  });
  deps.issuance = runtime;
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
