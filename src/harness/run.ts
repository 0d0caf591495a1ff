// `conformance run` as a library: idsync plays the counterpart of the agent under test, runs the
// cases of the chosen suites one after the other, and reports each with its status, the rules it
// broke and the messages exchanged. Statuses: failed when a MUST broke, passed otherwise (SHOULDs
// broken are listed as warnings), skipped when the case does not apply, inconclusive when an
// awaited answer did not come in time.
import type { DocumentResolver } from '../did/types.js';
import { IdsyncError } from '../errors.js';
import type { CaseContext, CaseDefinition, CaseOutcome } from './case-kit.js';
import { startCounterpart, type HarnessTransport } from './counterpart.js';
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
import type { PlainMessage } from '../didcomm/types.js';
import { parseJsonBounded } from '../json-depth.js';
import { readBounded } from '../http-fetch.js';
import type { Profile } from '../conformance/types.js';
import type { BrokenRule, CaseResult, ConformanceReport, ConformanceSummary } from './types.js';

/** An `_oobid` invitation is one small message; more than this is not an invitation. */
const MAX_INVITATION_BYTES = 256 * 1024;

/** The cases for a DID target, in the order they run. */
export const DID_CASES: CaseDefinition[] = [...TRUST_PING_CASES, ...DISCOVER_FEATURES_CASES, ...REPORT_PROBLEM_CASES, ...ENVELOPE_MODE_CASES];
export const DID_SUITES = [...new Set(DID_CASES.map((c) => c.suite))];

/** The cases for an out-of-band invitation URL. */
export const INVITATION_CASES: CaseDefinition[] = [...OOB_CASES, ...WACI_PRESENT_CASES, ...DATA_PIPE_CASES];
export const INVITATION_SUITES = [...new Set(INVITATION_CASES.map((c) => c.suite))];

export const DEFAULT_CASE_TIMEOUT_MS = 3000;

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
  /** The longest wait for one answer (default 3 s); a case whose answer does not come is inconclusive. */
  timeoutMs?: number;
  /** Called as each case ends (progress output). */
  onCase?: (result: CaseResult) => void;
  /**
   * How broken rules are judged: 'liberal' (default) fails a case on a broken MUST only;
   * 'strict' also on a broken SHOULD or advice not followed.
   */
  profile?: Profile;
}

export function summarize(cases: CaseResult[]): ConformanceSummary {
  const count = (s: CaseResult['status']) => cases.filter((c) => c.status === s).length;
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped'), inconclusive: count('inconclusive') };
}

/** Whether a broken rule fails its case under `profile`. */
const fails = (b: BrokenRule, profile: Profile) => b.severity === 'error' || profile === 'strict';

function statusOf(o: CaseOutcome, profile: Profile): CaseResult['status'] {
  if (o.broken.some((b) => fails(b, profile))) return 'failed';
  return o.status ?? 'passed';
}

/** An invitation URL, decoded and checked: `_oob` inline, or `_oobid` fetched with GET (§Short URL Message Retrieval). */
export async function readInvitation(url: string): Promise<{ url: string; message: PlainMessage; results: ReturnType<typeof inspectInvitationUrl>['results'] }> {
  const inspected = inspectInvitationUrl(url);
  let invitation = inspected.invitation;
  let results = inspected.results;
  if (invitation === undefined && inspected.oobid) {
    // The user named this URL, so any host is fair; the body is still read within a bound.
    const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
    const tooLarge = () => new IdsyncError('response_too_large', `the invitation at ${url} is larger than ${MAX_INVITATION_BYTES} bytes`, { details: { maxBytes: MAX_INVITATION_BYTES } });
    invitation = parseJsonBounded((await readBounded(res, MAX_INVITATION_BYTES, tooLarge)).toString('utf8'));
    results = [...results, ...checkInvitation(invitation)];
  }
  const m = invitation as PlainMessage | undefined;
  if (!m || typeof m.from !== 'string' || typeof m.id !== 'string') {
    throw new IdsyncError('invalid_invitation', `the invitation URL holds no invitation with id and from: ${results.filter((r) => !r.ok).map((r) => r.detail).join('; ') || 'unreadable'}`);
  }
  return { url, message: m, results };
}

