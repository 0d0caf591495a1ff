// Plaintext message rules: DIDComm Messaging v2 §Message Headers (id, type, typ, to, from,
// thid, pthid, created_time, expires_time, body), §Threading, §Attachments and the return
// route extension. Each rule checks one header and says which requirement it broke.
import { parseMessageType } from '../didcomm/message.js';
import { MEDIA_TYPES, type PlainMessage } from '../didcomm/types.js';
import { b64uDecode } from '../encoding.js';
import { check, fail, pass, type ConformanceResult, type MessageRule } from './types.js';

const L = 'plaintext' as const;

// W3C DID Core §3.1: method-specific-id = *( *idchar ":" ) 1*idchar, i.e. a run of idchars and
// colons that ends with an idchar. Matched here as that: the longest run of idchars and colons
// (taken whole: a lookahead captures it and the backreference consumes it, so the engine never
// backtracks into it — what may follow, '/', '?', '#' or the end, cannot be part of a run), then
// a look back that its last character is an idchar's (a colon is not; a pct-encoded idchar ends
// in a hex digit). The grammar's own form backtracks over a whole segment when it looks for a
// colon after the last one, and a did:ion long form is a 1 KB segment checked several times per
// message (from, to, kids): ~4x slower. test/conformance/did-syntax.test.ts compares the forms.
const METHOD_SPECIFIC_ID = String.raw`(?=((?:[A-Za-z0-9._:-]+|%[0-9A-Fa-f]{2})*))\1(?<=[A-Za-z0-9._-])`;
/** W3C DID Core §3.1 DID syntax. */
export const DID = new RegExp(String.raw`^did:[a-z0-9]+:${METHOD_SPECIFIC_ID}$`);
/** DID URL without a fragment: DID, optional path and query. */
const DID_URL_NO_FRAGMENT = new RegExp(String.raw`^did:[a-z0-9]+:${METHOD_SPECIFIC_ID}(?:/[^#?]*)?(?:\?[^#]*)?$`);
/** A DID URL with a fragment: a key id. */
export const KEY_ID = new RegExp(String.raw`^did:[a-z0-9]+:${METHOD_SPECIFIC_ID}(?:/[^#?]*)?(?:\?[^#]*)?#.+$`);
// RFC 3986 §2.3 unreserved characters.
const UNRESERVED = /^[A-Za-z0-9._~-]+$/;
const URI = /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/;

export function isDidOrDidUrlWithoutFragment(value: unknown): boolean {
  return typeof value === 'string' && DID_URL_NO_FRAGMENT.test(value);
}

