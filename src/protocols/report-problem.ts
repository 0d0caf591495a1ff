// Report Problem 2.0 (DIDComm v2 §Problem Reports): building and parsing problem reports,
// the one table that maps our error codes to problem codes, and the protocol module that
// lets the router answer failures with problem reports.
import { PROBLEM_CODE } from '../conformance/protocol-rules.js';
import { createMessage, threadId, type MessageDeps, type MessageDraft } from '../didcomm/message.js';
import type { ProblemReporter, ProtocolModule } from '../router/router.js';
import type { PlainMessage } from '../didcomm/types.js';
import { IdsyncError, isIdsyncError } from '../errors.js';

export const REPORT_PROBLEM_PIURI = 'https://didcomm.org/report-problem/2.0';
export const PROBLEM_REPORT = `${REPORT_PROBLEM_PIURI}/problem-report`;

/** The problem codes idsync sends (DIDComm v2 §Problem Codes: sorter.scope.descriptors). */
export const PROBLEM_CODES = {
  unsupported: 'e.p.msg.unsupported',
  malformed: 'e.m.msg.malformed',
  invalidBody: 'e.m.msg.invalid-body',
  invalidInvitation: 'e.p.msg.invalid-invitation',
  expired: 'e.m.req.time.expired',
  timeout: 'e.p.req.time',
  senderMismatch: 'e.m.trust.sender-mismatch',
  unauthorized: 'e.p.trust',
  forbidden: 'e.p.trust.forbidden',
  crypto: 'e.m.trust.crypto',
  cryptoUnsupported: 'e.m.trust.crypto.unsupported',
  noKey: 'e.m.trust.crypto.no-key',
  verificationFailed: 'e.p.trust.crypto.verification-failed',
  didNotResolved: 'e.p.did.not-resolved',
  didInvalid: 'e.p.did.invalid',
  notFound: 'e.p.req.not-found',
  invalidState: 'e.p.req.invalid-state',
  declined: 'e.p.req.declined',
  xfer: 'e.p.xfer',
  storage: 'e.p.me.res.storage',
  internal: 'e.p.me',
} as const;

/**
 * IdsyncError code → problem code, in one place. Codes not listed become `e.p.me`
 * (internal error). An error may name its own code with `details.problemCode`.
 */
export const ERROR_PROBLEM_CODES: Readonly<Record<string, string>> = Object.freeze({
  // router refusals (router/router.ts ROUTER_ERRORS)
  unsupported_message_type: PROBLEM_CODES.unsupported,
  message_malformed: PROBLEM_CODES.malformed,
  invalid_message: PROBLEM_CODES.malformed,
  message_invalid_body: PROBLEM_CODES.invalidBody,
  sender_mismatch: PROBLEM_CODES.senderMismatch,
  envelope_nonconformant: PROBLEM_CODES.crypto,
  message_expired: PROBLEM_CODES.expired,
  // envelopes (didcomm/envelope.ts)
  didcomm_malformed: PROBLEM_CODES.crypto,
  didcomm_unsupported: PROBLEM_CODES.cryptoUnsupported,
  secret_not_found: PROBLEM_CODES.noKey,
  did_not_resolved: PROBLEM_CODES.didNotResolved,
  // DIDs
  invalid_did: PROBLEM_CODES.didInvalid,
  did_invalid: PROBLEM_CODES.didInvalid,
  // protocols and credentials
  invalid_invitation: PROBLEM_CODES.invalidInvitation,
  unauthorized: PROBLEM_CODES.unauthorized,
  sender_not_authenticated: PROBLEM_CODES.unauthorized,
  forbidden: PROBLEM_CODES.forbidden,
  verification_failed: PROBLEM_CODES.verificationFailed,
  invalid_signature: PROBLEM_CODES.verificationFailed,
  not_found: PROBLEM_CODES.notFound,
  invalid_state: PROBLEM_CODES.invalidState,
  conflict: PROBLEM_CODES.invalidState,
  declined: PROBLEM_CODES.declined,
  timeout: PROBLEM_CODES.timeout,
  // transport and storage
  delivery_failed: PROBLEM_CODES.xfer,
  transport_error: PROBLEM_CODES.xfer,
  no_endpoint: PROBLEM_CODES.xfer,
  store_error: PROBLEM_CODES.storage,
  store_locked: PROBLEM_CODES.storage,
});

