// The harness's own agent: a did:peer:2 whose DIDComm endpoint is an HTTP server on 127.0.0.1
// (port 0), so the agent under test can answer by POST as well as by return route. It packs with
// idsync's envelope code but never runs idsync's router: every message in and out is recorded as
// it was on the wire, opened and checked against the whole rule catalogue (check.ts).
import { EventEmitter } from 'node:events';
import http from 'node:http';
import { WebSocket } from 'ws';
import { randomUUID } from 'node:crypto';
import { didcommService, secretFor } from '../did/document.js';
import { encodePeerDid2, resolvePeerDid } from '../did/peer.js';
import type { DIDDocument, DocumentResolver, Secret } from '../did/types.js';
import { pack } from '../didcomm/envelope/index.js';
import { authcrypt } from '../didcomm/envelope/native-encrypt.js';
import { NativeCall } from '../didcomm/envelope/native-call.js';
import { memorySecrets } from '../didcomm/secrets.js';
import { MEDIA_TYPES, type EnvelopeContext, type EnvelopeMode, type PlainMessage } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import { listen } from '../listen.js';
import { generateKeyPair, toMultikey, type KeyPair } from '../keys.js';
import { errorsOf } from '../conformance/types.js';
import { checkMessageText, fullRegistry, type MessageCheck } from './check.js';
import type { ExchangedMessage } from './types.js';

export interface Received {
  packed: string;
  via: 'return-route' | 'endpoint';
  check: MessageCheck;
  message?: PlainMessage;
  entry: ExchangedMessage;
}

export interface PostOutcome {
  /** How it went: an HTTP POST, or a WebSocket frame (which has no status). */
  transport: 'http' | 'ws';
  /** HTTP status, or undefined when the POST failed (connection refused, timeout) or over WebSocket. */
  status?: number;
  error?: string;
  received: Received[];
  entry: ExchangedMessage;
}

export interface SendOptions {
  mode: EnvelopeMode;
  /** Recipient DID (default: the target). */
  to?: string;
  /** What the entry says was done on purpose. */
  note?: string;
  /** Changes the packed text before it is posted (tampering). */
  mangle?: (packed: string) => string;
}

export interface Counterpart {
  did: string;
  /** The key id and private key the harness signs with (Ed25519, its DID's authentication key). */
  signingKey(): { kid: string; privateKey: Uint8Array };
  /** The same Ed25519 key as the DID's assertionMethod key, for issuing credentials. */
  issuingKey(): { did: string; kid: string; privateKey: Uint8Array };
  /** The base URL of the harness's HTTP server (for invitation URLs it serves at /connect). */
  baseUrl: string;
  /** Serves GET requests (e.g. /connect); undefined answers 404. */
  onGet?: (url: URL) => { status: number; type: string; body: string } | undefined;
  /** The agent under test, once known (an issuer-role run learns it from the first message). */
  target(): string | undefined;
  setTarget(did: string): Promise<void>;
  ctx: EnvelopeContext;
  endpoint: string;
  /** Every message in and out, in order. */
  log: ExchangedMessage[];
  received: Received[];
  /** A message from the harness to the target: id, from, to and created_time filled in. */
  draft(type: string, body: Record<string, unknown>, extra?: Partial<PlainMessage>): PlainMessage;
  send(message: PlainMessage, options: SendOptions): Promise<PostOutcome>;
  /** Authcrypts raw bytes (a message that breaks a MUST pack() refuses to write). */
  sendRaw(plaintext: string, note: string, meta: Partial<ExchangedMessage>): Promise<PostOutcome>;
  /** POSTs text as is, with a content type. */
  post(text: string, contentType: string, entry: Partial<ExchangedMessage>): Promise<PostOutcome>;
  /** The first received message (already in, or arriving within timeoutMs) that `match` accepts. */
  waitFor(match: (r: Received) => boolean, timeoutMs: number): Promise<Received | undefined>;
  close(): Promise<void>;
}

export type HarnessTransport = 'http' | 'ws';

export interface CounterpartOptions {
  /** Reach the agent by HTTP POST or over a WebSocket (default: the first its DID document offers, HTTP preferred). */
  transport?: HarnessTransport;
  /** The agent under test; may be set later (setTarget). */
  target?: string;
  resolve: DocumentResolver;
  /** HTTP timeout of one POST (ms). */
  postTimeoutMs: number;
  host?: string;
}

/** The DIDComm endpoint of a DID document (DIDComm v2 §Service Endpoint) for `transport`, if any: HTTP(S) first unless ws is asked for. */
export function didcommEndpointOf(doc: DIDDocument, transport?: HarnessTransport): { uri: string; transport: HarnessTransport } | undefined {
  const found: Array<{ uri: string; transport: HarnessTransport }> = [];
  for (const s of doc.service ?? []) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.includes('DIDCommMessaging')) continue;
    const eps = Array.isArray(s.serviceEndpoint) ? s.serviceEndpoint : [s.serviceEndpoint];
    for (const ep of eps) {
      const uri = typeof ep === 'string' ? ep : (ep as { uri?: unknown })?.uri;
      if (typeof uri === 'string' && /^https?:/.test(uri)) found.push({ uri, transport: 'http' });
      else if (typeof uri === 'string' && /^wss?:/.test(uri)) found.push({ uri, transport: 'ws' });
    }
  }
  return transport ? found.find((f) => f.transport === transport) : found.find((f) => f.transport === 'http') ?? found[0];
}

