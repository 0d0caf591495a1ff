// The plaintext message (JWM) as it goes inside an envelope, written byte for byte the way
// didcomm-node writes it, so that a peer sees no difference between the engines: headers in the
// order id, typ, type, body, from, to, thid, pthid, other headers, created_time, expires_time,
// from_prior, attachments; every JSON object inside (body, other headers, attachment data)
// with its members sorted; attachment members in the order data, id, description, filename,
// media_type, format, lastmod_time, byte_count. And reading one back, with the checks of DIDComm
// v2 §Plaintext Message Structure.
import { MEDIA_TYPES, type PlainMessage } from '../types.js';
import { boundedMemo } from './memo.js';
import { isObject, malformed, parseJsonObject } from './refusal.js';

const KNOWN = new Set(['id', 'typ', 'type', 'body', 'from', 'to', 'thid', 'pthid', 'created_time', 'expires_time', 'from_prior', 'attachments']);
const ATTACHMENT_ORDER = ['data', 'id', 'description', 'filename', 'media_type', 'format', 'lastmod_time', 'byte_count'];
const DATA_ORDER = ['base64', 'json', 'links', 'hash', 'jws'];

// Member names compared as UTF-8 bytes, the order of the serialiser peers use (BTreeMap<String>).
function byUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

// Some objects written come in order already (small bodies, objects read back from sorted JSON):
// sort() would copy their keys into a work array all the same.
function inUtf8Order(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (byUtf8(keys[i - 1]!, keys[i]!) > 0) return false;
  return true;
}

// Objects are built with Object.fromEntries, which defines every member as data (a member named
// "__proto__" stays a member; assigning it would change the prototype and lose it).

/** The value with every object's members sorted, recursively (undefined members dropped, as JSON does). */
export function sortedJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined || typeof v === 'function' ? null : sortedJson(v)));
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return sortedJson(JSON.parse(JSON.stringify(value)));
  const entries: [string, unknown][] = [];
  for (const k of Object.keys(value).sort(byUtf8)) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined && typeof v !== 'function') entries.push([k, sortedJson(v)]);
  }
  return Object.fromEntries(entries);
}

function ordered(obj: Record<string, unknown>, order: readonly string[], inner: (k: string, v: unknown) => unknown): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  for (const k of order) if (Object.hasOwn(obj, k) && obj[k] !== undefined) entries.push([k, inner(k, obj[k])]);
  for (const k of Object.keys(obj)) if (!order.includes(k) && obj[k] !== undefined) entries.push([k, sortedJson(obj[k])]);
  return Object.fromEntries(entries);
}

function attachmentLayout(a: unknown): unknown {
  if (!isObject(a)) return sortedJson(a);
  return ordered(a, ATTACHMENT_ORDER, (k, v) => (k === 'data' && isObject(v) ? ordered(v, DATA_ORDER, (_, x) => sortedJson(x)) : sortedJson(v)));
}

const HEAD = ['id', 'typ', 'type', 'body', 'from', 'to', 'thid', 'pthid'] as const;
const TAIL = ['created_time', 'expires_time', 'from_prior'] as const;

/** The plaintext as didcomm-node serialises it (see the top of this file). */
export function serializePlaintext(m: PlainMessage): string {
  try {
    return writePlaintext(m);
  } catch (err) {
    if (err !== UNUSUAL) throw err;
    return layoutPlaintext(m);
  }
}

// The same text written directly, without the sorted copies: what serializePlaintext does for
// every message, where the copying (spread, sorted objects, fromEntries) cost as much as the
// JSON itself. It takes JSON's own data only (strings, finite or not numbers, booleans, null,
// arrays, objects without toJSON), no attachments, and no member name that starts with a digit
// (an array index is put first by any object built from entries, whatever the order given);
// anything else is UNUSUAL and goes the way above, so both give the same text for every message.
const UNUSUAL = Symbol('unusual');

