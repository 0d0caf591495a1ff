// A fault-injecting proxy between two processes (`idsync proxy`): HTTP requests and WebSocket
// connections to `listen` are forwarded to `target` (same path and query). Faults of a plan
// (fault-plan.ts) apply to DIDComm messages only: POST bodies with a DIDComm media type
// (stream 'to-target'), the DIDComm bodies of their answers (return-routed replies, 'to-client')
// and WebSocket text frames ('to-target' / 'to-client'). Anything else (REST calls, did:web
// documents) is forwarded as it is. What the faults do over HTTP:
// - drop: not forwarded; the client gets 202 as if it had been (a reply: the client gets 202, empty)
// - delay: forwarded after the delay;  duplicate: forwarded twice, the client gets the first answer
// - reorder: the client gets 202 at once; the message is forwarded after the next DIDComm POST
//   (or once `reorderHoldMs` passed); its answer goes nowhere
// - tamper: one character changed (fault-plan.ts tamper)
// - fail503: the client gets 503 with Retry-After, nothing is forwarded
// - disconnect: the client's connection is destroyed without an answer (WebSocket: both sockets close)
// Over WebSocket frames: drop, delay, duplicate, reorder (after the next frame the same way),
// tamper and disconnect.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { isDidcommMediaType } from '../didcomm/transport/media-type.js';
import { IdsyncError } from '../errors.js';
import { requestUrl } from '../net/request-target.js';
import { answerClientError, problemDocument } from '../problem-details.js';
import { listenError } from '../listen.js';
import { delayOf, faultInjector, peekMessage, tamper, type FaultInjector, type FaultKind, type FaultPlan } from './fault-plan.js';
import { pipeWebSockets } from './fault-proxy-ws.js';

export interface FaultProxyOptions {
  /** Port to listen on (0: any free one). */
  listen: number;
  host?: string;
  /** Where requests go: an http(s) origin (a path in it is ignored: requests keep theirs). */
  target: string;
  plan: FaultPlan | FaultInjector;
  /** Largest body forwarded (default 2 MiB). */
  maxBytes?: number;
  sleep?: (ms: number) => Promise<void>;
  reorderHoldMs?: number;
}

export interface FaultProxy {
  url: string;
  readonly injector: FaultInjector;
  close(): Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host', 'content-length']);

interface Forwarded {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export async function startFaultProxy(o: FaultProxyOptions): Promise<FaultProxy> {
  const injector = 'decide' in o.plan ? o.plan : faultInjector(o.plan);
  let target: URL;
  try {
    target = new URL(o.target);
  } catch {
    throw new IdsyncError('invalid_argument', `--target is not a URL: ${o.target}`);
  }
  if (target.protocol !== 'http:') throw new IdsyncError('invalid_argument', `--target must be an http:// origin (got ${target.protocol})`);
  const sleep = o.sleep ?? realSleep;
  const maxBytes = o.maxBytes ?? 2 * 1024 * 1024;
  const holdMs = o.reorderHoldMs ?? 25;
  const held: (() => Promise<unknown>)[] = [];
  const sockets = new Set<Socket>();

  const releaseHeld = async () => {
    for (const f of held.splice(0)) await f().catch(() => undefined);
  };

