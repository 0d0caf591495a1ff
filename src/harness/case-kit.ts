// What every case is made of: its declaration (id, title, spec section, steps, what it needs) and
// a run that returns the rules the agent broke; the runner turns that into a status. Helpers for
// the waits cases share: the answer threaded to a message, a problem report about it, and the
// "barrier" ping that shows an agent has finished with what was sent before it (so that the
// absence of an answer is observed without sleeping); and for refusals, which end a case at once.
import { ruleOf } from '../conformance/catalogue.js';
import type { ConformanceResult } from '../conformance/types.js';
import type { WsClosed } from '../didcomm/transport/ws.js';
import type { PlainMessage } from '../didcomm/types.js';
import type { Counterpart, PostOutcome, Received } from './counterpart.js';
import { isAuthenticated, isEncrypted } from './modes.js';
import { refusalOf, type Refusal } from './refusal.js';
import type { BrokenRule, CaseInfo, CaseStatus, HarnessMode } from './types.js';

export const PING = 'https://didcomm.org/trust-ping/2.0/ping';
export const PING_RESPONSE = 'https://didcomm.org/trust-ping/2.0/ping-response';
export const QUERIES = 'https://didcomm.org/discover-features/2.0/queries';
export const DISCLOSE = 'https://didcomm.org/discover-features/2.0/disclose';
export const PROBLEM_REPORT = 'https://didcomm.org/report-problem/2.0/problem-report';

/**
 * What cases may need, and what the runner blocks them on once it is refused: `reachable` (the
 * agent's endpoint), `mode` (the envelope of the run, --mode), `ping` (pings are answered: the
 * barrier of the cases that observe an absence).
 */
export type Prerequisite = 'reachable' | 'mode' | 'ping';

export interface CaseContext {
  cp: Counterpart;
  /** The DID under test (for an invitation URL: the invitation's from). */
  target: string;
  /** The envelope the cases pack their ordinary messages in (--mode; default authcrypt). */
  mode: HarnessMode;
  /** The out-of-band invitation, when the target was an invitation URL. */
  invitation?: { url: string; message: PlainMessage; results: ConformanceResult[] };
  /** The longest wait for one answer (ms). */
  timeoutMs: number;
  /** Issuer and verifier roles: the longest wait for the agent to accept idsync's invitation (ms). */
  acceptTimeoutMs?: number;
  /**
   * Prerequisites found refused or missing (key: `reachable`, `ping`, `mode:<mode>`; `disclose` when
   * the agent does not answer discover-features queries), with why.
   */
  blocked: Map<string, string>;
  /** Modes the agent was seen to take (a 2xx to a well-formed message in them). */
  accepted: Set<HarnessMode>;
  /** Modes in which the agent answered a ping with a ping-response (envelope cases). */
  answered: Set<HarnessMode>;
}

export type BrokenRuleList = BrokenRule[];

export interface CaseOutcome {
  /** Set for skipped, blocked and inconclusive; otherwise derived from `broken`. */
  status?: Extract<CaseStatus, 'skipped' | 'inconclusive' | 'blocked'>;
  detail?: string;
  broken: BrokenRule[];
  notes?: string[];
}

export interface CaseDefinition extends CaseInfo {
  /** What the case cannot run without (default ['mode']; `reachable` always). */
  needs?: Prerequisite[];
  run(c: CaseContext): Promise<CaseOutcome>;
}

/** Thrown inside a case to end it at once with `outcome` (a refusal: nothing left to wait for). */
export class CaseEnd extends Error {
  constructor(readonly outcome: CaseOutcome) {
    super(outcome.detail ?? 'case ended');
  }
}

/** The key a prerequisite is blocked under in CaseContext.blocked. */
export function prerequisiteKey(p: Prerequisite, mode: HarnessMode): string {
  return p === 'mode' ? `mode:${mode}` : p;
}

/** A broken rule with the catalogue's severity (an id the catalogue lacks is a defect: it throws). */
export function broke(rule: string, detail: string, seq?: number): BrokenRule {
  const entry = ruleOf(rule);
  if (!entry) throw new Error(`rule ${rule} is not in the catalogue`);
  return { rule, severity: entry.severity, detail, ...(seq !== undefined ? { seq } : {}) };
}