export async function startCounterpart(options: CounterpartOptions): Promise<Counterpart> {
  const events = new EventEmitter();
  const log: ExchangedMessage[] = [];
  const received: Received[] = [];
  const started = Date.now();
  const registry = fullRegistry();
  let seq = 0;

  let api!: Counterpart;
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      const answer = api?.onGet?.(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`));
      if (!answer) return void res.writeHead(404).end();
      return void res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
    }
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 1024 * 1024) chunks.push(c);
    });
    req.on('end', () => {
      res.writeHead(202).end();
      void take(Buffer.concat(chunks).toString('utf8'), 'endpoint');
    });
  });
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, 0, host);
  const baseUrl = `http://${host}:${port}`;
  const me = harnessDid(`${baseUrl}/didcomm`);
  const ownDoc = me.document;
  const resolve: DocumentResolver = async (did) => (did === me.did ? ownDoc : options.resolve(did));
  const ctx: EnvelopeContext = { resolve, secrets: memorySecrets(me.secrets), engine: 'native' };

  let target: string | undefined;
  let targetEndpoint: { uri: string; transport: HarnessTransport } | undefined;
  async function setTarget(did: string): Promise<void> {
    const doc = await resolve(did);
    if (!doc) throw new IdsyncError('did_not_resolved', `cannot resolve the target ${did}`);
    target = did;
    targetEndpoint = didcommEndpointOf(doc, options.transport);
  }
  // One WebSocket to the agent, opened on first use and again after the agent closed it; what
  // arrives on it is a reply on the same connection (return route).
  let socket: Promise<WebSocket> | undefined;
  const sockets = new Set<WebSocket>();
  const openSocket = (uri: string): Promise<WebSocket> => {
    socket ??= new Promise<WebSocket>((resolveWs, rejectWs) => {
      const ws = new WebSocket(uri);
      sockets.add(ws);
      ws.on('open', () => resolveWs(ws));
      ws.on('error', (err) => {
        socket = undefined;
        rejectWs(err);
      });
      ws.on('close', () => (socket = undefined));
      ws.on('message', (data) => void take(data.toString(), 'return-route'));
    });
    return socket;
  };
  if (options.target) await setTarget(options.target);

  const entry = (e: Omit<ExchangedMessage, 'seq' | 'atMs'>): ExchangedMessage => {
    const full = { seq: ++seq, atMs: Date.now() - started, ...e };
    log.push(full);
    return full;
  };

  async function take(packed: string, via: Received['via']): Promise<Received> {
    const check = await checkMessageText(packed, ctx, { registry });
    const m = check.message;
    const broken = [...new Set(errorsOf(check.results).map((r) => r.rule))];
    const e = entry({
      direction: 'received', via, mode: check.metadata?.mode ?? (m ? 'plaintext' : 'unreadable'),
      ...(m ? { type: String(m.type), id: String(m.id), ...(m.thid ? { thid: m.thid } : {}), ...(m.pthid ? { pthid: m.pthid } : {}) } : {}),
      ...(typeof m?.body?.code === 'string' ? { problemCode: m.body.code } : {}),
      ...(broken.length ? { broken } : {}),
    });
    const r: Received = { packed, via, check, ...(m ? { message: m } : {}), entry: e };
    received.push(r);
    events.emit('received', r);
    return r;
  }

  async function postText(text: string, contentType: string, e: ExchangedMessage): Promise<PostOutcome> {
    if (!targetEndpoint) throw new IdsyncError('invalid_argument', `${target ?? 'the target'} names no DIDComm ${options.transport ?? 'HTTP(S) or WebSocket'} endpoint in its DID document`);
    if (targetEndpoint.transport === 'ws') {
      try {
        const uri = targetEndpoint.uri;
        const sendOnce = async () => {
          const ws = await openSocket(uri);
          if (ws.readyState !== WebSocket.OPEN) throw new Error(`WebSocket is not open (readyState ${ws.readyState})`);
          await new Promise<void>((resolveSend, rejectSend) => ws.send(text, (err) => (err ? rejectSend(err) : resolveSend())));
        };
        // The agent may have closed the connection (after junk, say): once more on a new one.
        await sendOnce().catch(() => {
          socket = undefined;
          return sendOnce();
        });
        return { transport: 'ws', received: [], entry: e };
      } catch (err) {
        const error = (err as Error)?.message ?? String(err);
        e.note = [e.note, `WebSocket send failed: ${error}`].filter(Boolean).join('; ');
        return { transport: 'ws', error, received: [], entry: e };
      }
    }
    try {
      const res = await fetch(targetEndpoint.uri, { method: 'POST', headers: { 'content-type': contentType }, body: text, signal: AbortSignal.timeout(options.postTimeoutMs), redirect: 'manual' });
      e.httpStatus = res.status;
      const body = await res.text();
      const out: Received[] = [];
      // A return-routed reply travels back in a 200 body (DIDComm v2 return_route extension).
      if (res.status >= 200 && res.status < 300 && body.trim().startsWith('{') && /didcomm|json/.test(res.headers.get('content-type') ?? '')) {
        out.push(await take(body, 'return-route'));
      }
      return { transport: 'http', status: res.status, received: out, entry: e };
    } catch (err) {
      const error = (err as Error)?.message ?? String(err);
      e.note = [e.note, `POST failed: ${error}`].filter(Boolean).join('; ');
      return { transport: 'http', error, received: [], entry: e };
    }
  }

  api = {
    did: me.did,
    baseUrl,
    target: () => target,
    setTarget,
    signingKey() {
      return { kid: `${me.did}#key-2`, privateKey: me.signing.privateKey };
    },
    issuingKey() {
      return { did: me.did, kid: `${me.did}#key-3`, privateKey: me.issuing.privateKey };
    },
    ctx,
    endpoint: `${baseUrl}/didcomm`,
    log,
    received,
    draft(type, body, extra = {}) {
      return { id: randomUUID(), type, from: me.did, ...(target ? { to: [target] } : {}), created_time: Math.floor(Date.now() / 1000), body, ...extra };
    },
    async send(message, o) {
      const to = o.to ?? target;
      if (!to) throw new IdsyncError('invalid_argument', 'no agent under test to send to yet');
      const packOptions = { mode: o.mode, to, from: me.did };
      const packed = (await pack(message, packOptions, ctx)).packed;
      const text = o.mangle ? o.mangle(packed) : packed;
      const e = entry({
        direction: 'sent', via: 'http-post', mode: o.mode, type: message.type, id: message.id,
        ...(message.thid ? { thid: message.thid } : {}), ...(o.note ? { note: o.note } : {}),
      });
      const mediaType = o.mode === 'plaintext' ? MEDIA_TYPES.plaintext : o.mode === 'signed' ? MEDIA_TYPES.signed : MEDIA_TYPES.encrypted;
      return postText(text, mediaType, e);
    },
    async sendRaw(plaintext, note, meta) {
      if (!target) throw new IdsyncError('invalid_argument', 'no agent under test to send to yet');
      const { packed } = await authcrypt(Buffer.from(plaintext), { to: target, from: me.did, protect: false, encAnon: 'XC20P' }, new NativeCall(ctx));
      const e = entry({ direction: 'sent', via: 'http-post', mode: 'authcrypt', note, ...meta });
      return postText(packed, MEDIA_TYPES.encrypted, e);
    },
    async post(text, contentType, meta) {
      const e = entry({ direction: 'sent', via: 'http-post', mode: 'unreadable', ...meta });
      return postText(text, contentType, e);
    },
    waitFor(match, timeoutMs) {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => {
        const onReceived = (r: Received) => {
          if (!match(r)) return;
          clearTimeout(timer);
          events.off('received', onReceived);
          resolve(r);
        };
        const timer = setTimeout(() => {
          events.off('received', onReceived);
          resolve(undefined);
        }, timeoutMs);
        events.on('received', onReceived);
      });
    },
    close: () => new Promise<void>((resolve) => {
      // Every connection ever opened goes at once (no close handshake to wait for).
      for (const ws of sockets) ws.terminate();
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
  return api;
}

/**
 * The harness's did:peer:2: an X25519 key (E, key-1), an Ed25519 key that authenticates (V, key-2),
 * another Ed25519 key that issues (A, key-3: credentials it issues in the issuer role verify), and
 * its DIDComm endpoint. E before V and no key listed twice: Veramo's resolver (@aviarytech/did-peer)
 * skips A elements and merges nothing, so only this order gives E and V the same ids (#key-1,
 * #key-2) there as in the DIF numbering idsync, Identus and didcomm-node agents use.
 */
function harnessDid(endpoint: string): { did: string; document: DIDDocument; secrets: Secret[]; signing: KeyPair; issuing: KeyPair } {
  const agree = generateKeyPair('X25519');
  const signing = generateKeyPair('Ed25519');
  const issuing = generateKeyPair('Ed25519');
  const did = encodePeerDid2({
    keys: [
      { purpose: 'E', publicKeyMultibase: toMultikey(agree) },
      { purpose: 'V', publicKeyMultibase: toMultikey(signing) },
      { purpose: 'A', publicKeyMultibase: toMultikey(issuing) },
    ],
    services: [didcommService('#didcomm', endpoint) as unknown as Record<string, unknown>],
  });
  return { did, document: resolvePeerDid(did), secrets: [secretFor(`${did}#key-1`, agree), secretFor(`${did}#key-2`, signing)], signing, issuing };
}