/** DIDComm v2 §Descriptors: the comment for each defined descriptor. */
const DESCRIPTOR_COMMENTS: Record<string, string> = {
  trust: 'Failed to achieve required trust.',
  'trust.crypto': 'Cryptographic operation failed.',
  xfer: 'Unable to transport data.',
  did: 'DID is unusable.',
  msg: 'Bad message.',
  me: 'Internal error.',
  'me.res': 'A required resource is inadequate or unavailable.',
  req: "Circumstances don't satisfy requirements.",
  'req.time': 'Failed to satisfy timing constraints.',
  legal: 'Failed for legal reasons.',
};

/** Comments of our own codes; each is static per code (§Problem Reports `comment`). */
const CODE_COMMENTS: Record<string, string> = {
  [PROBLEM_CODES.unsupported]: 'Message type {1} is not supported.',
  [PROBLEM_CODES.expired]: 'The message expired at {1}.',
  [PROBLEM_CODES.malformed]: 'Malformed message: {1}',
  [PROBLEM_CODES.invalidBody]: 'Invalid message body: {1}',
  [PROBLEM_CODES.senderMismatch]: 'The sender is not the one the envelope authenticates: {1}',
  // args: invitation id, 'this DID' | 'another DID' (who answered it first), the issuance's status.
  'e.p.req.invitation-used': 'Invitation {1} was already used by {2}; its issuance is {3}.',
};

export interface Problem {
  code: string;
  comment?: string;
  args?: string[];
  escalate_to?: string;
}

export interface ParsedProblem extends Problem {
  sorter: 'error' | 'warning';
  scope: string;
  descriptors: string[];
  /** `comment` with `args` interpolated. */
  text: string;
  pthid: string;
  ack?: string[];
  id: string;
  from?: string;
}

/** §Problem Reports `args`: `{n}` refers to args[n-1]; missing ones become `?`, extra ones are appended. */
export function interpolate(comment: string, args: unknown[] = []): string {
  const used = new Set<number>();
  const text = comment.replace(/\{(\d+)\}/g, (_, n: string) => {
    const i = Number(n) - 1;
    used.add(i);
    const v = args[i];
    return v === undefined || v === null ? '?' : String(v);
  });
  const extra = args.filter((_, i) => !used.has(i)).map(String);
  return extra.length ? `${text} ${extra.join(', ')}` : text;
}

/** The comment for a code: ours, else the most specific defined descriptor's. */
export function commentFor(code: string): string | undefined {
  if (CODE_COMMENTS[code]) return CODE_COMMENTS[code];
  const descriptors = code.split('.').slice(2);
  for (let n = descriptors.length; n > 0; n--) {
    const c = DESCRIPTOR_COMMENTS[descriptors.slice(0, n).join('.')];
    if (c) return c;
  }
  return undefined;
}

/** Maps any error to a problem, once for the whole package. Internal errors reveal nothing. */
export function problemFromError(err: unknown): Problem {
  const e = isIdsyncError(err) ? err : undefined;
  const override = e?.details?.problemCode;
  const code = typeof override === 'string' && PROBLEM_CODE.test(override) ? override : ERROR_PROBLEM_CODES[e?.code ?? ''] ?? PROBLEM_CODES.internal;
  const descriptors = code.split('.').slice(2);
  if (!e || descriptors[0] === 'me') return { code, comment: commentFor(code) };
  if (code === PROBLEM_CODES.unsupported) return { code, comment: commentFor(code), args: [String(e.details?.type ?? '?')] };
  if (code === PROBLEM_CODES.expired && typeof e.details?.expires_time === 'number') {
    return { code, comment: commentFor(code), args: [new Date(e.details.expires_time * 1000).toISOString()] };
  }
  // An error may give the args of its code's own comment (details.problemArgs), so that a peer
  // reads them one by one (§Problem Reports `args`) instead of parsing a sentence.
  const own = CODE_COMMENTS[code];
  if (own && Array.isArray(e.details?.problemArgs)) return { code, comment: own, args: e.details.problemArgs.map(String) };
  const base = commentFor(code) ?? 'Problem:';
  const comment = base.includes('{1}') ? base : `${base} {1}`;
  return { code, comment, args: [e.message] };
}

