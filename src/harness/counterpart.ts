// The harness's own agent: a DID of its own (did:peer:2 by default, or a did:web it serves itself)
// whose DIDComm endpoint is an HTTP server on 127.0.0.1 (port 0), so the agent under test can
// answer by POST as well as by return route. It packs with idsync's envelope code but never runs
// idsync's router: every message in and out is recorded as it was on the wire, with the HTTP
// answer each POST got, and every message the agent sends is opened and checked against the
// whole rule catalogue (check.ts).
import { EventEmitter } from 'node:events';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { ruleOf } from '../conformance/catalogue.js';
import type { DocumentResolver } from '../did/types.js';
import { resolutionFailure } from '../did/resolver.js';
import { pack } from '../didcomm/envelope/index.js';
import { anoncrypt, authcrypt } from '../didcomm/envelope/native-encrypt.js';
import { NativeCall } from '../didcomm/envelope/native-call.js';
import { memorySecrets } from '../didcomm/secrets.js';
import { MEDIA_TYPES, type EnvelopeContext, type PlainMessage } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import { listen } from '../listen.js';
import { agentLink, type PostOutcome, type Received } from './agent-link.js';
import { checkMessageText, fullRegistry } from './check.js';
import { didcommEndpointOf, type HarnessTransport } from './endpoint.js';
import { harnessIdentity, type HarnessDidMethod } from './harness-did.js';
import { envelopeModeOf, flattenJws, HARNESS_ANON_ENC, mediaTypeOf } from './modes.js';
import type { ExchangedMessage, HarnessMode } from './types.js';
import { kept, openedSummary, protectedHeadersOf } from './wire.js';
import { requestUrl } from '../net/request-target.js';

export type { HarnessTransport } from './endpoint.js';
export type { PostOutcome, Received } from './agent-link.js';

export interface SendOptions {
  mode: HarnessMode;
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
  /** The Ed25519 key of the DID's assertionMethod, for issuing credentials. */
  issuingKey(): { did: string; kid: string; privateKey: Uint8Array };
  /** The base URL of the harness's HTTP server (for invitation URLs it serves at /connect). */
  baseUrl: string;
  /** Serves GET requests (e.g. /connect); undefined answers 404. */
  onGet?: (url: URL) => { status: number; type: string; body: string } | undefined;
  /** The agent under test, once known (an issuer-role run learns it from the first message). */
  target(): string | undefined;
  setTarget(did: string): Promise<void>;
  /** Why the agent cannot be reached over the chosen transport (no such endpoint in its DID document), if so. */
  unreachable(): string | undefined;
  ctx: EnvelopeContext;
  endpoint: string;
  /** Every message in and out, in order. */
  log: ExchangedMessage[];
  received: Received[];
  /** How many received messages each rule was checked on. */
  rulesChecked: Map<string, number>;
  /** A message from the harness to the target: id, from, to and created_time filled in. */
  draft(type: string, body: Record<string, unknown>, extra?: Partial<PlainMessage>): PlainMessage;
  send(message: PlainMessage, options: SendOptions): Promise<PostOutcome>;
  /** Authcrypts or anoncrypts raw bytes (a message that breaks a MUST pack() refuses to write); plaintext posts them as they are. */
  sendRaw(plaintext: string, note: string, meta: Partial<ExchangedMessage>, mode?: RawMode): Promise<PostOutcome>;
  /** POSTs text as is, with a content type. */
  post(text: string, contentType: string, entry: Partial<ExchangedMessage>): Promise<PostOutcome>;
  /**
   * The first received message (already in, or arriving within timeoutMs) that `match` accepts;
   * undefined at once when `until` settles first (the socket the answer was awaited on closed).
   */
  waitFor(match: (r: Received) => boolean, timeoutMs: number, until?: Promise<unknown>): Promise<Received | undefined>;
  /**
   * Answers the next POST to the harness's endpoint with 307 Temporary Redirect to a path of its
   * own (DIDComm v2.1 §Transports HTTPS: "HTTPS Redirects SHOULD be followed"), without reading
   * it; the same bytes POSTed at that Location are read as any message.
   */
  redirectNext(): Redirect;
  close(): Promise<void>;
}

