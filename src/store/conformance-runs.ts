// Conformance runs started from a console, kept as their history: one small record per run (what
// was asked, its state, each case as it ended, the summary) and, apart, the whole report (every
// message exchanged: tens of KB), written once when the run ends. Keys are a scope (a tenant, or
// the wallet) and a run id that sorts by time, so a scope's history lists newest first without
// reading a report. The report is kept as the harness wrote it (the store imports no layer above).
import { IdsyncError } from '../errors.js';
import type { BatchOp, Store } from './store.js';

export const CONFORMANCE_RUNS_COLLECTION = 'conformance-runs';
export const CONFORMANCE_REPORTS_COLLECTION = 'conformance-reports';

/**
 * `queued` waits its turn; `running`; `finished` ran to its end (its verdict is in `exitCode`);
 * `cancelled` stopped on request (the cases it ran are kept); `failed` could not run (the error
 * says why); `interrupted` was queued or running when the process stopped.
 */
export type ConformanceRunState = 'queued' | 'running' | 'finished' | 'cancelled' | 'failed' | 'interrupted';

/** One case of a run as it ended (the whole case, with its messages, is in the report). */
export interface StoredCase {
  id: string;
  title: string;
  status: string;
  failedRules: string[];
  warnings?: string[];
  advice?: string[];
  detail?: string;
  durationMs: number;
}

export interface ConformanceRunRecord {
  /** Sorts by creation time; URL-safe. */
  id: string;
  /** Whose history it belongs to: a tenant id, or 'wallet'. */
  scope: string;
  /** A DID or an out-of-band invitation URL. */
  target: string;
  /** What the target is to the person who chose it, e.g. "the twin's own agent". */
  label?: string;
  options: { mode?: string; profile?: string; suites?: string[]; timeoutMs?: number };
  state: ConformanceRunState;
  /** Who started it (a client id, or 'wallet'). */
  requestedBy: string;
  /** ISO 8601. */
  createdAt: string;
  startedAt?: string;
  /** A running run asked to stop: it ends after the case under way. */
  cancelRequestedAt?: string;
  endedAt?: string;
  cases: StoredCase[];
  summary?: Record<string, number>;
  /** The run's exit status as `conformance run` gives it: 0 passed, 1 failed, 3 nothing judged. */
  exitCode?: number;
  error?: { code: string; message: string };
  /** Whether the whole report was kept (a finished or cancelled run). */
  hasReport: boolean;
}

export interface ConformanceRuns {
  /** Writes the record; with `report`, the report too, in one batch. */
  put(rec: ConformanceRunRecord, report?: unknown): Promise<void>;
  get(scope: string, id: string): Promise<ConformanceRunRecord | undefined>;
  /** A scope's runs, newest first. */
  list(scope: string, o?: { limit?: number }): Promise<ConformanceRunRecord[]>;
  /** Every scope's runs in a state (what a restart finds queued or running). */
  inState(states: readonly ConformanceRunState[]): Promise<ConformanceRunRecord[]>;
  report(scope: string, id: string): Promise<unknown>;
  /** Deletes a scope's runs (and reports) beyond the newest `keep`. */
  prune(scope: string, keep: number): Promise<number>;
}

const SEP = '\u0000';
const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;

function keyOf(scope: string, id: string): string {
  if (typeof scope !== 'string' || scope.length === 0 || scope.length > 256 || scope.includes(SEP)) throw new IdsyncError('invalid_argument', 'a run scope is 1-256 characters without NUL');
  if (!RUN_ID.test(id)) throw new IdsyncError('invalid_argument', `not a run id: ${id.slice(0, 80)}`);
  return `${scope}${SEP}${id}`;
}

export function conformanceRuns(store: Store): ConformanceRuns {
  const runs = store.collection<ConformanceRunRecord>(CONFORMANCE_RUNS_COLLECTION);
  const reports = store.collection<unknown>(CONFORMANCE_REPORTS_COLLECTION);
  return {
    async put(rec, report) {
      const key = keyOf(rec.scope, rec.id);
      const ops: BatchOp[] = [{ type: 'put', collection: CONFORMANCE_RUNS_COLLECTION, key, value: rec }];
      if (report !== undefined) ops.push({ type: 'put', collection: CONFORMANCE_REPORTS_COLLECTION, key, value: report });
      await store.batch(ops);
    },
    async get(scope, id) {
      return RUN_ID.test(id) ? runs.get(keyOf(scope, id)) : undefined;
    },
    async list(scope, o = {}) {
      keyOf(scope, 'x');
      return (await runs.list({ prefix: `${scope}${SEP}`, reverse: true, ...(o.limit !== undefined ? { limit: o.limit } : {}) })).map((e) => e.value);
    },
    async inState(states) {
      return (await runs.list()).map((e) => e.value).filter((r) => states.includes(r.state));
    },
    async report(scope, id) {
      return RUN_ID.test(id) ? reports.get(keyOf(scope, id)) : undefined;
    },
    async prune(scope, keep) {
      keyOf(scope, 'x');
      const old = (await runs.list({ prefix: `${scope}${SEP}`, reverse: true })).slice(keep);
      if (old.length === 0) return 0;
      await store.batch(old.flatMap((e) => [
        { type: 'del' as const, collection: CONFORMANCE_RUNS_COLLECTION, key: e.key },
        { type: 'del' as const, collection: CONFORMANCE_REPORTS_COLLECTION, key: e.key },
      ]));
      return old.length;
    },
  };
}
