// Plaintext message helpers: building messages with ids and times, threads, message type
// URIs and DID URL comparisons. Pure functions; the clock and id generator are passed in.
import type { Clock, IdGenerator } from '../clock.js';
import { uuid } from '../clock.js';
import { setBounded } from '../bounded.js';
import { shortForm } from '../did/short-form.js';
import { MEDIA_TYPES, type PlainMessage } from './types.js';

/** What a caller writes: a type and a body; the rest is filled in. */
export interface MessageDraft {
  type: string;
  body?: Record<string, unknown>;
  id?: string;
  [header: string]: unknown;
}

export interface MessageDeps {
  clock: Clock;
  ids?: IdGenerator;
}

export interface CreateMessageOptions {
  /** Sets expires_time this many milliseconds after now (DIDComm v2 §Message Headers). */
  expiresInMs?: number;
}

/** DIDComm v2 §Message Headers: created_time and expires_time are UTC epoch seconds. */
export function epochSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/**
 * A complete plaintext message from a draft: a fresh id, `typ`, `created_time` (now) and
 * an empty body when none is given. Headers already in the draft are kept.
 */
export function createMessage(draft: MessageDraft, deps: MessageDeps, options: CreateMessageOptions = {}): PlainMessage {
  const ids = deps.ids ?? uuid;
  const now = deps.clock.now();
  const message: PlainMessage = {
    ...draft,
    id: draft.id ?? ids(),
    // DIDComm v2 §Plaintext Message Structure: the media type is set in `typ`.
    typ: (draft.typ as string | undefined) ?? MEDIA_TYPES.plaintext,
    type: draft.type,
    body: draft.body ?? {},
  };
  if (message.created_time === undefined) message.created_time = epochSeconds(now);
  if (options.expiresInMs !== undefined && message.expires_time === undefined) {
    message.expires_time = epochSeconds(now + options.expiresInMs);
  }
  for (const key of Object.keys(message)) if (message[key] === undefined) delete message[key];
  return message;
}

/**
 * The message as protocols read it: DIDComm v2.1 §Plaintext Message Structure makes `body` OPTIONAL,
 * so a message without one is read as having an empty one. A new object when `body` is absent (the
 * message itself stays as it arrived, for its log record and its kept text); else the message.
 */
export function withBody<M extends PlainMessage>(message: M): M {
  // The type says body is always there; a received message may still lack it.
  return (message as { body?: unknown }).body === undefined ? { ...message, body: {} } : message;
}

/** DIDComm v2 §Threading: without `thid` the message's own id is its thread id. */
export function threadId(message: Pick<PlainMessage, 'id' | 'thid'>): string {
  return message.thid ?? message.id;
}

/** True when `expires_time` (seconds) lies before `nowMs`. */
export function isExpired(message: Pick<PlainMessage, 'expires_time'>, nowMs: number): boolean {
  return typeof message.expires_time === 'number' && message.expires_time < nowMs / 1000;
}

/** The parts of a message type URI (DIDComm v2 §Message Type URI). */
export interface MessageTypeParts {
  /** `https://didcomm.org/` */
  docUri: string;
  /** `trust-ping` */
  protocol: string;
  /** `2.0` */
  version: string;
  major: number;
  minor: number;
  /** `ping` */
  name: string;
  /** Protocol identifier URI: `https://didcomm.org/trust-ping/2.0` */
  piuri: string;
  /**
   * The key used to match types across minor versions (DIDComm v2 §Semver Rules for
   * Protocols: a recipient of x.z handles it as the x.y it knows).
   */
  majorKey: string;
}

// <doc-uri><protocol-name>/<protocol-version>/<message-type-name>
const MTURI = /^([a-zA-Z][a-zA-Z0-9+.-]*:(?:.*\/)?)([a-zA-Z0-9._-]+)\/(\d+)\.(\d+)(?:\.\d+)?\/([a-zA-Z0-9._-]+)$/;

const PARSED_TYPES = new Map<string, Readonly<MessageTypeParts> | null>();
const PARSED_TYPES_MAX = 512;
/** Longer types are parsed each time, not kept: the map holds at most 512 × 256 characters of keys. */
const PARSED_TYPE_MAX_LENGTH = 256;

/**
 * The parts of a message type URI, or null when it is not one. Frozen and shared: a flow reads the
 * same few types many times (the router, the rule registry, each protocol's checks), so each is
 * parsed once, from a bounded map (types come from outside, any sender can make up thousands).
 */
export function parseMessageType(type: string): Readonly<MessageTypeParts> | null {
  // Callers guard with typeof, but a header read from a peer is only typed, not checked.
  if (typeof type !== 'string') return null;
  if (type.length > PARSED_TYPE_MAX_LENGTH) return parseTypeOnce(type);
  const known = PARSED_TYPES.get(type);
  if (known !== undefined) return known;
  const parts = parseTypeOnce(type);
  setBounded(PARSED_TYPES, type, parts, PARSED_TYPES_MAX);
  return parts;
}

function parseTypeOnce(type: string): Readonly<MessageTypeParts> | null {
  const m = MTURI.exec(type);
  if (!m) return null;
  const [, docUri, protocol, major, minor, name] = m;
  const version = `${major}.${minor}`;
  return Object.freeze({
    docUri,
    protocol,
    version,
    major: Number(major),
    minor: Number(minor),
    name,
    piuri: `${docUri}${protocol}/${version}`,
    majorKey: `${docUri}${protocol}/${major}/${name}`,
  });
}

/** Parses a protocol identifier URI (`https://didcomm.org/trust-ping/2.0`). */
export function parsePiuri(piuri: string): Omit<MessageTypeParts, 'name' | 'majorKey'> | null {
  const parts = parseMessageType(`${piuri}/x`);
  if (!parts) return null;
  const { name: _name, majorKey: _key, ...rest } = parts;
  return rest;
}

/** The DID of a DID URL or key id: everything before `#`, `?` or `/` after the method-specific id. */
export function didOf(didUrl: string): string {
  // Three single-character searches, not a regular expression: a long-form did:ion key id is
  // ~1 KB, checked on every envelope (the sender rule), and indexOf scans it several times faster.
  let end = didUrl.indexOf('#');
  if (end === -1) end = didUrl.length;
  const query = didUrl.indexOf('?');
  if (query !== -1 && query < end) end = query;
  const slash = didUrl.indexOf('/');
  if (slash !== -1 && slash < end) end = slash;
  return end === didUrl.length ? didUrl : didUrl.slice(0, end);
}

/** Compares two DIDs (or key ids) treating the long and short forms of a did:ion or did:peer:4 as the same DID. */
export function sameDid(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const da = didOf(a);
  const db = didOf(b);
  // The same DID text is the same DID in any form; only different texts need the short forms
  // (whose pattern reads the whole ~1 KB of a long form).
  return da === db || shortForm(da) === shortForm(db);
}
