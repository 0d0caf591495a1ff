// The per-address limit of the DIDComm WebSocket endpoint (docs/service.md "Limits"): an upgrade
// and every frame take a token from the same bucket as POST /didcomm (addressKey of the remote
// address). An upgrade over the limit is answered 429 with Retry-After; a frame over it closes
// the socket with 1008 (RFC 6455 §7.4.1 policy violation), logged with code `rate_limited`.
//
// Frames are counted against the address of their connection (WsConnection.remoteAddress, taken
// by the endpoint from the upgrade request's socket); a connection without one gets a bucket of
// its own. Registering a second 'upgrade' listener means unknown paths get their 404 from here
// (the endpoint answers them only when it is the sole listener).
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WsConnection, WsInboundHandler } from '../../didcomm/transport/ws.js';
import { requestPath } from '../../net/request-target.js';
import { addressKey, type RateLimiter } from './rate-limit.js';

/** RFC 6455 §7.4.1: 1008, the endpoint received a message that violates its policy. */
export const WS_RATE_LIMIT_CLOSE = 1008;

export interface WsInboundLimits {
  /** The handler to give attachWsEndpoint: counts each frame, closes the socket when over the limit. */
  wrap(handler: WsInboundHandler): WsInboundHandler;
}

/** The bucket key of a connection: its remote address (IPv6 by /64), else a bucket of its own. */
export function connectionKey(conn: Pick<WsConnection, 'id' | 'remoteAddress'>): string {
  return conn.remoteAddress ? addressKey(conn.remoteAddress) : `ws-connection-${conn.id}`;
}

export function limitWsInbound(server: http.Server, o: { path: string; limiter: RateLimiter; logger: { warn(obj: unknown, msg?: string): void } }): WsInboundLimits {
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
    const pathname = requestPath(req.url);
    if (pathname !== o.path) {
      // No other endpoint shares this server: the same 404 the endpoint would give.
      if (server.listenerCount('upgrade') <= 2) {
        socket.on('error', () => {});
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      }
      return;
    }
    const address = addressKey(req.socket.remoteAddress);
    const decision = o.limiter.take(`didcomm:${address}`);
    if (!decision.allowed) {
      o.logger.warn({ code: 'rate_limited', address, retryAfter: decision.retryAfterSeconds }, 'DIDComm WebSocket upgrade refused: rate limit');
      socket.on('error', () => {});
      // The endpoint's listener runs next and finds the socket closed (ws then only destroys it).
      socket.end(`HTTP/1.1 429 Too Many Requests\r\nRetry-After: ${decision.retryAfterSeconds}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
  });

  return {
    wrap(handler) {
      return async (packed, info) => {
        const key = connectionKey(info.connection);
        const decision = o.limiter.take(`didcomm:${key}`);
        if (!decision.allowed) {
          o.logger.warn({ code: 'rate_limited', address: key, closeCode: WS_RATE_LIMIT_CLOSE }, 'DIDComm WebSocket closed: rate limit');
          info.connection.close(WS_RATE_LIMIT_CLOSE, 'rate limited');
          return;
        }
        return handler(packed, info);
      };
    },
  };
}
