// The service's end of the fleet link: the twin's DIDComm messages to the fleet's wallets sent
// over the link of the thread that holds them. Requests to the twin are answered by its
// appExchange (testing/inject-fetch.ts), as the testbed's are.
import type { Transport } from '../didcomm/types.js';
import { linkedTransport, type LinkHandler } from './link.js';

/** The wallets' threads by the URL prefix of their endpoints: the twin's route to them. */
export interface WalletLinks {
  add(prefix: string, call: LinkHandler): () => void;
  /** Wraps the twin's HTTP transport so messages to linked wallets go over their link. */
  wrap(t: Transport): Transport;
}

export function walletLinks(): WalletLinks {
  const links = new Map<string, LinkHandler>();
  const route = (endpoint: string): LinkHandler | undefined => {
    for (const [prefix, call] of links) if (endpoint.startsWith(prefix)) return call;
    return undefined;
  };
  return {
    add(prefix, call) {
      links.set(prefix, call);
      return () => {
        if (links.get(prefix) === call) links.delete(prefix);
      };
    },
    wrap: (t) => linkedTransport(t, route),
  };
}
