// Report Problem 2.0 (DIDComm v2 §Problem Reports): building and parsing problem reports,
// turning an error into the problem its code has in the error catalogue (src/errors/catalogue.ts),
// and the protocol module that lets the router answer failures with problem reports.
import { describeEpochSeconds } from '../clock.js';
import { PROBLEM_CODE } from '../conformance/protocol-rules.js';
import { createMessage, threadId, type MessageDeps, type MessageDraft } from '../didcomm/message.js';
import type { ProblemReporter, ProtocolModule } from '../router/router.js';
import type { PlainMessage } from '../didcomm/types.js';
import { IdsyncError, isIdsyncError, problemCodeOf } from '../errors.js';
import { ownEntry } from '../own-entry.js';

export const REPORT_PROBLEM_PIURI = 'https://didcomm.org/report-problem/2.0';
export const PROBLEM_REPORT = `${REPORT_PROBLEM_PIURI}/problem-report`;

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
  [problemCodeOf('unsupported_message_type')]: 'Message type {1} is not supported.',
  [problemCodeOf('message_expired')]: 'The message expired at {1}.',
  [problemCodeOf('message_malformed')]: 'Malformed message: {1}',
  [problemCodeOf('message_invalid_body')]: 'Invalid message body: {1}',
  [problemCodeOf('sender_mismatch')]: 'The sender is not the one the envelope authenticates: {1}',
  // args: invitation id, 'this DID' | 'another DID' (who answered it first), the issuance's status.
  [problemCodeOf('invitation_used')]: 'Invitation {1} was already used by {2}; its issuance is {3}.',
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
  const own = ownEntry(CODE_COMMENTS, code);
  if (own) return own;
  const descriptors = code.split('.').slice(2);
  for (let n = descriptors.length; n > 0; n--) {
    const c = ownEntry(DESCRIPTOR_COMMENTS, descriptors.slice(0, n).join('.'));
    if (c) return c;
  }
  return undefined;
}

/**
 * Maps any error to a problem, once for the whole package: the catalogue's problem code of its
 * code (`e.p.me` when it has none, or for anything that is not an IdsyncError). An error may carry
 * a problem code from elsewhere (a peer's, relayed) in `details.problemCode`; a valid one wins.
 * Internal errors reveal nothing.
 */
export function problemFromError(err: unknown): Problem {
  const e = isIdsyncError(err) ? err : undefined;
  const override = e?.details?.problemCode;
  const code = typeof override === 'string' && PROBLEM_CODE.test(override) ? override : problemCodeOf(e?.code ?? 'internal_error');
  const descriptors = code.split('.').slice(2);
  if (!e || descriptors[0] === 'me') return { code, comment: commentFor(code) };
  if (code === problemCodeOf('unsupported_message_type')) return { code, comment: commentFor(code), args: [String(e.details?.type ?? '?')] };
  if (code === problemCodeOf('message_expired') && typeof e.details?.expires_time === 'number') {
    return { code, comment: commentFor(code), args: [describeEpochSeconds(e.details.expires_time)] };
  }
  // An error may give the args of its code's own comment (details.problemArgs), so that a peer
  // reads them one by one (§Problem Reports `args`) instead of parsing a sentence.
  const own = ownEntry(CODE_COMMENTS, code);
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
  /**
   * Called with each problem report received (also emitted as the router event 'problem'), and the
   * sender its envelope proves (undefined when it proves none: its `from` is only a claim).
   */
  onProblem?: (problem: ParsedProblem, message: PlainMessage, sender: string | undefined) => void | Promise<void>;
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
        await options.onProblem?.(problem, ctx.message, ctx.metadata.authenticated ? ctx.sender : undefined);
      },
    },
  };
}
