// Conformance runs started from a console: checked, queued and run through the harness's public
// interface (runConformance, as `idsync conformance run` calls it), each case told to watchers as
// it ends, and the history kept in the store with each report (store/conformance-runs.ts). Runs
// never hold the twin up: at most one runs per scope (a tenant, or the wallet) with a short queue
// behind it, and at most `maxRunning` at once in all; a start beyond that is refused with 429
// conformance_busy. A cancelled run stops between two cases and keeps those it ran; a run the
// harness could not start (an invitation URL that holds no invitation) is recorded as failed; one
// a restart finds queued or running is recorded as interrupted.
import type { Clock } from '../../clock.js';
import type { DocumentResolver } from '../../did/types.js';
import { randomId } from '../../encoding.js';
import { toIdsyncError } from '../../errors.js';
import { runExitCode } from '../../harness/exit-code.js';
import { DEFAULT_CASE_TIMEOUT_MS, DID_SUITES, INVITATION_SUITES, RUN_MODES, runConformance } from '../../harness/run.js';
import type { CaseResult, ConformanceReport, HarnessMode, RunProfile } from '../../harness/types.js';
import { problem } from '../../service/http/problem.js';
import { conformanceRuns, type ConformanceRunRecord, type ConformanceRuns, type StoredCase } from '../../store/conformance-runs.js';
import type { Store } from '../../store/store.js';
import { timeKey } from '../../store/time-key.js';

export interface RunRequest {
  /** A DID, or an out-of-band invitation URL. */
  target: string;
  label?: string;
  mode?: HarnessMode;
  profile?: RunProfile;
  suites?: string[];
  timeoutMs?: number;
}

export type RunEvent = { kind: 'queued' | 'started' | 'case' | 'ended'; run: ConformanceRunRecord };

export interface ConformanceRunner {
  /** Queues a run (or starts it at once); throws 400 for a bad request, 429 when too many wait. */
  start(scope: string, requestedBy: string, request: RunRequest): Promise<ConformanceRunRecord>;
  /** Cancels a queued run at once, or a running one after its current case; 404 unknown, 409 already ended. */
  cancel(scope: string, id: string): Promise<ConformanceRunRecord>;
  get(scope: string, id: string): Promise<ConformanceRunRecord | undefined>;
  list(scope: string): Promise<ConformanceRunRecord[]>;
  /** The whole report of a finished or cancelled run. */
  report(scope: string, id: string): Promise<ConformanceReport | undefined>;
  watch(listener: (e: RunEvent) => void): () => void;
  /** Cancels what is queued and running and waits for the runs to end (before the store closes). */
  close(): Promise<void>;
}

export interface RunnerOptions {
  store: Store;
  clock: Clock;
  resolve: DocumentResolver;
  /** Runs waiting behind the one running, per scope (default 2). */
  maxQueuedPerScope?: number;
  /** Runs at once across scopes (default 2: the machine the twin runs on also serves it). */
  maxRunning?: number;
  /** Runs kept per scope, the oldest deleted first (default 50). */
  keep?: number;
}

const MAX_TARGET = 16 * 1024;
const TERMINAL = new Set(['finished', 'cancelled', 'failed', 'interrupted']);

/** A request's target and options checked, as the CLI checks its flags: a bad one is a 400 now, not a failed run later. */
export function checkRequest(r: RunRequest): RunRequest {
  const target = r.target.trim();
  const isUrl = /^https?:\/\//i.test(target);
  if (!isUrl && !/^did:[a-z0-9]+:\S+$/.test(target)) throw problem('invalid_request', 'the target must be a DID or an out-of-band invitation URL (http or https)');
  if (target.length > MAX_TARGET) throw problem('invalid_request', `the target is longer than ${MAX_TARGET} characters`);
  if (r.mode !== undefined && !RUN_MODES.includes(r.mode)) throw problem('invalid_request', `mode must be one of ${RUN_MODES.join(', ')}`);
  if (r.profile !== undefined && r.profile !== 'liberal' && r.profile !== 'strict') throw problem('invalid_request', 'profile must be liberal or strict');
  const known = isUrl ? INVITATION_SUITES : DID_SUITES;
  const unknown = (r.suites ?? []).filter((s) => !known.includes(s));
  if (unknown.length) throw problem('invalid_request', `unknown suite ${unknown.join(', ')} (for ${isUrl ? 'an invitation URL' : 'a DID'}: ${known.join(', ')})`);
  if (r.timeoutMs !== undefined && !(Number.isInteger(r.timeoutMs) && r.timeoutMs >= 100 && r.timeoutMs <= 60_000)) throw problem('invalid_request', 'timeoutMs must be a whole number in [100, 60000]');
  return { ...r, target };
}

function storedCase(c: CaseResult): StoredCase {
  return {
    id: c.id, title: c.title, status: c.status, failedRules: c.failedRules, durationMs: c.durationMs,
    ...(c.warnings.length ? { warnings: c.warnings } : {}),
    ...(c.advice?.length ? { advice: c.advice } : {}),
    ...(c.detail ? { detail: c.detail } : {}),
  };
}

interface Active {
  rec: ConformanceRunRecord;
  request: RunRequest;
  ctl: AbortController;
  /** Writes of this run, one after the other (a case's progress never overtakes the end). */
  writes: Promise<void>;
  done?: Promise<void>;
}

