// The service's DIDComm agent with a fault injector on both of its streams, for a twin that runs
// on its own (`idsync service --console`) rather than in a testbed: what it sends and the replies
// that come back to those sends ('to-wallet' out, 'to-service' in, as the testbed names them), and
// what reaches its endpoints ('to-service': drop, delay, duplicate, tamper).
import type { InboundHandler } from '../didcomm/types.js';
import type { ServiceDeps } from '../service/deps.js';
import type { InboundInfo } from '../service/didcomm-seam.js';
import { createServiceAgent, type ServiceDidcommAgent } from '../service/didcomm/agent.js';
import type { AgentOptions } from '../service/didcomm/core.js';
import type { FaultInjector } from './fault-plan.js';
import { faultyInbound, faultyTransport } from './faulty-transport.js';

export function faultyServiceAgent(deps: ServiceDeps, faults: FaultInjector, options: AgentOptions = {}): ServiceDidcommAgent {
  const agent = createServiceAgent(deps, {
    ...options,
    wrapTransport: (t, late) => {
      const inner = options.wrapTransport ? options.wrapTransport(t, late) : t;
      return faultyTransport(inner, faults, { labels: { out: 'to-wallet', in: 'to-service' }, lateReplies: late });
    },
  });
  // The endpoints hand their callbacks (retryable, refused) along in `info`: passed through as given.
  const inbound: InboundHandler = (packed, info) => agent.receive(packed, info as InboundInfo);
  const faulty = faultyInbound(inbound, faults, { label: 'to-service' });
  return { ...agent, receive: async (packed: string, info: InboundInfo) => void (await faulty(packed, info)) };
}