/** A one-shot redirect of the harness's endpoint (redirectNext). */
export interface Redirect {
  /** The absolute URL the 307 names. */
  location: string;
  /** The entry of the POST answered 307, once one was. */
  answered(): ExchangedMessage | undefined;
  /**
   * Whether the POST answered 307 came again, the same bytes, at the Location (waits up to
   * timeoutMs). When `until` settles before any POST was answered 307 (the socket the message it
   * should answer went on closed), false at once; once one was, its second POST is awaited as before.
   */
  followed(timeoutMs?: number, until?: Promise<unknown>): Promise<boolean>;
  /** Disarms it (a POST not yet answered 307 is taken as usual). */
  cancel(): void;
}

/** The envelopes raw bytes can be sent in. */
export type RawMode = 'authcrypt' | 'anoncrypt' | 'plaintext';

export interface CounterpartOptions {
  /** Reach the agent by HTTP POST or over a WebSocket (default: the first its DID document offers, HTTP preferred). */
  transport?: HarnessTransport;
  /** The agent under test; may be set later (setTarget). */
  target?: string;
  resolve: DocumentResolver;
  /** HTTP timeout of one POST (ms). */
  postTimeoutMs: number;
  host?: string;
  /** The harness's DID method (default did:peer:2). */
  as?: HarnessDidMethod;
  /** Called as things happen: a message sent (before its POST), the answer to it, a message received. */
  onEntry?: (entry: ExchangedMessage, event: 'sent' | 'answered' | 'received') => void;
}

