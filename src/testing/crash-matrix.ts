// The crash matrix (issue 10 part 7): a sync and an issuance workflow, each run with the service or
// the wallet killed at one named step (crash-point.ts: `send:<message>` once the step's state is
// stored and before its message goes out, `sent:<message>` after it went out), then restarted on
// the same store with nobody acting. Each case passes when the flow completes by itself: exactly
// one valid credential in the wallet, and the provider's view (the sync's or workflow's
// credential, the user's synced datapoints) matching the holder's. In-process (the testbed's
// crashAt()/restart()); test/e2e/crash-process.test.ts runs some of it with child processes.
// Used by `npm run bench:crash` (the whole matrix) and, in part, by the tests.
import { startTestbed, type Testbed } from './testbed.js';
import { waitForState } from './wait.js';
import type { Wallet } from '../wallet/wallet.js';
import { listSyncOperations } from '../service/didcomm-seam.js';
import type { StoredCredential } from '../wallet/credential-store.js';

export type CrashFlow = 'sync' | 'workflow';
export type CrashSide = 'service' | 'wallet';

export interface CrashCase {
  flow: CrashFlow;
  side: CrashSide;
  step: string;
}

export type CrashOutcomeKind = 'completed' | 'not-reached' | 'stuck';

export interface CrashOutcome extends CrashCase {
  outcome: CrashOutcomeKind;
  /** From the crash to the flow's completion (completed cases), ms. */
  recoveryMs?: number;
  detail?: string;
}

/** Every step each side passes in each flow, in flow order. */
export const CRASH_STEPS: Record<CrashFlow, Record<CrashSide, string[]>> = {
  sync: {
    wallet: [
      'send:data-pipe.request', 'sent:data-pipe.request', 'send:presentation', 'sent:presentation',
      'send:request-credential', 'sent:request-credential', 'send:issue-credential.ack', 'sent:issue-credential.ack',
    ],
    service: [
      'send:established', 'sent:established', 'send:request-presentation', 'sent:request-presentation', 'send:present-proof.ack',
      'send:offer-credential', 'sent:offer-credential', 'send:issue-credential', 'sent:issue-credential', 'received:issue-credential.ack',
    ],
  },
  workflow: {
    wallet: [
      'send:propose-credential', 'sent:propose-credential', 'send:request-credential', 'sent:request-credential',
      'send:issue-credential.ack', 'sent:issue-credential.ack',
    ],
    service: ['send:offer-credential', 'sent:offer-credential', 'send:issue-credential', 'sent:issue-credential', 'received:issue-credential.ack'],
  },
};

export function crashCases(filter: Partial<CrashCase> = {}): CrashCase[] {
  const out: CrashCase[] = [];
  for (const flow of ['sync', 'workflow'] as const) {
    for (const side of ['service', 'wallet'] as const) {
      for (const step of CRASH_STEPS[flow][side]) {
        if ((filter.flow ?? flow) === flow && (filter.side ?? side) === side && (filter.step ?? step) === step) out.push({ flow, side, step });
      }
    }
  }
  return out;
}

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };

interface Done {
  credential: StoredCredential;
}

/** The flow's end state, when reached: one valid credential held, the provider's view the same. */
async function finished(bed: Testbed, wallet: Wallet, flow: CrashFlow, subject: string): Promise<Done | string> {
  const valid = (await wallet.credentials()).filter((c) => c.status === 'valid');
  if (valid.length !== 1) return `the wallet holds ${valid.length} valid credentials`;
  const credential = valid[0];
  if (flow === 'workflow') {
    const wf = await bed.service.client.getWorkflow(subject);
    if (wf.status !== 'COMPLETED') return `workflow ${wf.status}`;
    if (wf.credentialId !== credential.id) return `workflow credential ${String(wf.credentialId)} ≠ held ${credential.id}`;
    return { credential };
  }
  const ops = await listSyncOperations(bed.service.deps.store, { tenantId: bed.service.tenantId, userId: subject });
  const completed = ops.filter((o) => o.status === 'completed');
  if (completed.length !== 1) return `sync operations ${ops.map((o) => o.status).join(',') || 'none'}`;
  if ((completed[0] as { credentialId?: string }).credentialId !== credential.id) return 'the sync names another credential';
  const ctx = await bed.service.client.syncContext(subject);
  if (!ctx.isLinked) return 'user not linked';
  if (ctx.syncContext.datapointsSynced?.firstName !== DATAPOINTS.firstName) return 'datapoints not synced';
  if (credential.claims.firstName !== DATAPOINTS.firstName) return 'the credential holds other claims';
  return { credential };
}