export interface ProblemReportInput extends Problem {
  /** The thid of the thread where the problem occurred (REQUIRED). */
  pthid: string;
  /** Ids of the messages that caused the problem. */
  ack?: string[];
  from?: string;
  to?: string[];
}

function problemDraft(input: ProblemReportInput): MessageDraft {
  if (!PROBLEM_CODE.test(input.code)) throw new IdsyncError('invalid_problem_code', `not a problem code: ${input.code}`);
  if (!input.pthid) throw new IdsyncError('didcomm_invalid_argument', 'a problem report needs pthid');
  const body: Record<string, unknown> = { code: input.code };
  if (input.comment !== undefined) body.comment = input.comment;
  if (input.args !== undefined) body.args = input.args.map(String);
  if (input.escalate_to !== undefined) body.escalate_to = input.escalate_to;
  return { type: PROBLEM_REPORT, pthid: input.pthid, ack: input.ack, from: input.from, to: input.to, body };
}

/** A problem report message (§Problem Reports: pthid required; it starts a child thread). */
export function createProblemReport(input: ProblemReportInput, deps: MessageDeps): PlainMessage {
  return createMessage(problemDraft(input), deps);
}

/** The draft answering `message` with `problem`: pthid = its thread, ack = its id, to its sender. */
export function problemReportDraft(message: PlainMessage, problem: Problem): MessageDraft {
  return problemDraft({ ...problem, pthid: threadId(message), ack: [message.id], to: message.from ? [message.from] : undefined });
}

export function isProblemReport(message: Pick<PlainMessage, 'type'>): boolean {
  return typeof message.type === 'string' && /^https:\/\/didcomm\.org\/report-problem\/2\.\d+\/problem-report$/.test(message.type);
}

export function parseProblemReport(message: PlainMessage): ParsedProblem {
  if (!isProblemReport(message)) throw new IdsyncError('invalid_problem_report', `not a problem report: ${String(message.type)}`);
  const b = message.body ?? {};
  if (typeof b.code !== 'string' || !PROBLEM_CODE.test(b.code)) throw new IdsyncError('invalid_problem_report', 'the problem report has no valid code');
  if (typeof message.pthid !== 'string') throw new IdsyncError('invalid_problem_report', 'the problem report has no pthid');
  const [sorter, scope, ...descriptors] = b.code.split('.');
  const args = Array.isArray(b.args) ? b.args.map(String) : undefined;
  const comment = typeof b.comment === 'string' ? b.comment : undefined;
  return {
    id: message.id,
    from: message.from,
    code: b.code,
    sorter: sorter === 'e' ? 'error' : 'warning',
    scope,
    descriptors,
    comment,
    args,
    escalate_to: typeof b.escalate_to === 'string' ? b.escalate_to : undefined,
    text: interpolate(comment ?? commentFor(b.code) ?? b.code, args),
    pthid: message.pthid,
    ack: Array.isArray(message.ack) ? (message.ack as string[]) : undefined,
  };
}

/** The router's problem reporter: errors → problem reports. */
export const problemReporter: ProblemReporter = {
  report: (incoming, error) => problemReportDraft(incoming, problemFromError(error)),
  isReport: (message) => isProblemReport(message),
};

export interface ReportProblemOptions {
  /** Called with each problem report received (also emitted as the router event 'problem'). */
  onProblem?: (problem: ParsedProblem, message: PlainMessage) => void | Promise<void>;
}

/** Receives problem reports (event 'problem') and lets the router send them. */
export function reportProblemProtocol(options: ReportProblemOptions = {}): ProtocolModule {
  return {
    piuri: REPORT_PROBLEM_PIURI,
    roles: ['reporter', 'receiver'],
    problems: problemReporter,
    handlers: {
      'problem-report': async (ctx) => {
        const problem = parseProblemReport(ctx.message);
        ctx.log(problem.sorter === 'error' ? 'warn' : 'info', 'problem report received', { code: problem.code, pthid: problem.pthid });
        ctx.emit('problem', { problem, message: ctx.message });
        await options.onProblem?.(problem, ctx.message);
      },
    },
  };
}
