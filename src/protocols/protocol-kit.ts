// Shared parts of the idsync application protocols (data-pipe, present-proof, issue-credential,
// message pickup): coded refusals, builder headers, JSON attachments,
// turning body rules into parsers, and parsers into a router module. Each protocol file stays
// "URIs, builders, parsers, state, module".
import { isPlainObject } from '../conformance/plaintext.js';
import { check, fail, refusalsOf, type ConformanceResult, type MessageRule } from '../conformance/types.js';
import { parseMessageType, withBody } from '../didcomm/message.js';
import type { HandlerContext, ProtocolModule } from '../router/router.js';
import type { Attachment, PlainMessage } from '../didcomm/types.js';
import { b64uDecodeText, b64uEncode } from '../encoding.js';
import { parseJsonBounded } from '../json-depth.js';
import { IdsyncError, problemCodeOf, type ErrorCode } from '../errors.js';

export { isPlainObject };

/**
 * A protocol refusal: an IdsyncError whose details also name the problem code a peer gets for it
 * (the catalogue's, src/errors/catalogue.ts), for callers that inspect a refusal before it is sent.
 */
export function protocolError(code: ErrorCode, message: string, details: Record<string, unknown> = {}): IdsyncError {
  return new IdsyncError(code, message, { details: { ...details, problemCode: problemCodeOf(code) } });
}

/**
 * Runs body rules and throws 'message_invalid_body' naming every broken MUST and every broken
 * rule idsync cannot act without (catalogue rows marked `refuses`). Parsers call it first, so a
 * parser accepts exactly what the conformance rules and that local policy accept.
 */
export function assertRules(message: PlainMessage, rules: MessageRule[]): void {
  const read = withBody(message);
  const failures = refusalsOf(rules.flatMap((r) => r(read, {})));
  if (failures.length === 0) return;
  throw new IdsyncError('message_invalid_body', `${message.type}: ${failures.map((f) => `${f.rule}: ${f.detail}`).join('; ')}`, {
    details: { failures: failures.map((f) => ({ rule: f.rule, detail: f.detail })) },
  });
}

/** The message must be of one of `types`, in any minor version (DIDComm v2 §Semver Rules for Protocols). */
export function assertType(message: PlainMessage, ...types: string[]): void {
  const key = (t: unknown) => (typeof t === 'string' ? parseMessageType(t)?.majorKey ?? t : undefined);
  if (!types.some((t) => key(t) === key(message.type))) {
    throw new IdsyncError('message_invalid_body', `expected ${types.join(' or ')}, got ${String(message.type)}`, { details: { type: message.type } });
  }
}

// ---- builder headers (DIDComm v2 §Message Headers) -----------------------------------------

/** The headers a builder takes: one recipient, and the thread it belongs to. */
export interface MessageHeaders {
  from?: string;
  to?: string;
  thid?: string;
  pthid?: string;
  id?: string;
}

/** The draft's header fields; `to` becomes the array DIDComm v2 wants. */
export const draftHeaders = (h: MessageHeaders) => ({ id: h.id, from: h.from, to: h.to ? [h.to] : undefined, thid: h.thid, pthid: h.pthid });

// ---- small value checks used by the body rules ---------------------------------------------

export const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
export const isOptString = (v: unknown): boolean => v === undefined || typeof v === 'string';
export const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
/** ISO 8601 / xsd:dateTime with a time zone, as Date.parse reads it. */
export const isDateTime = (v: unknown): v is string =>
  typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v));
export const isDid = (v: unknown): v is string => typeof v === 'string' && /^did:[a-z0-9]+:\S+$/.test(v) && !v.includes('#');

/** One rule result in the protocol layer (its severity is the catalogue row's). */
export function rule(name: string, ok: boolean, detail: string): ConformanceResult {
  return check('protocol', name, ok, detail);
}

// ---- attachments (DIDComm v2 §Attachments) -------------------------------------------------

/** The attachment's `format`; tolerates the WACI present-proof vector, which nests it in `data`. */
export function formatOf(a: Attachment): string | undefined {
  if (typeof a.format === 'string') return a.format;
  const nested = (a.data as Record<string, unknown> | undefined)?.format;
  return typeof nested === 'string' ? nested : undefined;
}

/** The attachments of `message` with `format`. */
export function attachmentsOf(message: PlainMessage, format: string): Attachment[] {
  return (Array.isArray(message.attachments) ? message.attachments : []).filter((a) => isPlainObject(a) && formatOf(a) === format);
}

/** Inline JSON of an attachment: data.json, or data.base64 holding JSON; undefined otherwise. */
export function attachmentJson(a: Attachment | undefined): unknown {
  if (!a || !isPlainObject(a.data)) return undefined;
  if (a.data.json !== undefined) return a.data.json;
  if (typeof a.data.base64 === 'string') {
    try {
      return parseJsonBounded(b64uDecodeText(a.data.base64));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** An `application/json` attachment carrying `json` inline. */
export function jsonAttachment(id: string, format: string, json: unknown): Attachment {
  return { id, media_type: 'application/json', format, data: { json } };
}

/** A body rule: exactly one attachment of `format` whose JSON passes `inner`. */
export function attachmentRule(name: string, format: string, inner: (json: unknown) => string[]): MessageRule {
  return (m) => {
    const found = attachmentsOf(m, format);
    if (found.length !== 1) return [fail('protocol', name, `exactly one attachment with format ${format} is required, found ${found.length}`)];
    const json = attachmentJson(found[0]);
    if (json === undefined) return [fail('protocol', name, `the ${format} attachment must carry JSON inline (data.json or data.base64)`)];
    const problems = inner(json);
    const out = [rule(name, problems.length === 0, problems.join('; '))];
    if (typeof found[0].format !== 'string') out.push(fail('protocol', `${name}-format-placement`, 'format belongs on the attachment, not inside data'));
    return out;
  };
}

/** Inline base64url of a string (packed messages in pickup deliveries). */
export function base64Data(text: string): { base64: string } {
  return { base64: b64uEncode(text) };
}

// ---- protocol modules (router.use) ---------------------------------------------------------

/** An agent's handler of one message name, given the parsed message. */
export type ParsedHandler<T> = (ctx: HandlerContext, parsed: T) => Promise<void> | void;

/** Reads one message name for its handler; throws (→ a problem report) to refuse it. Gets the context for envelope checks. */
export type ModuleParser<T = unknown> = (message: PlainMessage, ctx: HandlerContext) => T;

/** The handlers a module takes: per message name of `P`, one given what that name's parser returns. */
export type HandlersFor<P extends Record<string, ModuleParser>> = { [K in keyof P]?: ParsedHandler<ReturnType<P[K]>> };

/**
 * A module for router.use(): `base` (PIURI, roles, goal codes, body rules) with a router handler
 * for each message name the agent handles, which parses first, so an agent's handler never sees
 * a message its parser refuses.
 */
export function parsedProtocol<P extends Record<string, ModuleParser>>(base: Omit<ProtocolModule, 'handlers'>, parsers: P, handlers: HandlersFor<P>): ProtocolModule {
  const module: ProtocolModule = { ...base, handlers: {} };
  for (const name of Object.keys(parsers)) {
    const handler = handlers[name] as ParsedHandler<unknown> | undefined;
    if (handler) module.handlers[name] = (ctx) => handler(ctx, parsers[name](ctx.message, ctx));
  }
  return module;
}