export const ok = (notes?: string[]): CaseOutcome => ({ broken: [], ...(notes?.length ? { notes } : {}) });
export const inconclusive = (detail: string, broken: BrokenRule[] = []): CaseOutcome => ({ status: 'inconclusive', detail, broken });
export const skipped = (detail: string): CaseOutcome => ({ status: 'skipped', detail, broken: [] });
export const blocked = (detail: string, broken: BrokenRule[] = []): CaseOutcome => ({ status: 'blocked', detail, broken });
/** The broken rules found so far, or a pass with notes. */
export const verdict = (broken: BrokenRule[], notes?: string[]): CaseOutcome => (broken.length ? { broken, ...(notes?.length ? { notes } : {}) } : ok(notes));

/**
 * The rules an answer itself broke (its envelope, headers and body), every severity: the run's
 * profile decides which fail the case (a MUST always; SHOULDs and advice under 'strict').
 */
export function messageRules(r: Received | undefined, what: string): BrokenRule[] {
  if (!r) return [];
  return r.check.results.filter((x) => !x.ok).map((x) => broke(ruleOf(x.rule) ? x.rule : 'conformance.rule-crashed', `${what}: ${x.detail ?? 'broken'}`, r.entry.seq));
}

/** A 5xx answer to a POST breaks transport.no-server-error; a POST that got no answer at all, transport.reachable. */
export function transportRules(o: PostOutcome, what: string): BrokenRule[] {
  if (o.error !== undefined || (o.transport === 'http' && o.status === undefined)) return [broke('transport.reachable', `${what} could not be sent: ${o.error ?? 'no answer'}`, o.entry.seq)];
  if (o.status !== undefined && NOT_TEMPORARY.has(o.status)) return [broke('transport.redirect-temporary', `${what} was answered HTTP ${o.status}${o.location ? ` to ${o.location}` : ''}; only 307 is followed`, o.entry.seq)];
  return o.status !== undefined && o.status >= 500 ? [broke('transport.no-server-error', `${what} was answered HTTP ${o.status}`, o.entry.seq)] : [];
}

/** Redirects of a POST that DIDComm v2.1 §Transports (HTTPS) does not accept: permanent, or ones that may turn it into a GET. */
const NOT_TEMPORARY = new Set([301, 302, 303, 308]);

/**
 * Records a refusal in the context (so later cases needing the same thing are blocked at once)
 * and says it in one line.
 */
export function recordRefusal(c: CaseContext, r: Refusal, type: string | undefined): string {
  if (r.kind === 'protocol') {
    const reason = `the agent refuses ${type ?? 'the message'}: ${r.answer}`;
    if (type === PING) c.blocked.set('ping', reason);
    return reason;
  }
  const reason = `the agent refuses ${r.mode} messages: ${r.answer}`;
  c.blocked.set(`mode:${r.mode}`, reason);
  return reason;
}

/**
 * What a refusal of a well-formed message of `type` in `mode` refuses: its protocol (the answer
 * names it), the mode, or only this message. Unless the mode is known to be taken, a message of
 * another protocol in the same mode asks again (a ping; a query when the refused message was a
 * ping): refused too, it is the mode. An answer that says "unsupported message type" without
 * naming one is then the protocol's refusal; any other, this message's.
 */
export async function whatIsRefused(c: CaseContext, r: Refusal, type: string | undefined): Promise<Refusal | 'message'> {
  if (r.kind === 'protocol') return r;
  if (!c.accepted.has(r.mode) && (await otherRefusedToo(c, r.mode, type))) return r;
  return r.unnamedType ? { ...r, kind: 'protocol' } : 'message';
}

/** Whether a message of another protocol in `mode` is refused too (then the mode is what the agent refuses). */
async function otherRefusedToo(c: CaseContext, mode: HarnessMode, type: string | undefined): Promise<boolean> {
  const other = type === PING
    ? c.cp.draft(QUERIES, { queries: [{ 'feature-type': 'protocol', match: 'https://didcomm.org/trust-ping/*' }] })
    : c.cp.draft(PING, { response_requested: true });
  const outcome = await c.cp.send(other, { mode, note: `is ${mode} itself refused?` });
  if (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300) c.accepted.add(mode);
  const again = refusalOf(outcome, mode, other.type);
  return again !== undefined && again.kind !== 'protocol';
}