export async function runConformance(options: RunOptions): Promise<ConformanceReport> {
  if (options.role) return runAsInviter(options, options.role);
  const requested = options.target ?? '';
  const isUrl = /^https?:\/\//i.test(requested);
  if (!isUrl && !requested.startsWith('did:')) throw new IdsyncError('invalid_argument', `--target must be a DID or an out-of-band invitation URL: ${requested}`);
  const invitation = isUrl ? await readInvitation(requested) : undefined;
  const all = invitation ? INVITATION_CASES : DID_CASES;
  const names = [...new Set(all.map((c) => c.suite))];
  const suites = options.suites ?? names;
  const unknown = suites.filter((s) => !names.includes(s));
  if (unknown.length) throw new IdsyncError('invalid_argument', `unknown suite ${unknown.join(', ')} (suites for this target: ${names.join(', ')})`);
  const target = invitation ? String(invitation.message.from) : requested;
  const timeoutMs = options.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS;
  const started = Date.now();
  const cp = await startCounterpart({ target, resolve: options.resolve, postTimeoutMs: Math.max(timeoutMs, 1000), ...(options.transport ? { transport: options.transport } : {}) });
  const ctx: CaseContext = { cp, target, timeoutMs, ...(invitation ? { invitation } : {}) };
  const cases = await runCases(ctx, all.filter((c) => suites.includes(c.suite)), options.onCase, options.profile);
  return { target: requested, role: invitation ? `invitee of ${target} (holder for streamlined-vc, prover for streamlined-vp, requester for a Data Pipe)` : 'peer (trust-ping, discover-features, report-problem, envelope modes)', harnessDid: cp.did, startedAt: new Date(started).toISOString(), durationMs: Date.now() - started, cases, summary: summarize(cases) };
}

/** Runs `defs` one after the other with `ctx`, then closes the counterpart. */
export async function runCases(ctx: CaseContext, defs: CaseDefinition[], onCase?: (r: CaseResult) => void, profile: Profile = 'liberal'): Promise<CaseResult[]> {
  const { cp } = ctx;
  const cases: CaseResult[] = [];
  try {
    for (const def of defs) {
      const from = cp.log.length;
      const t0 = Date.now();
      let outcome: CaseOutcome;
      try {
        outcome = await def.run(ctx);
      } catch (err) {
        // A case that cannot run (the harness failed, not the agent) says why; it judges nothing.
        outcome = { status: 'inconclusive', detail: `the case could not run: ${(err as Error)?.message ?? String(err)}`, broken: [] };
      }
      const status = statusOf(outcome, profile);
      const failing = outcome.broken.filter((b) => fails(b, profile));
      const result: CaseResult = {
        id: def.id,
        suite: def.suite,
        title: def.title,
        section: def.section,
        url: def.url,
        steps: def.steps,
        status,
        ...(outcome.detail ? { detail: outcome.detail } : status === 'failed' ? { detail: failing.map((b) => `${b.rule}: ${b.detail}`).join('; ') } : {}),
        failedRules: [...new Set(failing.map((b) => b.rule))],
        warnings: [...new Set(outcome.broken.filter((b) => b.severity === 'warning').map((b) => b.rule))],
        advice: [...new Set(outcome.broken.filter((b) => b.severity === 'advice').map((b) => b.rule))],
        broken: outcome.broken,
        messages: cp.log.slice(from),
        durationMs: Date.now() - t0,
      };
      cases.push(result);
      onCase?.(result);
    }
  } finally {
    await cp.close();
  }
  return cases;
}

/**
 * Roles holder and prover: idsync is the issuer or the verifier. It serves a streamlined-vc or
 * streamlined-vp invitation at /connect (as JSON), hands its URL to `onInvitation`, and judges
 * the agent that accepts it.
 */
async function runAsInviter(options: RunOptions, role: 'holder' | 'prover'): Promise<ConformanceReport> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS;
  const started = Date.now();
  const cp = await startCounterpart({ resolve: options.resolve, postTimeoutMs: Math.max(timeoutMs, 1000), ...(options.transport ? { transport: options.transport } : {}) });
  const invitation = role === 'holder' ? issuerInvitation(cp.did, cp.baseUrl) : verifierInvitation(cp.did, cp.baseUrl);
  cp.onGet = (url) => (url.pathname === '/connect' ? { status: 200, type: 'application/json', body: JSON.stringify(invitation.message) } : undefined);
  options.onInvitation?.(invitation.url);
  const ctx: CaseContext = { cp, target: '', timeoutMs, acceptTimeoutMs: options.acceptTimeoutMs ?? 120_000, invitation: { ...invitation, results: [] } };
  const cases = await runCases(ctx, role === 'holder' ? ISSUER_ROLE_CASES : VERIFIER_ROLE_CASES, options.onCase, options.profile);
  const target = cp.target() ?? '(no agent accepted the invitation)';
  const played = role === 'holder' ? 'issuer (the agent under test is the holder' : 'verifier (the agent under test is the prover';
  return { target, role: `${played}; invitation ${invitation.url})`, harnessDid: cp.did, startedAt: new Date(started).toISOString(), durationMs: Date.now() - started, cases, summary: summarize(cases) };
}

/** The `--json` document of issue 9: target, cases {id, title, status, failedRules, messages}, summary. */
export function reportJson(report: ConformanceReport): Record<string, unknown> {
  return {
    target: report.target,
    cases: report.cases.map((c) => ({ id: c.id, title: c.title, status: c.status, failedRules: c.failedRules, messages: c.messages, section: c.section, ...(c.detail ? { detail: c.detail } : {}), ...(c.warnings.length ? { warnings: c.warnings } : {}), ...(c.advice?.length ? { advice: c.advice } : {}) })),
    summary: report.summary,
  };
}
