// The crash matrix: four flows (a sync over an established Data Pipe, an invitation accepted with
// its first sync, an issuance workflow over the Data Pipe, an issuance workflow by e-mail), each
// run with the service or the wallet killed at one named step (crash-point.ts: `send:<message>`
// once the step is stored and before its message goes out, `sent:<message>` after it went out,
// `received:issue-credential.ack` once the holder's ack is stored), then restarted on the same
// store with nobody acting. A case passes when the flow completes by itself: exactly one valid
// credential in the wallet, and the provider's view (the sync's or workflow's credential, the
// user's synced datapoints) equal to the holder's. Recovery is timed from the restart to that
// state. Both parties run with their default retries. In-process (the testbed's crashAt() and
// restart()); `npm run bench:crash` runs the whole matrix, and with --processes real processes
// killed at random moments (bench/crash-processes.ts).
import { startTestbed, type Testbed } from './testbed.js';
import { waitForState } from './wait.js';
import type { Wallet } from '../wallet/wallet.js';
import { listSyncOperations } from '../service/didcomm-seam.js';
import type { StoredCredential } from '../wallet/credential-store.js';
import type { StepRetryOptions } from '../wallet/options.js';

export type CrashFlow = 'sync' | 'invitation' | 'workflow-didcomm' | 'workflow-email';
export type CrashSide = 'service' | 'wallet';
export const CRASH_FLOWS: CrashFlow[] = ['sync', 'invitation', 'workflow-didcomm', 'workflow-email'];

export interface CrashCase {
  flow: CrashFlow;
  side: CrashSide;
  step: string;
}

export type CrashOutcomeKind = 'completed' | 'not-reached' | 'stuck';

export interface CrashOutcome extends CrashCase {
  outcome: CrashOutcomeKind;
  /** From the restart to the flow's completion (completed cases), ms. */
  recoveryMs?: number;
  detail?: string;
}

const both = (...names: string[]) => names.flatMap((n) => [`send:${n}`, `sent:${n}`]);
const SYNC_SERVICE = [...both('request-presentation', 'present-proof.ack', 'offer-credential', 'issue-credential'), 'received:issue-credential.ack'];
const SYNC_WALLET = both('presentation', 'request-credential', 'issue-credential.ack');
const ISSUE_SERVICE = [...both('offer-credential', 'issue-credential'), 'received:issue-credential.ack'];
const ISSUE_WALLET = both('propose-credential', 'request-credential', 'issue-credential.ack');

/** Every step each side passes in each flow, in flow order. */
export const CRASH_STEPS: Record<CrashFlow, Record<CrashSide, string[]>> = {
  sync: { service: SYNC_SERVICE, wallet: SYNC_WALLET },
  invitation: { service: [...both('established'), ...SYNC_SERVICE], wallet: [...both('data-pipe.request'), ...SYNC_WALLET] },
  'workflow-didcomm': { service: [...both('invitation'), ...ISSUE_SERVICE], wallet: ISSUE_WALLET },
  'workflow-email': { service: ISSUE_SERVICE, wallet: ISSUE_WALLET },
};

export function crashCases(filter: Partial<CrashCase> = {}): CrashCase[] {
  const out: CrashCase[] = [];
  for (const flow of CRASH_FLOWS) {
    for (const side of ['service', 'wallet'] as const) {
      for (const step of CRASH_STEPS[flow][side]) {
        if ((filter.flow ?? flow) === flow && (filter.side ?? side) === side && (filter.step ?? step) === step) out.push({ flow, side, step });
      }
    }
  }
  return out;
}

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };

