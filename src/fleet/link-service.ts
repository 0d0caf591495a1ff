// The service's end of the fleet link: requests to the embedded twin answered through fastify's
// inject (the same routes, validation and hooks as over HTTP, without a socket; DIDComm messages
// through the endpoint's in-process entry), and the twin's DIDComm messages to the fleet's
// wallets sent over the link of the thread that holds them.
import type { Transport } from '../didcomm/types.js';
import type { App } from '../service/http/app-types.js';
import { appExchange } from '../testing/inject-fetch.js';
import { linkedTransport, type LinkHandler } from './link.js';

/** Answers a link request as the twin's HTTP server would (testing/inject-fetch.ts appExchange). */
export function injectHandler(app: App): LinkHandler {
  return appExchange(app);
}

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