export function isUri(value: unknown): value is string {
  return typeof value === 'string' && URI.test(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Media types may omit `application/` (DIDComm v2 §Media Types). */
export function sameMediaType(actual: unknown, expected: string): boolean {
  if (typeof actual !== 'string') return false;
  const full = actual.includes('/') ? actual : `application/${actual}`;
  return full.toLowerCase() === expected;
}

// §Message Headers: id REQUIRED; §Message IDs: a string of unreserved URI characters. Its length
// is not judged: §Message IDs names 32 bytes and recommends UUIDs, which take 36.
const idRule: MessageRule = (m) => {
  if (typeof m.id !== 'string' || m.id.length === 0) return [fail(L, 'plaintext.id', m.id === undefined ? 'the message has no id' : 'id must be a non-empty string')];
  return [pass(L, 'plaintext.id'), check(L, 'plaintext.id-format', UNRESERVED.test(m.id), 'id holds characters that are not unreserved URI characters (RFC 3986 §2.3)')];
};

// §Message Headers: type REQUIRED, a valid Message Type URI.
const typeRule: MessageRule = (m) => {
  if (typeof m.type !== 'string' || m.type.length === 0) return [fail(L, 'plaintext.type', m.type === undefined ? 'the message has no type' : 'type must be a non-empty string')];
  if (!isUri(m.type)) return [fail(L, 'plaintext.type', `type is not a URI: ${m.type}`)];
  return [check(L, 'plaintext.type', parseMessageType(m.type) !== null, `type is not a message type URI <doc-uri><protocol>/<major.minor>/<name>: ${m.type}`)];
};

// §Plaintext Message Structure: typ, when present, is the plaintext media type.
const typRule: MessageRule = (m) =>
  m.typ === undefined ? [] : [check(L, 'plaintext.typ', sameMediaType(m.typ, MEDIA_TYPES.plaintext), `typ must be ${MEDIA_TYPES.plaintext}, got ${String(m.typ)}`)];

// §Message Headers: from is a DID or DID URL without a fragment.
const fromRule: MessageRule = (m) =>
  m.from === undefined ? [] : [check(L, 'plaintext.from', isDidOrDidUrlWithoutFragment(m.from), 'from must be a DID or DID URL without a fragment')];

// §Message Headers: to is an array of DIDs or DID URLs without fragments.
const toRule: MessageRule = (m) => {
  if (m.to === undefined) return [];
  if (!Array.isArray(m.to)) return [fail(L, 'plaintext.to', 'to must be an array of strings')];
  const bad = m.to.filter((t) => !isDidOrDidUrlWithoutFragment(t));
  return [check(L, 'plaintext.to', bad.length === 0, `to holds values that are not DIDs without fragments: ${bad.map(String).join(', ')}`)];
};

// §Threading: thid and pthid are non-empty strings.
const threadRule: MessageRule = (m) => {
  const out: ConformanceResult[] = [];
  for (const h of ['thid', 'pthid'] as const) {
    if (m[h] !== undefined) out.push(check(L, `plaintext.${h}`, typeof m[h] === 'string' && (m[h] as string).length > 0, `${h} must be a non-empty string`));
  }
  return out;
};

// §Message Headers: created_time and expires_time are UTC epoch seconds as integers (no keyword:
// both are OPTIONAL, created_time "but recommended").
const timeRule: MessageRule = (m) => {
  const out: ConformanceResult[] = [];
  for (const h of ['created_time', 'expires_time'] as const) {
    const v = m[h];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      out.push(fail(L, `plaintext.${h}`, `${h} must be a non-negative integer (epoch seconds)`));
    } else if (v > 1e11) {
      out.push(fail(L, `plaintext.${h}`, `${h} looks like milliseconds, not epoch seconds`));
    } else out.push(pass(L, `plaintext.${h}`));
  }
  const { created_time: c, expires_time: e } = m;
  if (typeof c === 'number' && typeof e === 'number') {
    out.push(check(L, 'plaintext.expires-after-created', e >= c, 'expires_time is before created_time'));
  }
  return out;
};

// §Message Headers (v2.1): body OPTIONAL; "If present, it MUST be a JSON object". Its note
// recommends sending one (v2.0 required it): advice when missing.
const bodyRule: MessageRule = (m) =>
  m.body === undefined
    ? [fail(L, 'plaintext.body-present', 'the message has no body (accepted; DIDComm v2.0 agents require one)')]
    : [check(L, 'plaintext.body', isPlainObject(m.body), 'body must be a JSON object')];

// §Attachments.
const attachmentsRule: MessageRule = (m) => {
  if (m.attachments === undefined) return [];
  if (!Array.isArray(m.attachments)) return [fail(L, 'plaintext.attachments', 'attachments must be an array')];
  const problems: string[] = [];
  const warnings: string[] = [];
  const unhashed: string[] = [];
  const badIds: string[] = [];
  m.attachments.forEach((a: unknown, i) => {
    if (!isPlainObject(a)) return problems.push(`[${i}] is not an object`);
    // id is OPTIONAL, but "Because the `id` of an attachment is used to compose URIs, this value
    // should be brief and MUST consist entirely of unreserved URI characters" (RFC 3986 §2.3).
    if (a.id !== undefined && !(typeof a.id === 'string' && UNRESERVED.test(a.id))) badIds.push(`[${i}].id ${JSON.stringify(a.id)?.slice(0, 80)} is not made of unreserved URI characters (A-Z a-z 0-9 - . _ ~)`);
    // The other fields are OPTIONAL and no MUST gives them a form (lastmod_time is "a hint", of
    // no stated type): an odd one is advice, never the MUST on data.
    if (a['@id'] !== undefined && a.id === undefined) warnings.push(`[${i}] uses '@id' (DIDComm v1); v2 uses 'id'`);
    if (a.media_type !== undefined && typeof a.media_type !== 'string') warnings.push(`[${i}].media_type is not a string`);
    if (a.format !== undefined && typeof a.format !== 'string') warnings.push(`[${i}].format is not a string`);
    for (const k of ['byte_count', 'lastmod_time']) {
      if (a[k] !== undefined && !Number.isInteger(a[k])) warnings.push(`[${i}].${k} is not an integer`);
    }
    const d = a.data;
    if (!isPlainObject(d)) return problems.push(`[${i}].data must be an object`);
    const misplaced = ['id', 'media_type', 'format', 'description', 'filename'].filter((k) => k in d);
    if (misplaced.length) warnings.push(`[${i}].data holds ${misplaced.join(', ')}, which belong to the attachment itself`);
    if (d.json === undefined && d.base64 === undefined && d.links === undefined && d.jws === undefined) {
      problems.push(`[${i}].data needs json, base64 or links`);
    }
    if (d.base64 !== undefined) {
      let okB64 = typeof d.base64 === 'string';
      if (okB64) {
        try {
          b64uDecode(d.base64 as string);
        } catch {
          okB64 = false;
        }
      }
      if (!okB64) problems.push(`[${i}].data.base64 is not base64url`);
    }
    if (d.links !== undefined) {
      if (!isStringArray(d.links)) problems.push(`[${i}].data.links must be an array of strings`);
      // §Attachments: hash "MUST be used if the data is referenced via the `links` data attribute".
      if (typeof d.hash !== 'string') unhashed.push(`[${i}].data.hash is required with links`);
    }
  });
  const out = [check(L, 'plaintext.attachments', problems.length === 0, problems.join('; '))];
  if (unhashed.length) out.push(fail(L, 'plaintext.attachment-links-hash', unhashed.join('; ')));
  if (badIds.length) out.push(fail(L, 'plaintext.attachment-id', badIds.join('; ')));
  if (warnings.length) out.push(fail(L, 'plaintext.attachment-fields', warnings.join('; ')));
  return out;
};

// §ACKs: ack is an array of message ids.
const ackRule: MessageRule = (m) => (m.ack === undefined ? [] : [check(L, 'plaintext.ack', isStringArray(m.ack), 'ack must be an array of message ids')]);

// Return route extension: 'none' | 'all' | 'thread'.
const returnRouteRule: MessageRule = (m) =>
  m.return_route === undefined
    ? []
    : [check(L, 'plaintext.return_route', ['none', 'all', 'thread'].includes(m.return_route as string), "return_route must be 'none', 'all' or 'thread'")];

// §DID Rotation: from_prior is a compact JWT.
const fromPriorRule: MessageRule = (m) =>
  m.from_prior === undefined
    ? []
    : [check(L, 'plaintext.from_prior', typeof m.from_prior === 'string' && /^[\w-]+\.[\w-]+\.[\w-]+$/.test(m.from_prior), 'from_prior must be a compact JWT')];

export const plaintextRules: MessageRule[] = [
  idRule,
  typeRule,
  typRule,
  fromRule,
  toRule,
  threadRule,
  timeRule,
  bodyRule,
  attachmentsRule,
  ackRule,
  returnRouteRule,
  fromPriorRule,
];

/** All plaintext rules on one message. Never throws, whatever `message` holds. */
export function checkPlaintext(message: unknown): ConformanceResult[] {
  if (!isPlainObject(message)) return [fail(L, 'plaintext.json-object', 'a plaintext message is a JSON object')];
  return plaintextRules.flatMap((rule) => rule(message as PlainMessage, {}));
}
