// A soak run: many whole sync flows (connect a wallet, sync datapoints, credential stored, user
// linked) through one testbed under a fault plan, each flow given a deadline. Every flow is
// accounted for: completed, with its time, or failed, with the step it had not got past. Used by
// `npm run bench:soak` and, small, by the tests.
import { startTestbed, type Testbed, type TestbedOptions } from './testbed.js';
import type { FaultKind, FaultPlan } from './fault-plan.js';
import type { Wallet } from '../wallet/wallet.js';
import { listSyncOperations } from '../service/didcomm-seam.js';

export type SoakStep = 'invite' | 'data-pipe' | 'sync' | 'credential' | 'linked';

export interface SoakOptions {
  flows: number;
  /** Flows in progress at once (default 20). */
  concurrency?: number;
  faults: FaultPlan;
  /** A flow not done after this long has failed (default 10 s). */
  flowTimeoutMs?: number;
  testbed?: Omit<TestbedOptions, 'faults' | 'wallets'>;
  /** Called as each flow ends. */
  onFlow?: (flow: SoakFlow) => void;
  /** Called for a failed flow before the testbed closes (diagnostics). */
  onFailure?: (flow: SoakFlow, bed: Testbed, wallet: Wallet) => Promise<void>;
}

export interface SoakFlow {
  index: number;
  ok: boolean;
  ms: number;
  /** The step the flow had not completed (failed flows). */
  stuckAt?: SoakStep;
  error?: string;
}

export interface SoakResult {
  flows: number;
  completed: number;
  failed: number;
  /** Failed flows by the step they stopped before. */
  failedAt: Partial<Record<SoakStep, number>>;
  faults: Record<FaultKind, number>;
  /** Completion time of completed flows, ms. */
  p50Ms: number | null;
  p99Ms: number | null;
  wallMs: number;
  results: SoakFlow[];
}

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function oneFlow(bed: Testbed, wallet: Wallet, index: number, timeoutMs: number): Promise<SoakFlow> {
  const { client, agent } = bed.service;
  const userId = `soak-${index}`;
  const started = performance.now();
  let step: SoakStep = 'invite';
  const endsAt = started + timeoutMs;
  const left = () => Math.max(1, Math.round(endsAt - performance.now()));
  try {
    await client.putUser(userId, { settings: { isSyncOn: true } });
    const { invitationUrl } = await client.invite(userId);
    step = 'data-pipe';
    const established = agent.waitFor<{ userId: string }>('data-pipe-established', (e) => e.userId === userId, left());
    established.catch(() => undefined);
    await wallet.acceptInvitation(invitationUrl!, { timeoutMs: left() });
    await established;
    step = 'sync';
    const completed = agent.waitFor<{ userId: string }>('sync-completed', (e) => e.userId === userId, left());
    const stored = wallet.waitForCredential({ timeoutMs: left() });
    completed.catch(() => undefined);
    stored.catch(() => undefined);
    await client.putDatapoints(userId, DATAPOINTS);
    await stored;
    step = 'credential';
    await completed;
    step = 'linked';
    if (!(await client.syncContext(userId)).isLinked) throw new Error('not linked after the sync');
    return { index, ok: true, ms: performance.now() - started };
  } catch (err) {
    // What the service made of it: the user's sync operations and how they ended.
    const ops = await listSyncOperations(bed.service.deps.store, { tenantId: bed.service.tenantId, userId }).catch(() => []);
    const seen = ops.map((o) => `${o.status}${o.error ? ` (${o.error})` : ''}`).join(', ');
    return { index, ok: false, ms: performance.now() - started, stuckAt: step, error: `${(err as { code?: string }).code ?? (err as Error).message}; syncs: ${seen || 'none'}` };
  }
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const concurrency = Math.max(1, o.concurrency ?? 20);
  const timeoutMs = o.flowTimeoutMs ?? 10_000;
  // Lost messages are recovered by the senders' retries (router/steps); a soak's flows have
  // seconds, not minutes, so its retries start after ~150 ms and wait at most 1 s.
  const bed = await startTestbed({ retry: { baseDelayMs: 150, maxDelayMs: 1_000 }, ...o.testbed, wallets: 0, faults: o.faults });
  // Every flow in progress waits on the agent's events: `concurrency` × a few listeners.
  bed.service.agent.events.setMaxListeners(0);
  const started = performance.now();
  try {
    const results: SoakFlow[] = [];
    let next = 0;
    const worker = async () => {
      while (next < o.flows) {
        const index = next++;
        const wallet = await bed.addWallet();
        const flow = await oneFlow(bed, wallet, index, timeoutMs);
        if (!flow.ok) await o.onFailure?.(flow, bed, wallet).catch(() => undefined);
        results.push(flow);
        o.onFlow?.(flow);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, o.flows) }, worker));
    results.sort((a, b) => a.index - b.index);
    const times = results.filter((r) => r.ok).map((r) => r.ms).sort((a, b) => a - b);
    const failedAt: SoakResult['failedAt'] = {};
    for (const r of results) if (!r.ok) failedAt[r.stuckAt!] = (failedAt[r.stuckAt!] ?? 0) + 1;
    return {
      flows: o.flows,
      completed: times.length,
      failed: o.flows - times.length,
      failedAt,
      faults: bed.faults!.counts(),
      p50Ms: percentile(times, 50),
      p99Ms: percentile(times, 99),
      wallMs: performance.now() - started,
      results,
    };
  } finally {
    await bed.close();
  }
}

/** The issue's fault mix: 10 % drop, 5 % duplicate, 2 % reorder, 1 % tamper, on every DIDComm message both ways. */
export function soakFaults(seed = 1): FaultPlan {
  return {
    seed,
    rules: [
      { fault: 'drop', probability: 0.1 },
      { fault: 'duplicate', probability: 0.05 },
      { fault: 'reorder', probability: 0.02 },
      { fault: 'tamper', probability: 0.01 },
    ],
  };
}
