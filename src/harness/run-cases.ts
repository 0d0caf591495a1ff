// Runs cases one after the other against one counterpart and turns each outcome into a result:
// a case whose prerequisite was refused is blocked at once, without running; a case ends early
// when a refusal leaves nothing to wait for (CaseEnd); after each case every message the agent
// sent meanwhile is judged (judge.ts), and at the end the run-level case judges the rest.
import { blocked, CaseEnd, inconclusive, prerequisiteKey, type CaseContext, type CaseDefinition, type CaseOutcome } from './case-kit.js';
import { applyExpected, type ExpectedFailure } from './expected.js';
import { attribute, fails, findingsOf, MessageOwners, reusedIds, RUN_CASE } from './judge.js';
import { RUN_MODES } from './modes.js';
import type { BrokenRule, CaseInfo, CaseResult, CaseStatus, ExchangedMessage, RunProfile } from './types.js';

export interface CaseRunOptions {
  profile?: RunProfile;
  expected?: ExpectedFailure[];
  onCase?: (r: CaseResult) => void;
  /** Checked before each case: once aborted, the cases not yet run are left out. */
  signal?: AbortSignal;
}

/**
 * The prerequisite refused that blocks `def`, if any. A case blocked by the run's mode says in
 * which of the modes --mode offers the agent answered a ping, so that the user can run it there.
 */
function blockedBy(def: CaseDefinition, ctx: CaseContext): string | undefined {
  for (const p of ['reachable' as const, ...(def.needs ?? ['mode' as const])]) {
    const reason = ctx.blocked.get(prerequisiteKey(p, ctx.mode));
    if (!reason) continue;
    const elsewhere = p === 'mode' ? RUN_MODES.filter((m) => m !== ctx.mode && ctx.answered.has(m)) : [];
    return elsewhere.length ? `${reason}; it answered pings in ${elsewhere.join(', ')}: --mode ${elsewhere[0]} runs this case` : reason;
  }
  return undefined;
}

function statusOf(o: CaseOutcome, profile: RunProfile): CaseStatus {
  if (o.broken.some((b) => fails(b, profile))) return 'failed';
  return o.status ?? 'passed';
}

/** A failed case says what broke first; what else it found (an answer that never came) follows. */
function detailOf(status: CaseStatus, outcome: CaseOutcome, failing: BrokenRule[]): { detail?: string } {
  if (status !== 'failed') return outcome.detail ? { detail: outcome.detail } : {};
  const broke = failing.map((b) => `${b.rule}: ${b.detail}`).join('; ');
  return { detail: outcome.status && outcome.detail ? `${broke} (also: ${outcome.detail})` : (outcome.detail ?? broke) };
}

function resultOf(info: CaseInfo, outcome: CaseOutcome, messages: ExchangedMessage[], durationMs: number, o: CaseRunOptions): CaseResult {
  const profile = o.profile ?? 'liberal';
  const status = statusOf(outcome, profile);
  const failing = outcome.broken.filter((b) => fails(b, profile));
  const rules = (pick: (b: BrokenRule) => boolean) => [...new Set(outcome.broken.filter(pick).map((b) => b.rule))];
  // Advice: a rule without an RFC 2119 keyword (any severity other than error and warning).
  const advice = rules((b) => b.severity !== 'error' && b.severity !== 'warning' && !fails(b, profile));
  const result: CaseResult = {
    id: info.id,
    suite: info.suite,
    title: info.title,
    section: info.section,
    url: info.url,
    steps: info.steps,
    ...(info.judges ? { judges: info.judges } : {}),
    status,
    ...detailOf(status, outcome, failing),
    failedRules: [...new Set(failing.map((b) => b.rule))],
    warnings: rules((b) => b.severity === 'warning' && !fails(b, profile)),
    ...(advice.length ? { advice } : {}),
    broken: outcome.broken,
    ...(outcome.notes?.length ? { notes: outcome.notes } : {}),
    messages,
    durationMs,
  };
  return o.expected?.length ? applyExpected(result, o.expected, (b) => fails(b, profile)) : result;
}

/** Runs `defs` one after the other with `ctx`, then the run-level case; closes the counterpart. */
export async function runCases(ctx: CaseContext, defs: CaseDefinition[], o: CaseRunOptions = {}): Promise<CaseResult[]> {
  const { cp } = ctx;
  const cases: CaseResult[] = [];
  const owners = new MessageOwners();
  const late: ExchangedMessage[] = [];
  let judgedUpTo = 0;
  try {
    for (const def of defs) {
      if (o.signal?.aborted) break;
      const from = cp.log.length;
      const t0 = Date.now();
      let outcome: CaseOutcome;
      const reason = blockedBy(def, ctx);
      if (reason) outcome = blocked(reason);
      else {
        try {
          outcome = await def.run(ctx);
        } catch (err) {
          // A refusal ends a case with its verdict; anything else means the harness failed, not the agent.
          outcome = err instanceof CaseEnd ? err.outcome : inconclusive(`the case could not run: ${(err as Error)?.message ?? String(err)}`);
        }
      }
      const window = cp.log.slice(from);
      owners.addSent(def.id, window);
      const split = attribute(def.id, window, owners);
      for (const e of split.own) e.caseId = def.id;
      late.push(...split.late);
      const broken = [...outcome.broken];
      for (const e of split.own) broken.push(...findingsOf(e, broken));
      judgedUpTo = cp.log.length;
      const result = resultOf(def, { ...outcome, broken }, window, Date.now() - t0, o);
      cases.push(result);
      o.onCase?.(result);
    }
  } finally {
    await cp.close();
  }
  // What arrived after the last case ended belongs to the run too.
  late.push(...cp.log.slice(judgedUpTo).filter((e) => e.direction === 'received'));
  const run = runLevelCase(cp.log, late, o);
  cases.push(run);
  o.onCase?.(run);
  return cases;
}

function runLevelCase(log: ExchangedMessage[], late: ExchangedMessage[], o: CaseRunOptions): CaseResult {
  const received = log.filter((e) => e.direction === 'received');
  for (const e of late) e.caseId = RUN_CASE.id;
  const broken: BrokenRule[] = [];
  for (const e of late) broken.push(...findingsOf(e, broken));
  broken.push(...reusedIds(received));
  const shown = new Set([...late.map((e) => e.seq), ...broken.map((b) => b.seq)]);
  const messages = received.filter((e) => shown.has(e.seq));
  const outcome: CaseOutcome = received.length === 0
    ? { status: 'skipped', detail: 'the agent sent no message', broken }
    : { broken, notes: [`${received.length} message(s) from the agent judged; ${late.length} of them arrived after their case had ended`] };
  return resultOf(RUN_CASE, outcome, messages, 0, o);
}
