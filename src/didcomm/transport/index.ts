// Transports by URL scheme: one Transport that hands each endpoint to the transport for its
// scheme (http/https, ws/wss, memory).
import { IdsyncError } from '../../errors.js';
import type { Transport } from '../types.js';
import { schemeOf } from './media-type.js';

export { httpTransport, handleHttpInbound, startHttpEndpoint, problemResponse, retryLaterResponse } from './http.js';
export type { HttpTransportOptions, HttpInboundRequest, HttpInboundResponse, InboundProblem, HttpInboundOptions, HttpInboundHandler, HttpEndpointOptions, HttpEndpoint } from './http.js';
export { wsTransport, attachWsEndpoint, startWsEndpoint, WS_CLOSE } from './ws.js';
export type { WsTransport, WsTransportOptions, WsConnection, WsInboundInfo, WsInboundHandler, WsEndpoint, WsEndpointOptions, StandaloneWsEndpoint } from './ws.js';
export { memoryNetwork } from './memory.js';
export type { MemoryNetwork, MemoryTransport, MemoryTransportOptions, MemoryInboundHandler, MemoryInboundInfo } from './memory.js';
export { detectMediaType, isDidcommMediaType, bareMediaType, schemeOf, retryHint, parseRetryAfter, DEFAULT_RETRY_AFTER_SECONDS } from './media-type.js';
export type { InboundOutcome } from './media-type.js';

/** Picks the first transport whose schemes include the endpoint's; `unsupported_scheme` otherwise. */
export function multiTransport(transports: Transport[]): Transport & { close(): Promise<void>; forScheme(scheme: string): Transport | undefined } {
  const forScheme = (scheme: string) => transports.find((t) => t.schemes.includes(scheme));
  return {
    schemes: [...new Set(transports.flatMap((t) => t.schemes))],
    forScheme,
    async send(endpoint, packed, options) {
      const scheme = schemeOf(endpoint);
      const t = forScheme(scheme);
      if (!t) throw new IdsyncError('unsupported_scheme', `no transport for ${scheme}: endpoints`, { details: { endpoint, scheme } });
      return t.send(endpoint, packed, options);
    },
    async close() {
      await Promise.all(transports.map((t) => t.close?.()));
    },
  };
}
