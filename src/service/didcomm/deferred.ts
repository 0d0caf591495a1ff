// A seam that lets a test replace the DIDComm agent behind a running service (a restart of the
// agent on the same store): createService gets `d.agent`, which forwards to the agent bound last.
// (createService runs createServiceAgent by default; most users need none of this.)
//
//   const d = deferredServiceAgent();
//   const service = await createService({ store, agent: d.agent, publicUrl });
//   d.bind(createServiceAgent(service.deps, options));   // and again later, after closing the old one
//
// createService calls start() once the service DID is final; an agent bound after that is
// started as it is bound (it resumes queued syncs).
import { IdsyncError } from '../../errors.js';
import type { ServiceAgent } from '../didcomm-seam.js';
import type { ServiceDidcommAgent } from './agent.js';
import { NO_RETRIES } from '../../router/retry/scheduler.js';

export interface DeferredServiceAgent {
  /** Hand this to createService({agent}); it forwards to the bound agent. */
  agent: ServiceAgent & Pick<ServiceDidcommAgent, 'deliverInvitation' | 'statusListCredential' | 'start' | 'retries' | 'reconcileSession'>;
  bind(agent: ServiceDidcommAgent): ServiceDidcommAgent;
}

export function deferredServiceAgent(): DeferredServiceAgent {
  let bound: ServiceDidcommAgent | undefined;
  let started = false;
  const target = (): ServiceDidcommAgent => {
    if (!bound) throw new IdsyncError('agent_not_ready', 'the DIDComm agent is not bound yet (deferredServiceAgent().bind)');
    return bound;
  };
  return {
    agent: {
      requestSync: (user, reason) => target().requestSync(user, reason),
      reconcileSession: async (user) => (bound ? bound.reconcileSession(user) : false),
      receive: (packed, info) => target().receive(packed, info),
      deliverInvitation: (did, invitation) => target().deliverInvitation(did, invitation),
      statusListCredential: (name) => target().statusListCredential(name),
      onInvitationCreated: async (info) => bound?.onInvitationCreated?.(info),
      onWorkflowCreated: async (wf) => target().onWorkflowCreated?.(wf),
      start() {
        started = true;
        bound?.start();
      },
      retries: () => bound?.retries() ?? NO_RETRIES,
      close: async () => bound?.close(),
    },
    bind(agent) {
      bound = agent;
      if (started) agent.start();
      return agent;
    },
  };
}