/** The flow's end state, when reached: one valid credential held, the provider's view the same. */
async function finished(bed: Testbed, wallet: Wallet, flow: CrashFlow, subject: string): Promise<{ credential: StoredCredential } | string> {
  const valid = (await wallet.credentials()).filter((c) => c.status === 'valid');
  if (valid.length !== 1) return `the wallet holds ${valid.length} valid credentials`;
  const credential = valid[0]!;
  if (flow === 'workflow-didcomm' || flow === 'workflow-email') {
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

/** The user's Data Pipe, established before the flow under test (sync, workflow over the pipe). */
async function linked(bed: Testbed, wallet: Wallet, userId: string): Promise<void> {
  await bed.service.client.putUser(userId, { settings: { isSyncOn: true } });
  const url = (await bed.service.client.invite(userId)).invitationUrl!;
  const accepted = await wallet.acceptInvitation(url);
  if (accepted.kind === 'data-pipe') await accepted.connection;
}

/**
 * Runs one case on a fresh testbed: the flow starts, the party crashes at `step`, restarts on its
 * store, and the flow must complete without anyone acting within `timeoutMs` of the restart.
 * `retry`: the parties' retries (default theirs, as shipped).
 */
export async function runCrashCase(c: CrashCase, o: { timeoutMs?: number; retry?: StepRetryOptions } = {}): Promise<CrashOutcome> {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const bed = await startTestbed({ wallets: 1, webhooks: false, policy: { invitations: 'auto' }, ...(o.retry ? { retry: o.retry } : {}) });
  try {
    let wallet = bed.wallets[0]!;
    const { client } = bed.service;
    let subject = 'crash-user';
    // What happens before the crash is armed (a Data Pipe the flow runs over).
    if (c.flow === 'sync' || c.flow === 'workflow-didcomm') await linked(bed, wallet, subject);
    let workflow: { id: string; invitationUrl: string } | undefined;
    if (c.flow === 'workflow-didcomm' || c.flow === 'workflow-email') {
      workflow = await client.createWorkflow({ datapoints: DATAPOINTS, ...(c.flow === 'workflow-didcomm' ? { userId: subject, userDID: wallet.did } : {}) });
      subject = workflow.id;
    }
    const crashed = bed.crashAt(c.side === 'service' ? 'service' : wallet, c.step);
    // The user's one action; after the crash nobody acts again.
    const act = async (): Promise<void> => {
      if (c.flow === 'sync') await client.putDatapoints(subject, DATAPOINTS);
      else if (c.flow === 'invitation') {
        await client.putUser(subject, { settings: { isSyncOn: true } });
        // Owed until the Data Pipe is up: the whole sync follows from the one acceptance.
        await client.putDatapoints(subject, DATAPOINTS);
        const a = await wallet.acceptInvitation((await client.invite(subject)).invitationUrl!);
        if (a.kind === 'data-pipe') await a.connection;
      } else if (c.flow === 'workflow-didcomm') {
        // The wallet accepts what arrives on its Data Pipe (policy invitations: 'auto').
        await client.sendInvitation(workflow!.id, [{ channel: 'DIDCOMM', target: wallet.did }]);
      } else {
        await client.sendInvitation(workflow!.id, [{ channel: 'EMAIL', target: 'ada@example.com' }]);
        const [mail] = await client.outbox({ workflowId: workflow!.id, channel: 'EMAIL' });
        const a = await wallet.acceptInvitation(mail!.invitationUrl);
        if (a.kind === 'issuance') await a.done;
      }
    };
    const acting = act();
    acting.catch(() => undefined);
    const check = () => finished(bed, wallet, c.flow, subject);
    const endedFirst = waitForState('the flow', check, (v) => typeof v !== 'string', undefined, { timeoutMs, pollMs: 10 }).then(() => 'done' as const);
    endedFirst.catch(() => undefined);
    const first = await Promise.race([crashed.then(() => 'crashed' as const), endedFirst]).catch(() => 'stuck' as const);
    if (first !== 'crashed') {
      return { ...c, outcome: 'not-reached', detail: first === 'done' ? 'the flow completed without passing this step' : 'neither crashed nor completed' };
    }
    if (c.side === 'service') await bed.restart('service');
    else wallet = (await bed.restart(wallet))!;
    const restartedAt = performance.now();
    const last = await waitForState('the flow after the restart', check, (v) => typeof v !== 'string', undefined, { timeoutMs, pollMs: 10 }).catch((err: unknown) => err as Error);
    if (last instanceof Error) return { ...c, outcome: 'stuck', detail: last.message.replace(/^.*last seen: /, '') };
    return { ...c, outcome: 'completed', recoveryMs: Math.round(performance.now() - restartedAt) };
  } finally {
    await bed.close();
  }
}

/** Runs cases `concurrency` at a time (each on its own testbed). */
export async function runCrashMatrix(
  cases: CrashCase[],
  o: { concurrency?: number; timeoutMs?: number; retry?: StepRetryOptions; onCase?: (r: CrashOutcome) => void } = {},
): Promise<CrashOutcome[]> {
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

/** p50, p99 and max of the completed cases' recovery times (nearest rank). */
export function recoveryQuantiles(results: Pick<CrashOutcome, 'recoveryMs'>[]): { p50Ms: number; p99Ms: number; maxMs: number } {
  const ms = results.map((r) => r.recoveryMs).filter((v): v is number => typeof v === 'number').sort((a, b) => a - b);
  const q = (p: number) => (ms.length ? ms[Math.min(ms.length - 1, Math.max(0, Math.ceil(p * ms.length) - 1))]! : NaN);
  return { p50Ms: q(0.5), p99Ms: q(0.99), maxMs: ms.length ? ms[ms.length - 1]! : NaN };
}
