// The standalone mediator on the network (`idsync mediator`): one node:http server with the
// DIDComm endpoint POST /didcomm (DIDComm v2.1 §Transports: HTTPS; 202 on receipt, a return-routed
// answer in a 200 body), the WebSocket endpoint on the same path (live mode), GET /invitation (the
// out-of-band invitation to mediate, also at its _oob and _oobid URLs), GET /did (the DID and its document)
// and GET /health. A forward over the size limit is answered 413 (DIDComm v2.1 §max_receive_bytes:
// "it is also appropriate to emit an error at the transport level, such as HTTP 413").
import http from 'node:http';
import { systemClock, uuid, type Clock, type IdGenerator } from '../clock.js';
import { badTargetResponse, handleHttpInbound, problemResponse, type HttpInboundResponse } from '../didcomm/transport/http.js';
import { attachWsEndpoint, type WsEndpoint } from '../didcomm/transport/ws.js';
import { checkInboundMessage, DEFAULT_MAX_BYTES } from '../didcomm/transport/media-type.js';
import { inspectInvitationUrl } from '../conformance/oob-url.js';
import { listen, reachableUrlHost } from '../listen.js';
import { requestUrl } from '../net/request-target.js';
import { answerClientError } from '../problem-details.js';
import type { Store } from '../store/store.js';
import { createMediatorAgent, type MediatorAgent, type MediatorAgentOptions } from './agent.js';
import { mediatorPolicy } from './policy.js';
import { mediationPage } from './invitation.js';
import { problemPage, wantsHtml } from '../protocols/out-of-band-page.js';

export interface StartMediatorOptions extends Omit<MediatorAgentOptions, 'publicUrl' | 'store' | 'clock' | 'ids'> {
  store: Store;
  clock?: Clock;
  ids?: IdGenerator;
  /** 0 (default): any free port. */
  port?: number;
  host?: string;
  /** Where clients reach it (default the address it listens on). */
  publicUrl?: string;
}

export interface RunningMediator {
  /** The address it listens on, e.g. http://127.0.0.1:41234. */
  readonly url: string;
  readonly publicUrl: string;
  readonly did: string;
  readonly invitationUrl: string;
  /** The invitation's short URL (`?_oobid=`): GET /invitation answers it with the invitation. */
  readonly shortInvitationUrl: string;
  readonly agent: MediatorAgent;
  readonly ws: WsEndpoint;
  /**
   * One request answered as the HTTP server answers it, without a socket (the fleet's link
   * between threads): only the path of `url` is read.
   */
  serve(req: { method: string; url: string; body?: string; contentType?: string | null }): Promise<HttpInboundResponse>;
  /**
   * Takes a persistent connection that is not a socket of this server (the fleet's link between
   * threads) as its WebSocket endpoint takes one: each frame a message, answers and live pushes
   * sent back on it, live mode ended when it closes. Returns what to do with its frames and its close.
   */
  attach(connection: PersistentConnection): { frame(packed: string): void; closed(): void };
  close(): Promise<void>;
}

/** A persistent connection's sending end (link-socket.ts LinkSocket has this shape). */
export interface PersistentConnection {
  readonly open: boolean;
  send(packed: string): Promise<void>;
  close(): void;
}

function send(res: http.ServerResponse, r: HttpInboundResponse): void {
  if (res.headersSent) return;
  // A handler whose process died answers nothing: the connection is reset, as a killed one's is.
  if (r.abandon) return void res.socket?.destroy();
  const headers: Record<string, string | number> = { ...r.headers, 'content-length': r.body === undefined ? 0 : Buffer.byteLength(r.body) };
  if (r.body !== undefined) headers['content-type'] = r.contentType ?? 'application/octet-stream';
  res.writeHead(r.status, headers);
  res.end(r.body);
}

const json = (status: number, value: unknown): HttpInboundResponse => ({ status, contentType: 'application/json', body: JSON.stringify(value) });

