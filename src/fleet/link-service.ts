// The service's end of the fleet link: requests to the embedded twin answered through fastify's
// inject (the same routes, validation and hooks as over HTTP, without a socket; DIDComm messages
// through the endpoint's in-process entry), and the twin's DIDComm messages to the fleet's
// wallets sent over the link of the thread that holds them.
import type { Transport } from '../didcomm/types.js';
import type { App } from '../service/http/app-types.js';
import { linkedTransport, type LinkHandler, type LinkResponse } from './link.js';

/**
 * Answers a link request with `app.inject` (only the path and query of the URL are used). A
 * DIDComm message POSTed to /didcomm, the most frequent request of a flow, is answered by the
 * route's own in-process entry instead (didcomm-endpoint.ts: the same handler, rate limit and
 * problem documents, without inject's fake request and response); whatever that entry does not
 * take goes through inject.
 */
export function injectHandler(app: App): LinkHandler {
  const didcomm = app.hasDecorator('didcommInProcess') ? app.didcommInProcess : undefined;
  return async (req) => {
    const url = new URL(req.url);
    if (didcomm && req.method === 'POST' && url.pathname === '/didcomm' && url.search === '' && req.body !== undefined) {
      const answer = await didcomm({ url: url.pathname, contentType: req.headers['content-type'], body: req.body });
      if (answer) return answer;
    }
    const res = await app.inject({ method: req.method as 'GET', url: url.pathname + url.search, headers: req.headers, ...(req.body ? { payload: req.body } : {}) });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    return { status: res.statusCode, headers, body: res.payload } satisfies LinkResponse;
  };
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