function name(k: string): string {
  const c = k.charCodeAt(0);
  if (c >= 0x30 && c <= 0x39) throw UNUSUAL;
  return JSON.stringify(k);
}
const HEAD_AT: Record<string, number> = Object.assign(Object.create(null), { id: 0, typ: 1, type: 2, body: 3, from: 4, to: 5, thid: 6, pthid: 7 });
const TAIL_AT: Record<string, number> = Object.assign(Object.create(null), { created_time: 0, expires_time: 1, from_prior: 2 });

function scalar(v: unknown): string {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) return JSON.stringify(v);
  throw UNUSUAL;
}

function write(v: unknown): string {
  if (typeof v !== 'object') return scalar(v);
  if (v === null) return 'null';
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') throw UNUSUAL;
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      out += (i === 0 ? '' : ',') + (x === undefined || typeof x === 'function' ? 'null' : write(x));
    }
    return `${out}]`;
  }
  const keys = Object.keys(v);
  if (keys.length > 1 && !inUtf8Order(keys)) keys.sort(byUtf8);
  let out = '{';
  for (const k of keys) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined || typeof x === 'function') continue;
    out += `${out.length === 1 ? '' : ','}${name(k)}:${write(x)}`;
  }
  return `${out}}`;
}

// The JSON of the DIDs in `from` and `to`: a conversation's DIDs recur in every message, and a
// long-form did:ion is ~1 KB that JSON.stringify scans and copies (~2 µs) each time.
const didJson = boundedMemo(256, (did: string) => JSON.stringify(did));

function dids(v: unknown): string {
  if (typeof v === 'string') return didJson(v);
  if (!Array.isArray(v)) return write(v);
  for (const x of v) if (typeof x !== 'string') return write(v); // holes too (every() would skip them)
  let out = '[';
  for (let i = 0; i < v.length; i++) out += (i === 0 ? '' : ',') + didJson(v[i] as string);
  return `${out}]`;
}

function writePlaintext(m: PlainMessage): string {
  const head: (string | undefined)[] = [undefined, JSON.stringify(MEDIA_TYPES.plaintext), undefined, undefined, undefined, undefined, undefined, undefined];
  const tail: (string | undefined)[] = [undefined, undefined, undefined];
  let others = '';
  let attachments: string | undefined;
  for (const k of Object.keys(m)) {
    const v = m[k];
    if (v === undefined) continue;
    const h = HEAD_AT[k];
    if (h !== undefined) {
      if (h === 1 && v === null) continue; // typ ?? the plaintext media type
      head[h] = h <= 2 ? scalar(v) : h === 4 || h === 5 ? dids(v) : write(v);
    } else if (TAIL_AT[k] !== undefined) {
      tail[TAIL_AT[k]!] = scalar(v);
    } else if (k === 'attachments') {
      attachments = writeAttachments(v);
    } else if (typeof v === 'function') {
      throw UNUSUAL;
    } else {
      others += `,${name(k)}:${write(v)}`;
    }
  }
  let out = '';
  for (let i = 0; i < head.length; i++) if (head[i] !== undefined) out += `,"${HEAD[i]}":${head[i]}`;
  out += others;
  for (let i = 0; i < tail.length; i++) if (tail[i] !== undefined) out += `,"${TAIL[i]}":${tail[i]}`;
  if (attachments !== undefined) out += `,"attachments":${attachments}`;
  return `{${out.slice(1)}}`;
}

/** ordered() written directly: the members named in `order` first, in that order, then the others as they come. */
function writeOrdered(obj: Record<string, unknown>, order: readonly string[], inner: (k: string, v: unknown) => string): string {
  let out = '';
  for (const k of order) {
    if (!Object.hasOwn(obj, k)) continue;
    const v = obj[k];
    if (v === undefined) continue;
    if (typeof v === 'function') throw UNUSUAL;
    out += `,"${k}":${inner(k, v)}`;
  }
  for (const k of Object.keys(obj)) {
    if (order.includes(k)) continue;
    const v = obj[k];
    if (v === undefined) continue;
    if (typeof v === 'function') throw UNUSUAL;
    out += `,${name(k)}:${write(v)}`;
  }
  return `{${out.slice(1)}}`;
}