export function conformanceRunner(o: RunnerOptions): ConformanceRunner {
  const runs: ConformanceRuns = conformanceRuns(o.store);
  const maxQueued = o.maxQueuedPerScope ?? 2;
  const maxRunning = o.maxRunning ?? 2;
  const keep = o.keep ?? 50;
  const waiting: Active[] = [];
  const running = new Map<string, Active>();
  const listeners = new Set<(e: RunEvent) => void>();
  const iso = () => new Date(o.clock.now()).toISOString();
  const tell = (kind: RunEvent['kind'], a: Active) => {
    const run = structuredClone(a.rec);
    for (const l of [...listeners]) l({ kind, run });
  };
  const save = (a: Active, report?: ConformanceReport): Promise<void> => {
    const rec = structuredClone(a.rec);
    a.writes = a.writes.then(() => runs.put(rec, report)).catch(() => undefined);
    return a.writes;
  };
  // What a restart finds unfinished was cut short by the stop.
  const recovered = runs.inState(['queued', 'running']).then(async (stale) => {
    for (const r of stale) await runs.put({ ...r, state: 'interrupted', endedAt: iso(), error: { code: 'aborted', message: 'the process stopped while the run was queued or running' } });
  }).catch(() => undefined);

  async function execute(a: Active): Promise<void> {
    const r = a.request;
    a.rec = { ...a.rec, state: 'running', startedAt: iso() };
    await save(a);
    tell('started', a);
    let report: ConformanceReport | undefined;
    try {
      report = await runConformance({
        target: r.target,
        resolve: o.resolve,
        signal: a.ctl.signal,
        timeoutMs: r.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS,
        ...(r.mode ? { mode: r.mode } : {}),
        ...(r.profile ? { profile: r.profile } : {}),
        ...(r.suites?.length ? { suites: r.suites } : {}),
        onCase: (c) => {
          a.rec = { ...a.rec, cases: [...a.rec.cases, storedCase(c)] };
          void save(a);
          tell('case', a);
        },
      });
      a.rec = {
        ...a.rec,
        state: a.ctl.signal.aborted ? 'cancelled' : 'finished',
        cases: report.cases.map(storedCase),
        summary: { ...report.summary },
        exitCode: runExitCode(report),
        hasReport: true,
      };
    } catch (err) {
      const e = toIdsyncError(err);
      a.rec = { ...a.rec, state: a.ctl.signal.aborted ? 'cancelled' : 'failed', error: { code: e.code, message: e.message } };
    }
    a.rec = { ...a.rec, endedAt: iso() };
    await save(a, report);
    await runs.prune(a.rec.scope, keep).catch(() => undefined);
    tell('ended', a);
  }

  function pump(): void {
    for (let i = 0; i < waiting.length && running.size < maxRunning; ) {
      const a = waiting[i]!;
      if (running.has(a.rec.scope)) {
        i++;
        continue;
      }
      waiting.splice(i, 1);
      running.set(a.rec.scope, a);
      a.done = execute(a).finally(() => {
        running.delete(a.rec.scope);
        pump();
      });
    }
  }

  return {
    async start(scope, requestedBy, request) {
      const checked = checkRequest(request);
      await recovered;
      const queued = waiting.filter((w) => w.rec.scope === scope).length;
      const wouldWait = running.has(scope) || running.size >= maxRunning || queued > 0;
      if (wouldWait && queued >= maxQueued) {
        throw problem('conformance_busy', `${running.has(scope) ? 'a run is under way and ' : ''}${queued} wait${queued === 1 ? 's' : ''} behind it; start this one when one has ended`, { running: running.has(scope), queued }, { 'Retry-After': '5' });
      }
      const rec: ConformanceRunRecord = {
        id: `${timeKey(o.clock.now())}-${randomId(6)}`,
        scope,
        target: checked.target,
        ...(checked.label ? { label: checked.label.slice(0, 200) } : {}),
        options: {
          mode: checked.mode ?? 'authcrypt',
          profile: checked.profile ?? 'liberal',
          ...(checked.suites?.length ? { suites: checked.suites } : {}),
          timeoutMs: checked.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS,
        },
        state: 'queued',
        requestedBy,
        createdAt: iso(),
        cases: [],
        hasReport: false,
      };
      const a: Active = { rec, request: checked, ctl: new AbortController(), writes: Promise.resolve() };
      await save(a);
      waiting.push(a);
      tell('queued', a);
      pump();
      return structuredClone(a.rec);
    },
    async cancel(scope, id) {
      const queuedAt = waiting.findIndex((w) => w.rec.scope === scope && w.rec.id === id);
      if (queuedAt >= 0) {
        const [a] = waiting.splice(queuedAt, 1);
        a!.rec = { ...a!.rec, state: 'cancelled', endedAt: iso() };
        await save(a!);
        tell('ended', a!);
        return structuredClone(a!.rec);
      }
      const a = running.get(scope);
      if (a && a.rec.id === id) {
        if (!a.ctl.signal.aborted) {
          a.ctl.abort();
          a.rec = { ...a.rec, cancelRequestedAt: iso() };
          void save(a);
          tell('case', a);
        }
        return structuredClone(a.rec);
      }
      const rec = await runs.get(scope, id);
      if (!rec) throw problem('not_found', `no conformance run ${id}`);
      if (TERMINAL.has(rec.state)) throw problem('invalid_state', `the run has ended (${rec.state})`);
      return rec;
    },
    get: (scope, id) => recovered.then(() => runs.get(scope, id)),
    list: (scope) => recovered.then(() => runs.list(scope)),
    async report(scope, id) {
      return (await runs.report(scope, id)) as ConformanceReport | undefined;
    },
    watch(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async close() {
      for (const a of waiting.splice(0)) {
        a.rec = { ...a.rec, state: 'cancelled', endedAt: iso() };
        await save(a);
      }
      const under = [...running.values()];
      for (const a of under) a.ctl.abort();
      await Promise.all(under.map((a) => a.done));
      listeners.clear();
    },
  };
}
