// The crash matrix with real processes and random kill moments, as QA tries it from outside:
// `idsync service` and one `idsync wallet serve` per user (wallets accept invitations that arrive
// by DIDComm), the four flows started together for all users (a sync over an established Data
// Pipe, an invitation accepted with its first sync, an issuance workflow over the Data Pipe, one
// by e-mail), then one party — the service, or one wallet — killed with SIGKILL at a random
// moment and started again at once on its data folder and port. Every flow must then complete
// with nobody acting. A user action the kill itself interrupted (a REST call or an acceptance
// refused because its process was down) is tried again, as a client would; nothing else is.
// Recovery is timed from the restarted process printing its first line to the last flow's
// completion. Used by `npm run bench:crash -- --processes`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServiceClient, type ServiceClient } from '../src/testing/index.js';
import { viaServe } from '../src/cli/commands/wallet-control.js';
import { openStore } from '../src/store/store.js';
import { createWallet } from '../src/wallet/wallet.js';
import { freePort, startCli, type RunningCli } from '../test/e2e/processes.js';

export type ProcessFlow = 'sync' | 'invitation' | 'workflow-didcomm' | 'workflow-email';
export const PROCESS_FLOWS: ProcessFlow[] = ['sync', 'invitation', 'workflow-didcomm', 'workflow-email'];

export interface ProcessRound {
  side: 'service' | 'wallet';
  /** From the flows' start to the kill. */
  killAfterMs: number;
  flows: number;
  completed: number;
  /** Restart to the last flow's completion; undefined when some flow never completed. */
  recoveryMs?: number;
  /** Codes of user actions tried again because their process was down. */
  retried: string[];
  /** Each flow's completion, from the restart (ms; 0 when it had completed before). */
  done: { user: string; flow: ProcessFlow; afterRestartMs: number }[];
  stuck: { user: string; flow: ProcessFlow; detail: string }[];
}

export interface ProcessRoundOptions {
  side: 'service' | 'wallet';
  users: number;
  killAfterMs: number;
  /** Allowed from the restart to the last completion. */
  timeoutMs: number;
  flows?: ProcessFlow[];
  /** Keep the data folders and the processes' output (for a look after a failure). */
  keep?: boolean;
  log?: (line: string) => void;
}

const CLIENT = { clientId: 'crash-client', clientSecret: 'crash-client-secret', projectId: 'crash-project' };
const ADA = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };
const env = () => ({ IDSYNC_CLIENT_ID: CLIENT.clientId, IDSYNC_CLIENT_SECRET: CLIENT.clientSecret, IDSYNC_PROJECT_ID: CLIENT.projectId });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface User {
  id: string;
  flow: ProcessFlow;
  dir: string;
  did: string;
  proc: RunningCli;
  workflowId?: string;
}

/** Every process started, so that an interrupted run leaves none behind. */
const running = new Set<RunningCli>();
process.once('exit', () => {
  for (const p of running) p.child.kill('SIGKILL');
});

async function createWalletFolder(dir: string, endpoint: string): Promise<string> {
  const store = await openStore({ path: join(dir, 'store') });
  try {
    const w = createWallet({ store, endpoint });
    const id = await w.init();
    await w.close();
    return id.did;
  } finally {
    await store.close();
  }
}