/** The attachments as attachmentLayout() lays them out: an array of objects only, anything else is UNUSUAL. */
function writeAttachments(v: unknown): string {
  if (!Array.isArray(v)) throw UNUSUAL;
  let out = '[';
  for (let i = 0; i < v.length; i++) {
    const a: unknown = v[i];
    if (!isObject(a) || typeof (a as { toJSON?: unknown }).toJSON === 'function') throw UNUSUAL;
    out += (i === 0 ? '' : ',') + writeOrdered(a, ATTACHMENT_ORDER, (k, x) => (k === 'data' && isObject(x) && typeof (x as { toJSON?: unknown }).toJSON !== 'function' ? writeOrdered(x, DATA_ORDER, (_, y) => write(y)) : write(x)));
  }
  return `${out}]`;
}

/** The layout itself, built as sorted copies and serialised by JSON.stringify: the reference the direct writer must match. */
export function layoutPlaintext(m: PlainMessage): string {
  const head: Record<string, unknown> = { ...m, typ: m.typ ?? MEDIA_TYPES.plaintext };
  const entries: [string, unknown][] = [];
  for (const k of HEAD) if (head[k] !== undefined) entries.push([k, k === 'id' || k === 'type' || k === 'typ' ? head[k] : sortedJson(head[k])]);
  for (const k of Object.keys(m)) if (!KNOWN.has(k) && m[k] !== undefined) entries.push([k, sortedJson(m[k])]);
  for (const k of TAIL) if (m[k] !== undefined) entries.push([k, m[k]]);
  if (m.attachments !== undefined) entries.push(['attachments', Array.isArray(m.attachments) ? m.attachments.map(attachmentLayout) : m.attachments]);
  return JSON.stringify(Object.fromEntries(entries));
}

const optionalString = (m: Record<string, unknown>, k: string) => m[k] === undefined || typeof m[k] === 'string';

/**
 * A plaintext message read from text (DIDComm v2.1 §Plaintext Message Structure): id and type
 * present; body, when present, an object (v2.1 made it OPTIONAL); typ, when present, the plaintext
 * media type; the headers the spec gives a MUST of their types. created_time and expires_time,
 * whose form has no keyword, are left to the conformance rules (a string there is advice).
 */
export function parsePlaintext(text: string): PlainMessage {
  return checkPlaintext(parseJsonObject(text, 'the plaintext message', 'plaintext.json'));
}

/** checkPlaintext of an already parsed object. */
export function checkPlaintext(m: Record<string, unknown>): PlainMessage {
  if (typeof m.id !== 'string') throw malformed('plaintext.id', 'the message id must be a string');
  if (typeof m.type !== 'string') throw malformed('plaintext.type', 'the message type must be a string');
  if ('body' in m && !isObject(m.body)) throw malformed('plaintext.body', 'body must be a JSON object');
  if (m.typ !== undefined && m.typ !== MEDIA_TYPES.plaintext) throw malformed('plaintext.typ', `typ must be ${MEDIA_TYPES.plaintext}, got ${String(m.typ)}`);
  for (const k of ['from', 'thid', 'pthid', 'from_prior']) if (!optionalString(m, k)) throw malformed(`plaintext.${k}`, `${k} must be a string`);
  if (m.to !== undefined && !(Array.isArray(m.to) && m.to.every((t) => typeof t === 'string'))) throw malformed('plaintext.to', 'to must be an array of strings');
  if (m.attachments !== undefined && !(Array.isArray(m.attachments) && m.attachments.every((a) => isObject(a) && isObject(a.data)))) {
    throw malformed('plaintext.attachments', 'attachments must be an array of objects with data');
  }
  return m as PlainMessage;
}