/**
 * After sending an ordinary, well-formed message in `mode`: an HTTP 4xx (or 5xx, which also breaks
 * transport.no-server-error) ends the case at once, with what it refuses told apart first
 * (whatIsRefused). Refusing a mode the spec requires recipients to process fails with its rule and
 * quote; refusing a mode left to the agent's policy, or the protocol, blocks the case (and the
 * cases that need the same); a refused message fails `rule` when the case names the rule it
 * breaks, else blocks the case.
 */
export async function ordinary(c: CaseContext, o: PostOutcome, message: Pick<PlainMessage, 'type'>, what: string, options: { mode?: HarnessMode; rule?: string } = {}): Promise<void> {
  const mode = options.mode ?? c.mode;
  if (o.status !== undefined && o.status >= 200 && o.status < 300) c.accepted.add(mode);
  const first = refusalOf(o, mode, message.type);
  if (!first) return;
  const before = transportRules(o, what);
  const end = (outcome: CaseOutcome): never => {
    throw new CaseEnd({ ...outcome, broken: [...before, ...outcome.broken] });
  };
  const r = await whatIsRefused(c, first, message.type);
  const refusedHere = `the agent refused ${what}: ${first.answer}`;
  if (r === 'message') return end(options.rule ? { broken: [broke(options.rule, refusedHere, o.entry.seq)] } : blocked(refusedHere));
  const reason = recordRefusal(c, r, message.type);
  if (r.kind === 'protocol') return end(options.rule ? { broken: [broke(options.rule, refusedHere, o.entry.seq)] } : blocked(reason));
  if (r.kind === 'required-mode') return end({ broken: [broke(r.rule!, `${what} in ${mode} was refused (${r.answer}); ${r.quote}`, o.entry.seq)] });
  return end(blocked(`${reason} (${r.policy})`));
}

export const threadOf = (m: Pick<PlainMessage, 'id' | 'thid'>) => m.thid ?? m.id;

/**
 * Over a WebSocket, how the socket the request of `o` went on closed, once it has. A frame written
 * is no receipt (DIDComm v2.1 §Transports): an agent that closed the socket (RFC 6455 §7.4.1) reads
 * nothing written on it after its close frame left, so no answer to that request will come on it.
 */
export const socketClosed = (o: PostOutcome | undefined): WsClosed | undefined => o?.socket?.close;

const describeClose = (close: WsClosed) => `code ${close.code}${close.reason ? `: ${close.reason}` : ''}`;

/**
 * The first received message `match` accepts, waited for as the answer to the request `o` carried:
 * over a WebSocket the wait ends at once when the socket the request went on closes (see
 * socketClosed), and the close is noted on the request's exchange.
 */
export async function awaitAnswer(c: CaseContext, o: PostOutcome | undefined, match: (r: Received) => boolean, timeoutMs = c.timeoutMs): Promise<Received | undefined> {
  const answer = await c.cp.waitFor(match, timeoutMs, o?.socket?.closed);
  if (!answer) noteClosed(o);
  return answer;
}

/**
 * For a wait that ended without an answer: notes on the request's exchange, once, that the socket
 * it went on closed (see socketClosed), if it has.
 */
export function noteClosed(o: PostOutcome | undefined): void {
  const close = socketClosed(o);
  if (!close || !o) return;
  const said = `the target closed the WebSocket (${describeClose(close)}) before answering`;
  if (!o.entry.note?.includes(said)) o.entry.note = [o.entry.note, said].filter(Boolean).join('; ');
}

/**
 * Why no answer to the request `o` carried is in: the wait ran out (" within N ms"), or, over a
 * WebSocket, the target closed the socket it went on (": the target closed the socket (code N)
 * after our message (#seq)"). To follow "no <answer>".
 */
