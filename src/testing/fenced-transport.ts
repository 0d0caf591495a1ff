// The outbound half of a testbed crash: a party's transports are wrapped so that once its
// generation crashed (or a newer one booted) nothing it still had in flight goes out, as with a
// process killed by kill -9. The store half is fenced-store.ts.
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
