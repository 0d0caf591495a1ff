// `conformance run` as a library: idsync plays the counterpart of the agent under test, runs the
// cases of the chosen suites one after the other (run-cases.ts), and reports each with its status,
// the rules it broke and the messages exchanged. Statuses: failed when a MUST broke (under
// --profile strict, any rule), passed otherwise (SHOULDs and advice broken are listed), blocked
// when a prerequisite was refused, skipped when the case does not apply, inconclusive when an
// awaited answer did not come in time; expected when it failed only as the user said it would.
import type { DocumentResolver } from '../did/types.js';
import { IdsyncError, isIdsyncError } from '../errors.js';
import type { CaseContext, CaseDefinition } from './case-kit.js';
import { startCounterpart, type Counterpart, type HarnessTransport } from './counterpart.js';
import { unseenExpected, type ExpectedFailure } from './expected.js';
import type { HarnessDidMethod } from './harness-did.js';
import { RUN_CASE } from './judge.js';
import { runCases } from './run-cases.js';
import { DISCOVER_FEATURES_CASES } from './suites/discover-features.js';
import { ENVELOPE_MODE_CASES } from './suites/envelope-modes.js';
import { REPORT_PROBLEM_CASES } from './suites/report-problem.js';
import { TRUST_PING_CASES } from './suites/trust-ping.js';
import { OOB_CASES } from './suites/waci-issue.js';
import { DATA_PIPE_CASES } from './suites/data-pipe.js';
import { WACI_PRESENT_CASES } from './suites/waci-present.js';
import { ISSUER_ROLE_CASES, issuerInvitation } from './suites/issuer-role.js';
import { VERIFIER_ROLE_CASES, verifierInvitation } from './suites/verifier-role.js';
import { checkInvitation, inspectInvitationUrl } from '../conformance/oob-url.js';
import { refusalsOf } from '../conformance/types.js';
import type { PlainMessage } from '../didcomm/types.js';
import { parseJsonBounded } from '../json-depth.js';
import { networkError, readBounded } from '../http-fetch.js';
import { fetchShortUrl } from '../protocols/out-of-band.js';
import { CASE_STATUSES, type CaseResult, type ConformanceReport, type ConformanceSummary, type ExchangedMessage, type HarnessMode, type RunProfile } from './types.js';

/** An `_oobid` invitation is one small message; more than this is not an invitation. */
const MAX_INVITATION_BYTES = 256 * 1024;

/** The cases for a DID target, in the order they run (the envelope case of the run's mode goes first). */
export const DID_CASES: CaseDefinition[] = [...ENVELOPE_MODE_CASES, ...TRUST_PING_CASES, ...DISCOVER_FEATURES_CASES, ...REPORT_PROBLEM_CASES];
export const DID_SUITES = [...new Set(DID_CASES.map((c) => c.suite))];

/** The cases for an out-of-band invitation URL. */
export const INVITATION_CASES: CaseDefinition[] = [...OOB_CASES, ...WACI_PRESENT_CASES, ...DATA_PIPE_CASES];
export const INVITATION_SUITES = [...new Set(INVITATION_CASES.map((c) => c.suite))];

/** The case ids for each kind of run, for --case (the run-level case always runs). */
export const CASE_IDS = {
  did: DID_CASES.map((c) => c.id),
  invitation: INVITATION_CASES.map((c) => c.id),
  holder: ISSUER_ROLE_CASES.map((c) => c.id),
  prover: VERIFIER_ROLE_CASES.map((c) => c.id),
} as const;

export const DEFAULT_CASE_TIMEOUT_MS = 3000;

export { RUN_MODES } from './modes.js';

export interface RunOptions {
  /**
   * The DID of the agent under test, or an out-of-band invitation URL it issued. Not used with
   * role 'holder' (idsync issues the invitation and learns the agent from its answer).
   */
  target?: string;
  /**
   * 'holder': the agent under test is the holder, idsync the issuer; 'prover': the agent is the
   * prover, idsync the verifier. Either way idsync makes the invitation.
   */
  role?: 'holder' | 'prover';
  /** Reach the agent by HTTP POST or over a WebSocket (default: what its DID document offers, HTTP first). */
  transport?: HarnessTransport;
  /** Role holder: called with the invitation URL the agent under test must accept. */
  onInvitation?: (url: string) => void;
  /** Role holder: how long the agent has to accept the invitation (default 120 s). */
  acceptTimeoutMs?: number;
  resolve: DocumentResolver;
  /** Suites to run (default all). */
  suites?: string[];
  /** Cases to run, by id (default all of the suites). */
  cases?: string[];
  /** The envelope of the cases' ordinary messages (default authcrypt). */
  mode?: HarnessMode;
  /** 'strict': every broken rule fails its case, SHOULDs and advice too (default: MUSTs only). */
  profile?: RunProfile;
  /** The harness's own DID method (default did:peer:2). */
  as?: HarnessDidMethod;
  /** Case and rule pairs expected to fail (--expect). */
  expected?: ExpectedFailure[];
  /** The longest wait for one answer (default 3 s); a case whose answer does not come is inconclusive. */
  timeoutMs?: number;
  /** Called as each case ends (progress output). */
  onCase?: (result: CaseResult) => void;
  /**
   * Stops the run between two cases (a case under way runs to its end, a few seconds at most): the
   * cases not yet run are left out of the report, and the run-level case judges what came.
   */
  signal?: AbortSignal;
  /** Called as each message is sent, answered (HTTP) or received (--verbose). */
  onEntry?: (entry: ExchangedMessage, event: 'sent' | 'answered' | 'received') => void;
}

