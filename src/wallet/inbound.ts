// The wallet's inbound endpoints: an HTTP endpoint (DIDComm v2 §Transports HTTP), a WebSocket
// endpoint on the same server and path, or an in-process memory endpoint for tests. The URL of
// the first one is what the DID's DIDCommMessaging service names when the DID is created after
// listening (port 0).
import { startHttpEndpoint, type HttpEndpoint } from '../didcomm/transport/http.js';
import type { MemoryNetwork } from '../didcomm/transport/memory.js';
import { attachWsEndpoint, startWsEndpoint, type StandaloneWsEndpoint, type WsEndpoint } from '../didcomm/transport/ws.js';
import type { InboundHandler } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';

export interface ListenOptions {
  /** An HTTP endpoint (default 127.0.0.1, port 0, path /didcomm). */
  http?: { host?: string; port?: number; path?: string } | true;
  /** A WebSocket endpoint: on the HTTP server's path when `http` is given, else its own server. */
  ws?: boolean | { host?: string; port?: number; path?: string };
  /** An in-process endpoint on a memory network (tests). */
  memory?: { network: MemoryNetwork; url: string };
}

export interface Listening {
  http?: string;
  ws?: string;
  memory?: string;
  /** The URL to publish: http, else ws, else memory. */
  url: string;
  close(): Promise<void>;
}

export async function startListening(handler: InboundHandler, options: ListenOptions): Promise<Listening> {
  if (!options.http && !options.ws && !options.memory) throw new IdsyncError('invalid_argument', 'listen needs http, ws or memory');
  const closers: Array<() => Promise<void>> = [];
  const out: Partial<Listening> = {};
  try {
    let http: HttpEndpoint | undefined;
    if (options.http) {
      const o = options.http === true ? {} : options.http;
      http = await startHttpEndpoint({ host: o.host ?? '127.0.0.1', port: o.port ?? 0, path: o.path, handler });
      out.http = http.url;
    }
    if (options.ws) {
      const o = options.ws === true ? {} : options.ws;
      const wsHandler = (packed: string, info: { reply(p: string): Promise<void>; bind(k: string): void }) => handler(packed, { transport: 'ws', reply: info.reply, bind: info.bind });
      if (http) {
        const path = new URL(http.url).pathname;
        const ws: WsEndpoint = attachWsEndpoint(http.server, { path, handler: wsHandler });
        out.ws = http.url.replace(/^http/, 'ws');
        closers.push(() => ws.close());
      } else {
        const ws: StandaloneWsEndpoint = await startWsEndpoint({ host: o.host ?? '127.0.0.1', port: o.port ?? 0, path: o.path, handler: wsHandler });
        out.ws = ws.url;
        closers.push(() => ws.close());
      }
    }
    // The HTTP server closes after the WebSocket endpoint on it.
    if (http) closers.push(() => http!.close());
    if (options.memory) {
      const m = options.memory.network.endpoint(options.memory.url, (packed, info) => handler(packed, { transport: 'memory', reply: info.reply, bind: info.bind }));
      out.memory = m.url;
      closers.push(async () => m.close());
    }
  } catch (err) {
    for (const c of closers) await c().catch(() => undefined);
    throw err;
  }
  return {
    ...out,
    url: (out.http ?? out.ws ?? out.memory)!,
    async close() {
      for (const c of closers) await c().catch(() => undefined);
    },
  };
}