export function unanswered(c: CaseContext, o: PostOutcome | undefined, timeoutMs = c.timeoutMs): string {
  const close = socketClosed(o);
  return close && o ? `: the target closed the socket (${describeClose(close)}) after our message (#${o.entry.seq})` : ` within ${timeoutMs} ms`;
}

/**
 * The answer of `type` to `sent`: threaded to it, or — so that an agent that threads wrongly is
 * judged once, by the case about threading, not by every case that waits — one of `type` that
 * arrived after `sent` and is threaded to no other message of ours. `on` is the outcome of sending
 * `sent` (see awaitAnswer).
 */
export function answerTo(c: CaseContext, sent: PlainMessage, type: string, on: PostOutcome): Promise<Received | undefined> {
  const ours = new Set(c.cp.log.filter((e) => e.direction === 'sent' && e.id && e.id !== sent.id).map((e) => e.id));
  const after = on.entry.seq;
  return awaitAnswer(c, on, (r) => r.message?.type === type && (r.message.thid === sent.id || (r.entry.seq > after && !ours.has(r.message.thid))));
}

/** A problem report about `sent`, whose request is `on`. */
export function problemAbout(c: CaseContext, sent: PlainMessage, on: PostOutcome, timeoutMs = c.timeoutMs): Promise<Received | undefined> {
  return awaitAnswer(c, on, (r) => r.message?.type === PROBLEM_REPORT && (r.message.pthid === threadOf(sent) || r.message.thid === sent.id), timeoutMs);
}

/** A ping (in the run's mode by default). */
export async function ping(c: CaseContext, o: { mode?: HarnessMode; responseRequested?: boolean; extra?: Partial<PlainMessage>; note?: string; mangle?: (p: string) => string; to?: string } = {}) {
  const message = c.cp.draft(PING, { response_requested: o.responseRequested ?? true }, o.extra);
  const outcome = await c.cp.send(message, { mode: o.mode ?? c.mode, ...(o.note ? { note: o.note } : {}), ...(o.mangle ? { mangle: o.mangle } : {}), ...(o.to ? { to: o.to } : {}) });
  return { message, outcome };
}

/**
 * Sends an ordinary ping and waits for its response: once it is in, the agent has dealt with what
 * came before it. A ping-response arriving after the barrier and threaded to no other message of
 * ours also counts (an agent that threads responses wrongly still shows it is done; the
 * trust-ping cases judge the threading). False when the barrier went unanswered; then the cases
 * that need a barrier are blocked from here on.
 */
export async function barrier(c: CaseContext): Promise<boolean> {
  const { message, outcome } = await ping(c, { note: 'barrier: answered once the agent is done with what came before' });
  await ordinary(c, outcome, message, 'the barrier ping');
  const answered = (await answerTo(c, message, PING_RESPONSE, outcome)) !== undefined;
  if (!answered) c.blocked.set('ping', `a barrier ping in ${c.mode} went unanswered${unanswered(c, outcome)}: the absence of an answer cannot be observed`);
  return answered;
}

/** An answer to an authenticated (encrypted) request must be authenticated (encrypted) too (envelope.reply-in-kind). */
export function inKindRules(r: Received, what: string, requestMode: HarnessMode): BrokenRule[] {
  const md = r.check.metadata;
  const got = { encrypted: md?.encrypted ?? false, authenticated: (md?.authenticated || md?.nonRepudiation) ?? false };
  if ((isEncrypted(requestMode) && !got.encrypted) || (isAuthenticated(requestMode) && !got.authenticated)) {
    const article = /^[aeiou]/.test(requestMode) ? 'an' : 'a';
    return [broke('envelope.reply-in-kind', `${what} came ${md?.mode ?? r.entry.mode}, in answer to ${article} ${requestMode} message`, r.entry.seq)];
  }
  return [];
}

/** The problem report about `sent` must be threaded to it and carry an error code. */
export function problemRules(r: Received, sent: PlainMessage): BrokenRule[] {
  const out = messageRules(r, 'the problem report');
  if (r.message?.pthid !== threadOf(sent)) out.push(broke('report-problem.pthid-thread', `pthid ${String(r.message?.pthid)} is not ${threadOf(sent)}, the thread of the message refused`, r.entry.seq));
  return out;
}
