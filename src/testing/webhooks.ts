// A webhook receiver for tests: an HTTP server on 127.0.0.1 (port 0) that checks every POST's
// Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature), keeps what
// arrived, drops redeliveries of an id it already has (Standard Webhooks "Idempotency"), and
// lets tests await a webhook by event name and params without sleeping.
import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { systemClock, type Clock } from '../clock.js';
import { toIdsyncError } from '../errors.js';
import { listen, urlHost } from '../listen.js';
import { generateWebhookSecret, verifyWebhook } from '../service/webhooks/signature.js';
import { untilTimeout, type WaitOptions } from './wait.js';

/** The body of every webhook (vendor-facts "Webhooks"). */
export interface WebhookEvent {
  type: string;
  action: string | null;
  event: string;
  params: Record<string, unknown>;
}

export interface ReceivedWebhook {
  /** webhook-id: the service's event id, stable across retries. */
  id: string;
  event: WebhookEvent;
  /** Whether the signature and timestamp checked out; unverified ones are answered 401. */
  verified: boolean;
  error?: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface WebhookReceiver {
  /** Where the service should POST (subscribe this URL). */
  readonly url: string;
  /** The `whsec_` secret the subscription must use. */
  readonly secret: string;
  /** Verified webhooks, in arrival order, one per webhook-id. */
  readonly received: ReceivedWebhook[];
  /** Requests that failed the signature check (answered 401). */
  readonly rejected: ReceivedWebhook[];
  on(name: 'webhook', listener: (w: ReceivedWebhook) => void): void;
  off(name: 'webhook', listener: (w: ReceivedWebhook) => void): void;
  close(): Promise<void>;
}

export interface WebhookReceiverOptions {
  secret?: string;
  host?: string;
  port?: number;
  /** The clock the signature timestamp is checked against (the service's, when it is a ManualClock). */
  clock?: Clock;
}

/** Consumed webhook ids per receiver: each waitForWebhook call returns a different webhook. */
const consumed = new WeakMap<WebhookReceiver, Set<string>>();

export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const secret = options.secret ?? generateWebhookSecret();
  const clock = options.clock ?? systemClock;
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const received: ReceivedWebhook[] = [];
  const rejected: ReceivedWebhook[] = [];
  const seen = new Set<string>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '');
      const rec: ReceivedWebhook = { id, event: parseEvent(body), verified: false, headers: req.headers, body, receivedAt: clock.now() };
      try {
        verifyWebhook(secret, req.headers, body, { nowSec: Math.floor(clock.now() / 1000) });
        rec.verified = true;
      } catch (err) {
        rec.error = toIdsyncError(err).message;
      }
      if (!rec.verified) {
        rejected.push(rec);
        res.writeHead(401, { 'content-type': 'text/plain' }).end('bad signature');
        return;
      }
      res.writeHead(204).end();
      if (seen.has(id)) return; // a retry of something we already have
      seen.add(id);
      received.push(rec);
      emitter.emit('webhook', rec);
    });
  });
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, options.port ?? 0, host);
  return {
    url: `http://${urlHost(host)}:${port}/webhooks`,
    secret,
    received,
    rejected,
    on: (name, listener) => void emitter.on(name, listener),
    off: (name, listener) => void emitter.off(name, listener),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseEvent(body: string): WebhookEvent {
  try {
    const v = JSON.parse(body) as WebhookEvent;
    if (v && typeof v.event === 'string') return { type: v.type, action: v.action ?? null, event: v.event, params: v.params ?? {} };
  } catch {
    // not JSON: kept with an empty event so that it shows up in failure messages
  }
  return { type: '', action: null, event: '', params: {} };
}

export interface WebhookMatch {
  event: string;
  type?: string;
  /** Every given param must equal the webhook's (a function is called with the value instead). */
  params?: Record<string, unknown | ((value: unknown) => boolean)>;
}

export function webhookMatches(w: ReceivedWebhook, m: WebhookMatch): boolean {
  if (!w.verified || w.event.event !== m.event || (m.type !== undefined && w.event.type !== m.type)) return false;
  for (const [k, want] of Object.entries(m.params ?? {})) {
    const got = w.event.params[k];
    if (typeof want === 'function' ? !(want as (v: unknown) => boolean)(got) : got !== want) return false;
  }
  return true;
}

/**
 * The oldest verified webhook matching `match` that no earlier call returned; if none arrived
 * yet, the next one. Fails after `timeoutMs` naming the awaited event and the events seen.
 */
export function waitForWebhook(receiver: WebhookReceiver, match: WebhookMatch, options: WaitOptions = {}): Promise<ReceivedWebhook> {
  let used = consumed.get(receiver);
  if (!used) consumed.set(receiver, (used = new Set()));
  const taken = used;
  const pick = (w: ReceivedWebhook) => !taken.has(w.id) && webhookMatches(w, match);
  const what = `webhook ${match.event}${match.params ? ` ${describeParams(match.params)}` : ''}`;
  return untilTimeout(what, options, (resolve, _reject, onCleanup) => {
    const take = (w: ReceivedWebhook) => {
      taken.add(w.id);
      resolve(w);
    };
    const existing = receiver.received.find(pick);
    if (existing) return take(existing);
    const listener = (w: ReceivedWebhook) => {
      if (pick(w)) take(w);
    };
    receiver.on('webhook', listener);
    onCleanup(() => receiver.off('webhook', listener));
  }, () => {
    const events = receiver.received.map((w) => w.event.event);
    const tail = events.slice(-8).join(', ') || 'none';
    return `${receiver.received.length} webhook(s) received (last: ${tail})${receiver.rejected.length ? `, ${receiver.rejected.length} with a bad signature` : ''}`;
  });
}

function describeParams(params: WebhookMatch['params']): string {
  return JSON.stringify(Object.fromEntries(Object.entries(params ?? {}).map(([k, v]) => [k, typeof v === 'function' ? '<predicate>' : v])));
}