/**
 * Runs one case on a fresh testbed: the flow starts, the party crashes at `step`, restarts on its
 * store, and the flow must complete without anyone acting within `timeoutMs`.
 */
export async function runCrashCase(c: CrashCase, o: { timeoutMs?: number } = {}): Promise<CrashOutcome> {
  const timeoutMs = o.timeoutMs ?? 8_000;
  // Retries as a soak's: a lost message is sent again after ~100 ms, at most 500 ms apart.
  const bed = await startTestbed({ wallets: 1, retry: { baseDelayMs: 100, maxDelayMs: 500 } });
  try {
    let wallet = bed.wallets[0]!;
    const crashed = bed.crashAt(c.side === 'service' ? 'service' : wallet, c.step);
    let subject: string;
    let url: string;
    if (c.flow === 'sync') {
      subject = 'crash-user';
      await bed.service.client.putUser(subject, { settings: { isSyncOn: true } });
      // Owed until the Data Pipe is up: the whole sync follows from the one acceptance.
      await bed.service.client.putDatapoints(subject, DATAPOINTS);
      url = (await bed.service.client.invite(subject)).invitationUrl!;
    } else {
      const wf = await bed.service.client.createWorkflow({ datapoints: DATAPOINTS });
      subject = wf.id;
      url = wf.invitationUrl;
    }
    // The user's one action; after the crash nobody acts again.
    const accepted = wallet.acceptInvitation(url).then((a): Promise<unknown> | unknown => (a.kind === 'issuance' ? a.done : a.connection));
    accepted.catch(() => undefined);
    const check = () => finished(bed, wallet, c.flow, subject);
    const endedFirst = waitForState('the flow', check, (v) => typeof v !== 'string', undefined, { timeoutMs, pollMs: 20 }).then(() => 'done' as const);
    endedFirst.catch(() => undefined);
    const first = await Promise.race([crashed.then(() => 'crashed' as const), endedFirst]).catch(() => 'stuck' as const);
    if (first !== 'crashed') {
      return { ...c, outcome: 'not-reached', detail: first === 'done' ? 'the flow completed without passing this step' : 'neither crashed nor completed' };
    }
    const crashAt = performance.now();
    if (c.side === 'service') await bed.restart('service');
    else wallet = (await bed.restart(wallet))!;
    const last = await waitForState('the flow after the restart', check, (v) => typeof v !== 'string', undefined, { timeoutMs, pollMs: 20 }).catch((err: unknown) => err as Error);
    if (last instanceof Error) return { ...c, outcome: 'stuck', detail: last.message.replace(/^.*last seen: /, '') };
    return { ...c, outcome: 'completed', recoveryMs: Math.round(performance.now() - crashAt) };
  } finally {
    await bed.close();
  }
}

/** Runs cases `concurrency` at a time (each on its own testbed). */
export async function runCrashMatrix(cases: CrashCase[], o: { concurrency?: number; timeoutMs?: number; onCase?: (r: CrashOutcome) => void } = {}): Promise<CrashOutcome[]> {
  const results: CrashOutcome[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      results[i] = await runCrashCase(cases[i]!, o).catch((err: unknown) => ({ ...cases[i]!, outcome: 'stuck' as const, detail: (err as Error).message }));
      o.onCase?.(results[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency ?? 4, cases.length)) }, worker));
  return results;
}
