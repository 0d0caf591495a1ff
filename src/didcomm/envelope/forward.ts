// Routing Protocol 2.0 (DIDComm v2 §Routing): reading a forward, and (native engine) wrapping a
// packed message in forwards, one per routing key, each anoncrypted to its mediator's key. The
// routing keys come from the recipient's DIDCommMessaging service; a service whose endpoint is a
// DID adds that mediator's endpoint and keys (§Using a DID as an endpoint). Forwards are built
// the way didcomm-node builds them: a fresh id, body {next}, the packed message as the first
// attachment's json.
import { randomUUID } from 'node:crypto';
import { IdsyncError } from '../../errors.js';
import type { PlainMessage } from '../types.js';
import type { LibDidDoc, LibService } from './adapters.js';
import type { ContentEnc } from './jwe/content.js';
import { serializePlaintext } from './jwm.js';
import { didAndFragment, isDid, type NativeCall } from './native-call.js';
import { anoncrypt } from './native-encrypt.js';
import { invalidArgument, isObject } from './refusal.js';

/** Forward message type (DIDComm v2 "Routing Protocol 2.0"). */
export const FORWARD_TYPE = 'https://didcomm.org/routing/2.0/forward';

/**
 * A forward's `next` and the packed message its first attachment holds: the data.json object as
 * it stands, or the text data.base64 decodes to. Other message types give null; a forward missing
 * either part fails with 'didcomm_malformed' (an array in data.json, or base64 of something other
 * than a JSON object's text, holds no packed message).
 */
function forwardParts(msg: PlainMessage): { next: string; attachment: object | string } | null {
  if (msg?.type !== FORWARD_TYPE) return null;
  const next = (msg.body as { next?: unknown } | undefined)?.next;
  if (typeof next !== 'string' || next === '') throw new IdsyncError('didcomm_malformed', 'forward: body.next must be a DID or key id');
  const data = msg.attachments?.[0]?.data;
  let attachment: object | string | undefined;
  if (data?.json !== undefined && data.json !== null && typeof data.json === 'object') {
    if (!Array.isArray(data.json)) attachment = data.json;
  } else if (typeof data?.base64 === 'string') {
    const text = Buffer.from(data.base64, 'base64').toString('utf8');
    if (text.trimStart().startsWith('{')) attachment = text;
  }
  if (attachment === undefined) {
    throw new IdsyncError('didcomm_malformed', 'forward: the first attachment must hold the message to forward (json or base64)');
  }
  return { next, attachment };
}

/**
 * Reads a forward (DIDComm v2 "Routing Protocol 2.0"): `next` is the DID or key to pass to, and
 * `attachment` the packed message to pass on, as a string. Other message types give null; a
 * forward missing either part fails with 'didcomm_malformed'. A base64 attachment is allowed.
 */
export function parseForward(msg: PlainMessage): { next: string; attachment: string } | null {
  const parts = forwardParts(msg);
  if (!parts) return null;
  return { next: parts.next, attachment: typeof parts.attachment === 'string' ? parts.attachment : JSON.stringify(parts.attachment) };
}

/**
 * The key ids the message a forward carries is encrypted to, read from its attachment as it
 * stands (data.json's `recipients`), not from the attachment written out as text and parsed
 * again: a mediator opening a forward only asks whether that message is for it, and the text of
 * a message it queues is made once, by whoever takes it. Undefined when parseForward would refuse
 * the forward or the attachment is not a JWE with recipients.
 */
export function forwardedKids(msg: PlainMessage): string[] | undefined {
  let jwe: unknown;
  try {
    const parts = forwardParts(msg);
    if (!parts) return undefined;
    jwe = typeof parts.attachment === 'string' ? JSON.parse(parts.attachment) : parts.attachment;
  } catch {
    return undefined;
  }
  const recipients = (jwe as { recipients?: unknown }).recipients;
  if (!Array.isArray(recipients)) return undefined;
  return recipients.map((r) => (r as { header?: { kid?: unknown } } | null)?.header?.kid).filter((k): k is string => typeof k === 'string');
}