/** Where a user's flow stands: undefined when complete, else what is missing. */
async function pending(client: ServiceClient, u: User): Promise<string | undefined> {
  const all = await viaServe<Array<{ id: string; status: string }>>(u.dir, 'GET', '/credentials').catch(() => undefined);
  if (!all) return 'wallet not answering';
  const held = all.filter((c) => c.status === 'valid');
  if (u.flow === 'sync' || u.flow === 'invitation') {
    const ctx = await client.syncContext(u.id).catch((e: Error) => e);
    if (ctx instanceof Error) return ctx.message;
    if (!ctx.isLinked || ctx.syncContext.datapointsSynced?.firstName !== 'Ada') return `sync context ${JSON.stringify({ established: ctx.isSessionEstablished, linked: ctx.isLinked })}`;
    return held.length === 1 ? undefined : `the wallet holds ${held.length} valid credentials`;
  }
  if (!u.workflowId) return 'not started';
  const wf = await client.getWorkflow(u.workflowId).catch((e: Error) => e);
  if (wf instanceof Error) return wf.message;
  if (wf.status !== 'COMPLETED') return `workflow ${wf.status}`;
  return held.some((c) => c.id === wf.credentialId) ? undefined : `workflow credential ${String(wf.credentialId)} not held`;
}

export async function runProcessRound(o: ProcessRoundOptions): Promise<ProcessRound> {
  const log = o.log ?? (() => {});
  const root = await mkdtemp(join(tmpdir(), 'idsync-crash-processes-'));
  const procs: RunningCli[] = [];
  const start = (args: string[], extra: Record<string, string> = {}) => {
    const p = startCli(args, extra);
    procs.push(p);
    running.add(p);
    return p;
  };
  const serve = (dir: string) => start(['wallet', 'serve', '--data', dir, '--json', '--auto-accept']);
  try {
    const port = await freePort();
    const serviceArgs = ['service', '--port', String(port), '--data', join(root, 'service'), '--rate-limit', 'off'];
    let service = start(serviceArgs, env());
    const listening = await service.line(/^idsync service listening on /, 60_000);
    const client = createServiceClient({ url: listening.replace('idsync service listening on ', '').trim(), ...CLIENT });
    const flows = o.flows ?? PROCESS_FLOWS;
    const users: User[] = await Promise.all(
      Array.from({ length: o.users }, async (_, i): Promise<User> => {
        const dir = join(root, `wallet-${i}`);
        const did = await createWalletFolder(dir, `http://127.0.0.1:${await freePort()}/didcomm`);
        const proc = serve(dir);
        await proc.line(/^\{/, 60_000);
        return { id: `user-${i}`, flow: flows[i % flows.length]!, dir, did, proc };
      }),
    );
    // The Data Pipes the sync and the workflow over the pipe run on, before the clock starts.
    for (const u of users) {
      await client.putUser(u.id, { settings: { isSyncOn: true } });
      if (u.flow !== 'sync' && u.flow !== 'workflow-didcomm') continue;
      const { invitationUrl } = await client.invite(u.id);
      await viaServe(u.dir, 'POST', '/accept', { url: invitationUrl, wait: true });
      while (!(await client.syncContext(u.id)).isSessionEstablished) await sleep(50);
    }
    log(`  ${users.length} wallets ready; flows start, the ${o.side} is killed after ${o.killAfterMs} ms`);
    const retried = new Set<string>();
    // A user action its process refused because it was down is taken again once it is back.
    const again = async <T>(what: () => Promise<T | undefined>): Promise<T> => {
      for (;;) {
        try {
          const v = await what();
          // viaServe answers undefined when no serve process answered (killed meanwhile).
          if (v !== undefined) return v;
          retried.add('wallet_not_answering');
        } catch (err) {
          const code = (err as { code?: string }).code ?? 'error';
          if (!/unreachable|not_resolved|transport|timeout|wallet_serve_error|service_problem/.test(code)) throw err;
          retried.add(code);
        }
        await sleep(200);
      }
    };
    const started = performance.now();
    const starts = users.map(async (u) => {
      if (u.flow === 'sync') await again(() => client.putDatapoints(u.id, ADA));
      else if (u.flow === 'invitation') {
        await again(() => client.putDatapoints(u.id, ADA));
        const { invitationUrl } = await again(() => client.invite(u.id));
        await again(() => viaServe(u.dir, 'POST', '/accept', { url: invitationUrl }));
      } else if (u.flow === 'workflow-didcomm') {
        const wf = await again(() => client.createWorkflow({ datapoints: ADA, userId: u.id, userDID: u.did }));
        u.workflowId = wf.id;
        await again(() => client.sendInvitation(wf.id, [{ channel: 'DIDCOMM', target: u.did }]));
      } else {
        const wf = await again(() => client.createWorkflow({ datapoints: ADA, userId: u.id }));
        u.workflowId = wf.id;
        await again(() => client.sendInvitation(wf.id, [{ channel: 'EMAIL', target: `${u.id}@example.com` }]));
        const [mail] = await again(() => client.outbox({ workflowId: wf.id, channel: 'EMAIL' }));
        await again(() => viaServe(u.dir, 'POST', '/accept', { url: mail!.invitationUrl }));
      }
    });
    const startsDone = Promise.allSettled(starts);
    await sleep(o.killAfterMs);
    const victim = o.side === 'service' ? undefined : users[Math.floor(Math.random() * users.length)]!;
    const killed = victim ? victim.proc : service;
    killed.child.kill('SIGKILL');
    await killed.stop();
    const killAfterMs = Math.round(performance.now() - started);
    // Started again at once, on the same folder and port.
    if (victim) {
      victim.proc = serve(victim.dir);
      await victim.proc.line(/^\{/, 60_000);
    } else {
      service = start(serviceArgs, env());
      await service.line(/^idsync service listening on /, 60_000);
    }
    const restartedAt = performance.now();
    log(`  killed ${victim ? `the wallet of ${victim.id}` : 'the service'} after ${killAfterMs} ms; up again ${Math.round(restartedAt - started - killAfterMs)} ms later`);
    const open = new Map(users.map((u) => [u.id, u]));
    const last = new Map<string, string>();
    const done: ProcessRound['done'] = [];
    let doneAt = restartedAt;
    while (open.size && performance.now() < restartedAt + o.timeoutMs) {
      for (const u of [...open.values()]) {
        const why = await pending(client, u);
        if (why === undefined) {
          open.delete(u.id);
          doneAt = performance.now();
          done.push({ user: u.id, flow: u.flow, afterRestartMs: Math.round(doneAt - restartedAt) });
        } else last.set(u.id, why);
      }
      if (open.size) await sleep(50);
    }
    await Promise.race([startsDone, sleep(1_000)]);
    return {
      side: o.side,
      killAfterMs,
      flows: users.length,
      completed: users.length - open.size,
      ...(open.size === 0 ? { recoveryMs: Math.round(doneAt - restartedAt) } : {}),
      retried: [...retried],
      done,
      stuck: [...open.values()].map((u) => ({ user: u.id, flow: u.flow, detail: last.get(u.id) ?? '' })),
    };
  } finally {
    for (const p of procs) {
      await p.stop();
      running.delete(p);
    }
    if (o.keep) {
      await Promise.all(procs.map((p, i) => writeFile(join(root, `process-${i}.log`), `${p.child.spawnargs.join(' ')}\n--- stdout\n${p.stdout()}\n--- stderr\n${p.stderr()}`)));
      log(`  kept ${root}`);
    } else await rm(root, { recursive: true, force: true });
  }
}

/** `rounds` rounds with the service killed and as many with a wallet killed, at random moments in the flows' first `spreadMs`. */
export async function runProcessRounds(o: { rounds: number; users: number; timeoutMs: number; spreadMs?: number; keep?: boolean; log?: (line: string) => void }): Promise<ProcessRound[]> {
  const out: ProcessRound[] = [];
  for (const side of ['service', 'wallet'] as const) {
    for (let i = 0; i < o.rounds; i++) {
      const killAfterMs = Math.round(Math.random() * (o.spreadMs ?? 3_000));
      out.push(await runProcessRound({ side, users: o.users, killAfterMs, timeoutMs: o.timeoutMs, ...(o.keep ? { keep: true } : {}), ...(o.log ? { log: o.log } : {}) }));
    }
  }
  return out;
}