  function forward(req: http.IncomingMessage, body: Buffer): Promise<Forwarded> {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
    headers['content-length'] = body.length;
    return new Promise((resolve, reject) => {
      const out = http.request({ host: target.hostname, port: target.port || 80, method: req.method, path: req.url, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      out.on('error', reject);
      out.end(body);
    });
  }

  function answer(res: http.ServerResponse, f: Forwarded | { status: number; headers?: http.IncomingHttpHeaders; body?: Buffer }): void {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(f.headers ?? {})) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
    headers['content-length'] = f.body?.length ?? 0;
    res.writeHead(f.status, headers).end(f.body);
  }

  /** The proxy's own refusals (not a fault it injects): problem details with a code, as the twin's. */
  function problemAnswer(status: number, code: string, detail: string): { status: number; headers: http.IncomingHttpHeaders; body: Buffer } {
    return { status, headers: { 'content-type': 'application/problem+json' }, body: Buffer.from(JSON.stringify(problemDocument(status, code, detail))) };
  }

  const OUT: readonly FaultKind[] = ['drop', 'delay', 'duplicate', 'reorder', 'tamper', 'fail503', 'disconnect'];
  const BACK: readonly FaultKind[] = ['drop', 'delay', 'tamper'];

  async function handleDidcomm(req: http.IncomingMessage, res: http.ServerResponse, text: string): Promise<void> {
    const peek = peekMessage(text);
    const subject = { direction: 'to-target', mediaType: peek.mediaType, ...(peek.type ? { type: peek.type } : {}), endpoint: req.url ?? '/' };
    const { faults } = injector.decide(subject, OUT);
    const has = (k: FaultKind) => faults.find((f) => f.kind === k);
    const note = (k: FaultKind, detail?: Record<string, unknown>) => injector.record({ fault: k, rule: has(k)!.rule, ...subject, ...(detail ? { detail } : {}) });
    if (has('disconnect')) {
      note('disconnect');
      req.socket.destroy();
      return;
    }
    if (has('fail503')) {
      const seconds = has('fail503')!.spec.retryAfterSeconds ?? 1;
      note('fail503');
      const body = Buffer.from(JSON.stringify(problemDocument(503, 'temporarily_unavailable', 'fault injected', { retryAfter: seconds })));
      answer(res, { status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': String(seconds) }, body });
      return;
    }
    if (has('drop')) {
      note('drop');
      answer(res, { status: 202 });
      await releaseHeld();
      return;
    }
    let body = text;
    const t = has('tamper');
    if (t) {
      const changed = tamper(body, t.rng);
      body = changed.packed;
      note('tamper', { position: changed.position });
    }
    const d = has('delay');
    if (d) {
      const ms = delayOf(d.spec, d.rng);
      note('delay', { ms });
      await sleep(ms);
    }
    const payload = Buffer.from(body);
    if (has('reorder')) {
      note('reorder');
      answer(res, { status: 202 });
      const send = () => forward(req, payload);
      held.push(send);
      void sleep(holdMs).then(() => {
        const i = held.indexOf(send);
        if (i >= 0) return held.splice(i, 1)[0]().catch(() => undefined);
      });
      return;
    }
    let first: Forwarded;
    try {
      first = await forward(req, payload);
    } finally {
      await releaseHeld();
    }
    if (has('duplicate')) {
      note('duplicate');
      await forward(req, payload).catch(() => undefined);
    }
    // A return-routed reply on the way back.
    if (first.body.length && isDidcommMediaType(first.headers['content-type'])) {
      const replyText = first.body.toString('utf8');
      const rp = peekMessage(replyText);
      const back = { direction: 'to-client', mediaType: rp.mediaType, ...(rp.type ? { type: rp.type } : {}), endpoint: req.url ?? '/' };
      for (const f of injector.decide(back, BACK).faults) {
        const base = { fault: f.kind, rule: f.rule, ...back };
        if (f.kind === 'drop') {
          injector.record(base);
          return answer(res, { status: 202 });
        }
        if (f.kind === 'tamper') {
          const c = tamper(replyText, f.rng);
          first = { ...first, body: Buffer.from(c.packed) };
          injector.record({ ...base, detail: { position: c.position } });
        } else if (f.kind === 'delay') {
          const ms = delayOf(f.spec, f.rng);
          injector.record({ ...base, detail: { ms } });
          await sleep(ms);
        }
      }
    }
    answer(res, first);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) tooBig = true;
      else chunks.push(c);
    });
    req.on('end', () => {
      if (tooBig) return answer(res, problemAnswer(413, 'payload_too_large', `a body may have at most ${maxBytes} bytes here`));
      const body = Buffer.concat(chunks);
      const didcomm = req.method === 'POST' && isDidcommMediaType(req.headers['content-type']);
      const work = didcomm ? handleDidcomm(req, res, body.toString('utf8')) : forward(req, body).then((f) => answer(res, f));
      work.catch(() => {
        if (!res.headersSent) answer(res, problemAnswer(502, 'transport_unreachable', `the target ${target.origin} did not answer`));
        else res.destroy();
      });
    });
  });
  // What the parser refuses gets problem details too, not Node's bare 400.
  server.on('clientError', answerClientError);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  // WebSocket: each client socket gets its own socket to the target; frames are faulted both ways.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBytes });
  server.on('upgrade', (req, socket, head) => {
    // The target is always this proxy's own: only the path and query of what was asked go on.
    const url = requestUrl(req.url);
    if (!url) {
      socket.on('error', () => {});
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const path = url.pathname + url.search;
    wss.handleUpgrade(req, socket, head, (client) => {
      const upstream = new WebSocket(`ws://${target.host}${path}`, { maxPayload: maxBytes });
      pipeWebSockets(client, upstream, injector, { sleep, holdMs, path });
    });
  });

  await new Promise<void>((resolve, reject) => {
    // A port taken, an address not this machine's, a name that does not resolve: coded, as the
    // service and the mediator say them.
    const failed = (err: unknown) => reject(listenError(err, o.host ?? '127.0.0.1', o.listen, 'stop it, or choose another --listen port'));
    server.once('error', failed);
    server.listen(o.listen, o.host ?? '127.0.0.1', () => {
      server.off('error', failed);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    injector,
    async close() {
      await releaseHeld();
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}
