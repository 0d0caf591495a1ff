// The network half of a testbed crash: a party's transports are wrapped so that once its
// generation crashed (or a newer one booted) nothing it still had in flight goes out, and the
// endpoints it registers answer nothing more: a request it was handling ends as the peer's
// connection would with a process killed by kill -9 (reset), whatever its handler still did. The
// store half is fenced-store.ts.
import type { MemoryNetwork } from '../didcomm/transport/memory.js';
import type { Transport } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';

/** `t`, refusing every send once `alive()` is false. */
export function fencedTransport(t: Transport, alive: () => boolean): Transport {
  return {
    schemes: t.schemes,
    async send(endpoint, packed, o) {
      if (!alive()) throw new IdsyncError('transport_unreachable', 'the sending process crashed');
      return t.send(endpoint, packed, o);
    },
    close: async () => t.close?.(),
  };
}

/** `network`, whose endpoints registered through it answer like a killed process once `alive()` is false. */
export function fencedNetwork(network: MemoryNetwork, alive: () => boolean): MemoryNetwork {
  const gone = (reason: string) => new IdsyncError('transport_unreachable', 'the receiving process crashed', { details: { reason } });
  return {
    get urls() {
      return network.urls;
    },
    endpoint(url, handler) {
      return network.endpoint(url, async (packed, info) => {
        if (!alive()) throw gone('ECONNREFUSED');
        const out = await handler(packed, info);
        if (!alive()) throw gone('ECONNRESET');
        return out;
      });
    },
    transport: (o) => network.transport(o),
    pushTo: (key, packed) => network.pushTo(key, packed),
  };
}