/** An agent's HTTP answer is read within this bound; more is not an answer to one message. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export async function startCounterpart(options: CounterpartOptions): Promise<Counterpart> {
  const events = new EventEmitter();
  const log: ExchangedMessage[] = [];
  const received: Received[] = [];
  const started = Date.now();
  const registry = fullRegistry();
  const rulesChecked = new Map<string, number>();
  let seq = 0;
  /** Waits not yet settled (waitFor, Redirect.followed): close() ends them, timers and listeners with them. */
  const pending = new Set<(r?: Received) => void>();
  let closed = false;

  let api!: Counterpart;
  let wellKnown: string | undefined;
  /** The armed one-shot redirect: its path, the POST it answered 307 (entry and bytes), whether they came again there. */
  let redirect: { path: string; location: string; body?: string; entry?: ExchangedMessage; came?: boolean } | undefined;
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      const url = requestUrl(req.url);
      if (!url) return void res.writeHead(400).end();
      if (url.pathname === '/.well-known/did.json' && wellKnown) return void res.writeHead(200, { 'content-type': 'application/did+json' }).end(wellKnown);
      const answer = api?.onGet?.(url);
      if (!answer) return void res.writeHead(404).end();
      return void res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
    }
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_ANSWER_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r = redirect;
      if (r && !r.body) {
        r.body = body;
        res.writeHead(307, { location: r.location }).end();
        void redirected(r, body);
        return;
      }
      const again = r?.body !== undefined && requestUrl(req.url)?.pathname === r.path && body === r.body;
      res.writeHead(202).end();
      // Followed once it is read: what it brought counts in the case that redirected it.
      void take(body, 'endpoint').finally(() => {
        if (!again) return;
        r!.came = true;
        events.emit('redirect-followed');
      });
    });
  });
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, 0, host);
  const baseUrl = `http://${host}:${port}`;
  const me = harnessIdentity(options.as ?? 'did:peer:2', baseUrl, `${baseUrl}/didcomm`);
  wellKnown = me.wellKnown;
  const ownDoc = me.document;
  const resolve: DocumentResolver = async (did) => (did === me.did ? ownDoc : options.resolve(did));
  const ctx: EnvelopeContext = { resolve, secrets: memorySecrets(me.secrets), engine: 'native' };

  let target: string | undefined;
  let targetEndpoint: { uri: string; transport: HarnessTransport } | undefined;
  async function setTarget(did: string): Promise<void> {
    const doc = await resolve(did);
    if (!doc) {
      const why = resolutionFailure(options.resolve, did);
      throw new IdsyncError('did_not_resolved', `cannot resolve the target ${did}${why ? ` (${why})` : ''}`, { details: { did, ...(why ? { reason: why } : {}) } });
    }
    target = did;
    targetEndpoint = didcommEndpointOf(doc, options.transport);
  }
  const unreachable = () =>
    target && !targetEndpoint ? `${target} names no DIDComm ${options.transport === 'ws' ? 'WebSocket (ws/wss)' : options.transport === 'http' ? 'HTTP(S)' : 'HTTP(S) or WebSocket'} endpoint in its DID document` : undefined;
  const link = agentLink({
    endpoint: () => targetEndpoint,
    unreachable,
    postTimeoutMs: options.postTimeoutMs,
    maxAnswerBytes: MAX_ANSWER_BYTES,
    take: (text) => take(text, 'return-route'),
    onAnswered: (e) => options.onEntry?.(e, 'answered'),
  });
  if (options.target) {
    try {
      await setTarget(options.target);
    } catch (err) {
      // Nobody gets this counterpart to close: its listening server would keep the process alive.
      link.close();
      server.close();
      throw err;
    }
  }

  const entry = (e: Omit<ExchangedMessage, 'seq' | 'atMs'>): ExchangedMessage => {
    const full = { seq: ++seq, atMs: Date.now() - started, ...e };
    log.push(full);
    return full;
  };

  /**
   * Records the POST answered 307: opened to say what it was, not judged and not taken (the same
   * bytes POSTed at the Location are).
   */
  async function redirected(r: NonNullable<typeof redirect>, packed: string): Promise<void> {
    const m = await checkMessageText(packed, ctx, { registry }).then(
      (c) => ({ mode: (c.metadata?.mode ?? (c.message ? 'plaintext' : 'unreadable')) as ExchangedMessage['mode'], message: c.message }),
      () => ({ mode: 'unreadable' as const, message: undefined }),
    );
    const wire = kept(packed);
    r.entry = entry({
      direction: 'received', via: 'endpoint', mode: m.mode, httpStatus: 307,
      ...(m.message ? { type: String(m.message.type), id: String(m.message.id), ...(m.message.thid ? { thid: m.message.thid } : {}) } : {}),
      note: `answered 307 Temporary Redirect to ${r.location}; judged when it comes again there`,
      wire: wire.truncated ? `${wire.text}…` : wire.text,
    });
    options.onEntry?.(r.entry, 'received');
  }

  async function take(packed: string, via: Received['via']): Promise<Received> {
    const check = await checkMessageText(packed, ctx, { registry });
    for (const rule of new Set(check.results.map((r) => r.rule))) rulesChecked.set(rule, (rulesChecked.get(rule) ?? 0) + 1);
    const m = check.message;
    const findings = check.results
      .filter((r) => !r.ok)
      .map((r) => ({ rule: ruleOf(r.rule) ? r.rule : 'conformance.rule-crashed', severity: r.severity, detail: r.detail ?? 'broken' }));
    const broken = [...new Set(findings.filter((f) => f.severity === 'error').map((f) => f.rule))];
    const wire = kept(packed);
    const headers = protectedHeadersOf(packed);
    const e = entry({
      direction: 'received', via, mode: check.metadata?.mode ?? (m ? 'plaintext' : 'unreadable'),
      ...(m ? { type: String(m.type), id: String(m.id), ...(m.thid ? { thid: m.thid } : {}), ...(m.pthid ? { pthid: m.pthid } : {}) } : {}),
      ...(typeof m?.body?.code === 'string' ? { problemCode: m.body.code } : {}),
      ...(broken.length ? { broken } : {}),
      ...(findings.length ? { findings } : {}),
      ...(m ? { plaintext: JSON.stringify(m, null, 2) } : {}),
      wire: wire.truncated ? `${wire.text}…` : wire.text,
      ...(headers ? { protectedHeaders: headers } : {}),
      opened: openedSummary(check),
    });
    const r: Received = { packed, via, check, ...(m ? { message: m } : {}), entry: e };
    received.push(r);
    options.onEntry?.(e, 'received');
    events.emit('received', r);
    return r;
  }

  const sentEntry = (message: PlainMessage | undefined, mode: ExchangedMessage['mode'], packed: string, extra: Partial<ExchangedMessage>) => {
    const headers = protectedHeadersOf(packed);
    const wire = kept(packed);
    const e = entry({
      direction: 'sent', via: 'http-post', mode,
      ...(message ? { type: message.type, id: message.id, ...(message.thid ? { thid: message.thid } : {}), ...(message.pthid ? { pthid: message.pthid } : {}), plaintext: JSON.stringify(message, null, 2) } : {}),
      wire: wire.truncated ? `${wire.text}…` : wire.text,
      ...(headers ? { protectedHeaders: headers } : {}),
      ...extra,
    });
    options.onEntry?.(e, 'sent');
    return e;
  };

  api = {
    did: me.did,
    baseUrl,
    target: () => target,
    setTarget,
    unreachable,
    signingKey() {
      return { kid: me.authentication.kid, privateKey: me.authentication.keys.privateKey };
    },
    issuingKey() {
      return { did: me.did, kid: me.assertion.kid, privateKey: me.assertion.keys.privateKey };
    },
    ctx,
    endpoint: `${baseUrl}/didcomm`,
    log,
    received,
    rulesChecked,
    draft(type, body, extra = {}) {
      return { id: randomUUID(), type, from: me.did, ...(target ? { to: [target] } : {}), created_time: Math.floor(Date.now() / 1000), body, ...extra };
    },
    async send(message, o) {
      const to = o.to ?? target;
      if (!to) throw new IdsyncError('invalid_argument', 'no agent under test to send to yet');
      const packOptions = { mode: envelopeModeOf(o.mode), to, from: me.did, encAlgAnon: HARNESS_ANON_ENC };
      let packed = (await pack(message, packOptions, ctx)).packed;
      if (o.mode === 'signed-flattened') packed = flattenJws(packed);
      const text = o.mangle ? o.mangle(packed) : packed;
      const e = sentEntry(message, o.mode, text, o.note ? { note: o.note } : {});
      const returnRoute = message.return_route === 'all' || message.return_route === 'thread';
      return link.send(text, mediaTypeOf(o.mode), e, returnRoute);
    },
    async sendRaw(plaintext, note, meta, mode = 'authcrypt') {
      if (!target) throw new IdsyncError('invalid_argument', 'no agent under test to send to yet');
      const bytes = Buffer.from(plaintext);
      const packed = mode === 'plaintext'
        ? plaintext
        : mode === 'anoncrypt'
          ? (await anoncrypt(bytes, target, HARNESS_ANON_ENC, new NativeCall(ctx))).packed
          : (await authcrypt(bytes, { to: target, from: me.did, protect: false, encAnon: HARNESS_ANON_ENC }, new NativeCall(ctx))).packed;
      const e = sentEntry(undefined, mode, packed, { note, plaintext, ...meta });
      return link.send(packed, mode === 'plaintext' ? MEDIA_TYPES.plaintext : MEDIA_TYPES.encrypted, e);
    },
    async post(text, contentType, meta) {
      const e = sentEntry(undefined, 'unreadable', text, meta);
      return link.send(text, contentType, e);
    },
    waitFor(match, timeoutMs, until) {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      if (closed) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const settle = (r: Received | undefined) => {
          clearTimeout(timer);
          events.off('received', onReceived);
          pending.delete(settle);
          resolve(r);
        };
        const onReceived = (r: Received) => {
          if (match(r)) settle(r);
        };
        const timer = setTimeout(() => settle(undefined), timeoutMs);
        events.on('received', onReceived);
        pending.add(settle);
        // A message that came in the same turn as the close still counts: looked for once more.
        void until?.then(() => settle(received.find(match)), () => settle(received.find(match)));
      });
    },
    redirectNext() {
      const path = `/didcomm/moved/${randomUUID()}`;
      const r: NonNullable<typeof redirect> = { path, location: `${baseUrl}${path}` };
      redirect = r;
      return {
        location: r.location,
        answered: () => r.entry,
        followed(timeoutMs = 0, until) {
          if (r.came || timeoutMs <= 0 || closed) return Promise.resolve(r.came === true);
          return new Promise<boolean>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              events.off('redirect-followed', done);
              pending.delete(done);
              resolve(r.came === true);
            };
            const timer = setTimeout(done, timeoutMs);
            events.on('redirect-followed', done);
            pending.add(done);
            // The second POST comes to the harness's own endpoint, not on that socket: once the
            // first was answered 307, a close says nothing of whether it will come.
            const unlessRedirected = () => (r.body === undefined ? done() : undefined);
            void until?.then(unlessRedirected, unlessRedirected);
          });
        },
        cancel() {
          // Its Location keeps being read as the endpoint: a late re-POST is still a message.
          if (r.body === undefined) redirect = undefined;
        },
      };
    },
    close: () => new Promise<void>((resolve) => {
      // Waits still pending end now, with nothing: a wait that lost a race (an answer or a problem
      // report, whichever comes first) would otherwise keep its timer, and the process, alive for
      // up to a case timeout after the run has ended.
      closed = true;
      for (const settle of [...pending]) settle(undefined);
      // Every connection ever opened goes at once (no close handshake to wait for).
      link.close();
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
  return api;
}
