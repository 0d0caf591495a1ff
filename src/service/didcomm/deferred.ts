// The DIDComm agent needs the service's finished deps (users, identity), while createService
// wires the agent into everything else (routes, G's DIDCOMM invitation delivery) as it builds
// them. A deferred agent breaks that circle without changing createService:
//
//   const d = deferredServiceAgent();
//   const service = await createService({ store, agent: d.agent });
//   await service.listen({ port: 0 });
//   d.bind(createServiceAgent(service.deps));
//
// Bind after listen() when no publicUrl was given: the service DID follows the bound address,
// and the agent resumes queued syncs as soon as it is created.
import { IdsyncError } from '../../errors.js';
import type { ServiceAgent } from '../agent.js';
import type { ServiceDidcommAgent } from './agent.js';

export interface DeferredServiceAgent {
  /** Hand this to createService({agent}); it forwards to the bound agent. */
  agent: ServiceAgent & Pick<ServiceDidcommAgent, 'deliverInvitation' | 'statusListCredential'>;
  bind(agent: ServiceDidcommAgent): ServiceDidcommAgent;
}

export function deferredServiceAgent(): DeferredServiceAgent {
  let bound: ServiceDidcommAgent | undefined;
  const target = (): ServiceDidcommAgent => {
    if (!bound) throw new IdsyncError('agent_not_ready', 'the DIDComm agent is not bound yet (deferredServiceAgent().bind)');
    return bound;
  };
  return {
    agent: {
      requestSync: (user, reason) => target().requestSync(user, reason),
      receive: (packed, info) => target().receive(packed, info),
      deliverInvitation: (did, invitation) => target().deliverInvitation(did, invitation),
      statusListCredential: (name) => target().statusListCredential(name),
      onInvitationCreated: async (info) => bound?.onInvitationCreated?.(info),
      close: async () => bound?.close(),
    },
    bind(agent) {
      bound = agent;
      return agent;
    },
  };
}