function forwardMessage(packed: string, next: string, headers: Record<string, unknown>): string {
  let json: unknown;
  try {
    json = JSON.parse(packed);
  } catch {
    throw new IdsyncError('didcomm_malformed', 'wrapInForward: the packed message is not JSON');
  }
  if (!isObject(json)) throw new IdsyncError('didcomm_malformed', 'wrapInForward: the packed message is not a JSON object');
  return serializePlaintext({ ...headers, id: randomUUID(), type: FORWARD_TYPE, body: { next }, attachments: [{ data: { json } }] });
}

/** Wraps `packed` for `to` through `routingKeys` (the last one outermost), each layer anoncrypted. */
export async function wrapNative(
  packed: string,
  o: { to: string; routingKeys: string[]; headers?: Record<string, unknown>; enc: ContentEnc },
  call: NativeCall,
): Promise<string> {
  // Layer i goes to routingKeys[i] and names the next hop: routingKeys[i + 1], or `to` for the last.
  let msg = packed;
  for (let i = o.routingKeys.length - 1; i >= 0; i--) {
    const next = i === o.routingKeys.length - 1 ? o.to : o.routingKeys[i + 1]!;
    msg = (await anoncrypt(Buffer.from(forwardMessage(msg, next, o.headers ?? {}), 'utf8'), o.routingKeys[i]!, o.enc, call)).packed;
  }
  return msg;
}

type Found = { id: string; endpoint: LibService['serviceEndpoint'] };

/** The first DIDCommMessaging service of a document that accepts didcomm/v2 (or says nothing of profiles). */
function serviceOf(doc: LibDidDoc): Found | undefined {
  const svc = doc.service.find((s) => !s.serviceEndpoint.accept?.length || s.serviceEndpoint.accept.includes('didcomm/v2'));
  return svc ? { id: svc.id, endpoint: svc.serviceEndpoint } : undefined;
}

async function didcommService(did: string, call: NativeCall): Promise<Found | undefined> {
  return serviceOf(await call.requireDoc(did, 'service'));
}

/**
 * True when this call has already loaded `to`'s document and it asks for no forwards (no
 * DIDComm service, or one whose endpoint is a URI with no routing keys): what wrapIfNeeded would
 * find, known without waiting.
 */
export function knownNoForward(to: string, call: NativeCall): boolean {
  const doc = call.knownDoc(didAndFragment(to).did);
  if (!doc) return false;
  const first = serviceOf(doc);
  return !first || (!isDid(first.endpoint.uri) && first.endpoint.routingKeys.length === 0);
}

/**
 * The forwards `to`'s service asks for, and where to send the result; undefined when the
 * service names no routing keys (or there is no service).
 */
export async function wrapIfNeeded(
  packed: string,
  to: string,
  enc: ContentEnc,
  call: NativeCall,
): Promise<{ packed: string; serviceEndpoint: string } | undefined> {
  const first = await didcommService(didAndFragment(to).did, call);
  if (!first) return undefined;
  const chain = [first];
  while (isDid(chain[0]!.endpoint.uri)) {
    // Only one level of DID endpoints (alternative endpoints recursively are not for this).
    if (chain.length > 1) throw invalidArgument(`the service of ${to} names DID endpoints recursively`);
    const mediator = await didcommService(didAndFragment(chain[0]!.endpoint.uri).did, call);
    if (!mediator) throw invalidArgument(`the mediator ${chain[0]!.endpoint.uri} offers no DIDCommMessaging service`);
    chain.unshift(mediator);
  }
  const routingKeys = [...chain.slice(1).map((s) => s.endpoint.uri), ...chain[chain.length - 1]!.endpoint.routingKeys];
  if (routingKeys.length === 0) return undefined;
  return { packed: await wrapNative(packed, { to, routingKeys, enc }, call), serviceEndpoint: chain[0]!.endpoint.uri };
}