/** Reads a request body of at most `max` bytes; undefined (and the connection answered 413) beyond it. */
function readBody(req: http.IncomingMessage, res: http.ServerResponse, max: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const tooLarge = () => {
      send(res, problemResponse('payload_too_large', `a message may have at most ${max} bytes`));
      res.once('finish', () => req.destroy());
      resolve(undefined);
    };
    if (Number(req.headers['content-length'] ?? 0) > max) return tooLarge();
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      total += c.length;
      if (total > max) {
        done = true;
        return tooLarge();
      }
      chunks.push(c);
    });
    req.on('error', () => {
      if (!done) resolve(undefined);
      done = true;
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

export async function startMediator(options: StartMediatorOptions): Promise<RunningMediator> {
  const host = options.host ?? '127.0.0.1';
  const policy = mediatorPolicy(options.policy);
  // The forward around a message is larger than the message (base64url in JSON, one more JWE): room for both.
  const maxBytes = Math.max(DEFAULT_MAX_BYTES, 2 * policy.maxMessageBytes + 64 * 1024);
  let agent: MediatorAgent | undefined;

  /** A DIDComm POST's answer (the body read and within maxBytes). */
  const didcommPost = async (body: string, contentType: string | null | undefined): Promise<HttpInboundResponse> => {
    const r = await handleHttpInbound({ body, contentType }, (packed, info) => agent!.receive(packed, info), { maxBytes });
    // §max_receive_bytes: a message over the limit is refused at the transport level too.
    if (r.problem?.code === 'forward_too_large') r.status = 413;
    return r;
  };
  /** What every route but POST /didcomm answers. */
  const otherRoute = async (method: string | undefined, url: URL, accept?: string): Promise<HttpInboundResponse> => {
    const { pathname } = url;
    if (pathname === '/didcomm') return { ...problemResponse('method_not_allowed', 'messages are POSTed'), headers: { allow: 'POST' } };
    if (method !== 'GET') return problemResponse('method_not_allowed', 'only GET here');
    if (pathname === '/invitation') {
      // A URL names the invitation it stands for (_oob: the invitation itself; _oobid: a short
      // URL's id): one this mediator did not make (or no longer offers) is not here. Without
      // either, the path alone answers with this mediator's own.
      const named = invitationIdIn(url);
      if (named !== undefined && named !== agent!.invitation.id) {
        const detail = `no such invitation here (${named === null ? 'the _oob parameter holds no out-of-band invitation' : `id ${named.slice(0, 100)}`}); this mediator's is ${agent!.shortInvitationUrl}`;
        if (!wantsHtml(accept)) return problemResponse('not_found', detail);
        const advice = `To be mediated by it, give a wallet ${agent!.shortInvitationUrl}`;
        return { status: 404, contentType: 'text/html; charset=utf-8', headers: { vary: 'Accept' }, body: problemPage({ status: 404, code: 'not_found', detail, heading: 'This mediator has no such invitation', advice }) };
      }
      // A person who opened the URL in a browser gets instructions (§Standard Message Encoding).
      if (wantsHtml(accept)) return { status: 200, contentType: 'text/html; charset=utf-8', headers: { vary: 'Accept' }, body: await mediationPage(agent!) };
      return json(200, agent!.invitation);
    }
    if (pathname === '/did') return json(200, { did: agent!.did, document: agent!.identity.document });
    if (pathname === '/health') return json(200, { status: 'ok', did: agent!.did });
    return problemResponse('route_not_found', 'the mediator serves POST /didcomm, GET /invitation, GET /did and GET /health');
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = requestUrl(req.url);
      if (!url) return send(res, badTargetResponse());
      if (!agent) return send(res, problemResponse('temporarily_unavailable', 'the mediator is starting'));
      if (url.pathname !== '/didcomm' || req.method !== 'POST') return send(res, await otherRoute(req.method, url, req.headers.accept));
      const body = await readBody(req, res, maxBytes);
      if (body === undefined) return;
      return send(res, await didcommPost(body, req.headers['content-type']));
    })().catch(() => send(res, problemResponse('internal_error', 'the request could not be handled')));
  });
  // What the parser refuses gets problem details too, not Node's bare 400.
  server.on('clientError', answerClientError);

  const ws = attachWsEndpoint(server, {
    path: '/didcomm',
    maxBytes,
    handler: (packed, info) => agent!.receive(packed, { transport: 'ws', reply: info.reply, bind: info.bind, open: () => info.connection.open }),
    // "If Live Mode is active, and the connection is broken, a new inbound connection starts with Live Mode disabled."
    onDisconnect: (conn) => agent?.mediator.live.forget(conn.send),
  });
  let port: number;
  try {
    port = await listen(server, options.port ?? 0, host);
  } catch (err) {
    await ws.close();
    throw err;
  }
  const url = `http://${reachableUrlHost(host)}:${port}`;
  const publicUrl = (options.publicUrl ?? url).replace(/\/+$/, '');
  try {
    agent = await createMediatorAgent({ ...options, clock: options.clock ?? systemClock, ids: options.ids ?? uuid, publicUrl });
  } catch (err) {
    await ws.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw err;
  }
  const running = agent;
  const attached = new Set<PersistentConnection>();
  return {
    url,
    publicUrl,
    did: running.did,
    invitationUrl: running.invitationUrl,
    shortInvitationUrl: running.shortInvitationUrl,
    agent: running,
    ws,
    async serve(req) {
      const url = requestUrl(req.url);
      if (!url) return badTargetResponse();
      if (url.pathname !== '/didcomm' || req.method !== 'POST') return otherRoute(req.method, url);
      const body = req.body ?? '';
      if (Buffer.byteLength(body) > maxBytes) return problemResponse('payload_too_large', `a message may have at most ${maxBytes} bytes`);
      return didcommPost(body, req.contentType);
    },
    attach(connection) {
      attached.add(connection);
      const send = (packed: string) => connection.send(packed);
      // One frame at a time, in order, as on the WebSocket endpoint (ws.ts).
      let chain = Promise.resolve();
      return {
        frame(packed) {
          chain = chain.then(async () => {
            try {
              checkInboundMessage(packed);
            } catch {
              // Not a DIDComm message at all: the WebSocket endpoint closes with 1007 here.
              connection.close();
              return;
            }
            await running.receive(packed, { transport: 'link', reply: send, open: () => connection.open }).catch(() => undefined);
          });
        },
        // "If Live Mode is active, and the connection is broken, a new inbound connection starts with Live Mode disabled."
        closed() {
          attached.delete(connection);
          running.mediator.live.forget(send);
        },
      };
    },
    async close() {
      for (const c of [...attached]) c.close();
      await ws.close();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await running.close();
    },
  };
}

/**
 * The id of the invitation a URL names: `_oob`'s (null when it holds no invitation), else
 * `_oobid`; undefined when it names none.
 */
function invitationIdIn(url: URL): string | null | undefined {
  if (!url.searchParams.has('_oob')) return url.searchParams.get('_oobid') ?? undefined;
  const id = (inspectInvitationUrl(url.href).invitation as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' ? id : null;
}