export function summarize(cases: CaseResult[]): ConformanceSummary {
  return Object.fromEntries(CASE_STATUSES.map((s) => [s, cases.filter((c) => c.status === s).length])) as ConformanceSummary;
}

/** An invitation URL, decoded and checked: `_oob` inline, or `_oobid` fetched with GET (§Short URL Message Retrieval). */
export async function readInvitation(url: string): Promise<{ url: string; message: PlainMessage; results: ReturnType<typeof inspectInvitationUrl>['results'] }> {
  const inspected = inspectInvitationUrl(url);
  let invitation = inspected.invitation;
  let results = inspected.results;
  if (invitation === undefined && inspected.oobid) {
    // The user named this URL, so any host is fair; the body is still read within a bound.
    const res = await fetchShortUrl(url, fetch, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
    const tooLarge = () => new IdsyncError('response_too_large', `the invitation at ${url} is larger than ${MAX_INVITATION_BYTES} bytes`, { details: { maxBytes: MAX_INVITATION_BYTES } });
    // A body cut short or stalled is the network's failure (transport_unreachable, transport_timeout), not ours.
    const text = (await readBounded(res, MAX_INVITATION_BYTES, tooLarge).catch((err: unknown) => {
      throw networkError(err, url);
    })).toString('utf8');
    try {
      invitation = parseJsonBounded(text);
    } catch (err) {
      if (isIdsyncError(err)) throw err;
      throw new IdsyncError('invalid_invitation', 'the short invitation URL answered with something that is not JSON', { details: { reason: 'not_json' } });
    }
    results = [...results, ...checkInvitation(invitation)];
  }
  const m = invitation as PlainMessage | undefined;
  if (!m || typeof m.from !== 'string' || typeof m.id !== 'string') {
    // What stopped it first (a broken MUST, or a rule whose breach refuses the invitation: no
    // _oob, not JSON), then what is only advice (plain http).
    const stops = refusalsOf(results);
    const why = [...stops, ...results.filter((r) => !r.ok && !stops.includes(r))].map((r) => r.detail);
    throw new IdsyncError('invalid_invitation', `the URL holds no out-of-band invitation with an id and a from: ${why.join('; ') || 'unreadable'}`);
  }
  return { url, message: m, results };
}

/** The cases of `all` in the suites and case ids asked for; unknown names are usage errors. */
export function selectCases(all: CaseDefinition[], options: Pick<RunOptions, 'suites' | 'cases' | 'mode'>): CaseDefinition[] {
  const names = [...new Set(all.map((c) => c.suite))];
  const suites = options.suites ?? names;
  const unknown = suites.filter((s) => !names.includes(s));
  if (unknown.length) throw new IdsyncError('invalid_argument', `unknown suite ${unknown.join(', ')} (suites for this target: ${names.join(', ')})`);
  const ids = all.map((c) => c.id);
  const unknownCases = (options.cases ?? []).filter((id) => !ids.includes(id) && id !== RUN_CASE.id);
  if (unknownCases.length) throw new IdsyncError('invalid_argument', `unknown case ${unknownCases.join(', ')} (cases for this target: ${ids.join(', ')})`);
  const picked = all.filter((c) => suites.includes(c.suite) && (!options.cases || options.cases.includes(c.id)));
  // The envelope case of the run's own mode first: if the agent refuses that mode, every case
  // that would use it is blocked at once instead of failing one by one.
  const first = `envelope/${options.mode ?? 'authcrypt'}`;
  return [...picked.filter((c) => c.id === first), ...picked.filter((c) => c.id !== first)];
}

/**
 * Points the counterpart at `target`. A DID that does not resolve, or a target that cannot be
 * reached, blocks every case ('reachable'): the run ends "not judged" (exit 3), not in an error.
 */
export async function aimAt(cp: Counterpart, ctx: CaseContext, target: string): Promise<void> {
  try {
    await cp.setTarget(target);
  } catch (err) {
    ctx.blocked.set('reachable', (err as Error)?.message ?? String(err));
  }
  const unreachable = cp.unreachable();
  if (unreachable) ctx.blocked.set('reachable', unreachable);
}

/** The context cases run in: the counterpart, the run's mode and timeouts, nothing blocked yet. */
export function contextFor(cp: Counterpart, options: RunOptions, extra: Partial<CaseContext> = {}): CaseContext {
  return { cp, target: '', mode: options.mode ?? 'authcrypt', timeoutMs: options.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS, blocked: new Map(), accepted: new Set(), answered: new Set(), ...extra };
}

/** The counterpart a run starts: the resolver, POST timeout, transport, DID method and --verbose hook asked for. */
export function counterpartOptions(options: RunOptions) {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS;
  return {
    resolve: options.resolve,
    postTimeoutMs: Math.max(timeoutMs, 1000),
    ...(options.transport ? { transport: options.transport } : {}),
    ...(options.as ? { as: options.as } : {}),
    ...(options.onEntry ? { onEntry: options.onEntry } : {}),
  };
}

/** The report of a run: its cases and summary, what --expect left unseen, the rules checked. */
export function reportOf(options: RunOptions, fields: Pick<ConformanceReport, 'target' | 'role' | 'harnessDid'>, started: number, cases: CaseResult[], cp: Counterpart): ConformanceReport {
  const unseen = options.expected?.length ? unseenExpected(cases, options.expected) : [];
  return {
    ...fields,
    rulesChecked: Object.fromEntries([...cp.rulesChecked].sort(([a], [b]) => a.localeCompare(b))),
    mode: options.mode ?? 'authcrypt',
    profile: options.profile ?? 'liberal',
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    cases,
    summary: summarize(cases),
    ...(unseen.length ? { unseenExpected: unseen } : {}),
  };
}

export async function runConformance(options: RunOptions): Promise<ConformanceReport> {
  if (options.role) return runAsInviter(options, options.role);
  const requested = options.target ?? '';
  const isUrl = /^https?:\/\//i.test(requested);
  if (!isUrl && !requested.startsWith('did:')) throw new IdsyncError('invalid_argument', `--target must be a DID or an out-of-band invitation URL: ${requested}`);
  const defs = selectCases(isUrl ? INVITATION_CASES : DID_CASES, options);
  const invitation = isUrl ? await readInvitation(requested) : undefined;
  const target = invitation ? String(invitation.message.from) : requested;
  const started = Date.now();
  const cp = await startCounterpart(counterpartOptions(options));
  const ctx = contextFor(cp, options, { target, ...(invitation ? { invitation } : {}) });
  await aimAt(cp, ctx, target);
  const cases = await runCases(ctx, defs, options);
  const role = invitation ? `invitee of ${target} (holder for streamlined-vc, prover for streamlined-vp, requester for a Data Pipe)` : 'peer (envelope modes, trust-ping, discover-features, report-problem, transport)';
  return reportOf(options, { target: requested, role, harnessDid: cp.did }, started, cases, cp);
}

/**
 * Roles holder and prover: idsync is the issuer or the verifier. It serves a streamlined-vc or
 * streamlined-vp invitation at /connect (as JSON), hands its URL to `onInvitation`, and judges
 * the agent that accepts it.
 */
async function runAsInviter(options: RunOptions, role: 'holder' | 'prover'): Promise<ConformanceReport> {
  const started = Date.now();
  const defs = selectCases(role === 'holder' ? ISSUER_ROLE_CASES : VERIFIER_ROLE_CASES, { ...options, suites: undefined });
  const cp = await startCounterpart(counterpartOptions(options));
  const invitation = role === 'holder' ? issuerInvitation(cp.did, cp.baseUrl) : verifierInvitation(cp.did, cp.baseUrl);
  cp.onGet = (url) => (url.pathname === '/connect' ? { status: 200, type: 'application/json', body: JSON.stringify(invitation.message) } : undefined);
  options.onInvitation?.(invitation.url);
  const ctx = contextFor(cp, options, { acceptTimeoutMs: options.acceptTimeoutMs ?? 120_000, invitation: { ...invitation, results: [] } });
  const cases = await runCases(ctx, defs, options);
  const target = cp.target() ?? '(no agent accepted the invitation)';
  const played = role === 'holder' ? 'issuer (the agent under test is the holder' : 'verifier (the agent under test is the prover';
  return reportOf(options, { target, role: `${played}; invitation ${invitation.url})`, harnessDid: cp.did }, started, cases, cp);
}

/** The `--json` document: target, cases {id, title, status, failedRules, messages, …}, summary, and what --expect left unseen. */
export function reportJson(report: ConformanceReport): Record<string, unknown> {
  return {
    target: report.target,
    harnessDid: report.harnessDid,
    mode: report.mode,
    profile: report.profile,
    cases: report.cases.map((c) => ({
      id: c.id, title: c.title, status: c.status, failedRules: c.failedRules, messages: c.messages, section: c.section,
      ...(c.detail ? { detail: c.detail } : {}),
      ...(c.warnings.length ? { warnings: c.warnings } : {}),
      ...(c.advice?.length ? { advice: c.advice } : {}),
      ...(c.notes?.length ? { notes: c.notes } : {}),
      ...(c.broken.some((b) => b.expected) ? { expectedRules: [...new Set(c.broken.filter((b) => b.expected).map((b) => b.rule))] } : {}),
    })),
    summary: report.summary,
    ...(report.unseenExpected ? { unseenExpected: report.unseenExpected } : {}),
  };
}
