// An Artillery engine (`engine: idsync`): each Artillery virtual user is one simulated holder
// wallet running the scenario's flow — connect, sync, issuance — against an embedded twin
// (`config.target: embedded`, started once per Artillery worker) or a service URL (credentials
// from IDSYNC_CLIENT_ID / IDSYNC_CLIENT_SECRET / IDSYNC_PROJECT_ID). Artillery does the arrivals,
// the distribution over machines and the aggregation; this engine reports under stable names:
//   histograms  idsync.connect, idsync.authenticate, idsync.issue, idsync.invite (ms per step),
//               idsync.flow (ms per virtual user's whole flow);
//   counters    idsync.flows.completed, idsync.flows.failed, idsync.errors.<code>.
// Artillery loads engines by module name: the package ships artillery-engine-idsync/ (a
// CommonJS shim that imports this file), found through NODE_PATH (README "Load testing").
import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { threadId } from 'node:worker_threads';
import { IdsyncError, toIdsyncError } from '../errors.js';
import { connectFlow, issuanceScenario, syncConnected } from './scenarios.js';
import { clientFor, remoteTarget, startEmbeddedTarget, type FleetTarget } from './target.js';
import type { FlowContext } from './types.js';
import { startWalletPool, type WalletPool } from './wallet-pool.js';

/** The metric names this engine emits (stable: dashboards and `ensure` checks use them). */
export const ARTILLERY_METRICS = {
  step: (name: string) => `idsync.${name}`,
  flow: 'idsync.flow',
  completed: 'idsync.flows.completed',
  failed: 'idsync.flows.failed',
  error: (code: string) => `idsync.errors.${code}`,
} as const;

/** One item of a scenario's `flow`. */
export type FlowAction = { connect: Record<string, unknown> | null } | { sync: Record<string, unknown> | null } | { issuance: { channel?: 'DIDCOMM' | 'EMAIL' } | null };

interface ArtilleryScript {
  config: { target?: string; idsync?: { timeout?: number; engine?: 'native' | 'didcomm-node' } };
}

interface ScenarioSpec {
  flow?: FlowAction[];
}

type VuFunction = (context: Record<string, unknown>, callback: (err: unknown, context: Record<string, unknown>) => void) => void;

interface Shared {
  target: FleetTarget;
  pool: WalletPool;
}

/** One per Artillery worker process: the target and the wallet pool are started on the first virtual user. */
let shared: Promise<Shared> | undefined;
const runId = randomUUID().slice(0, 8);
let next = 0;

function start(script: ArtilleryScript, env: NodeJS.ProcessEnv): Promise<Shared> {
  return (shared ??= (async () => {
    const t = script.config.target;
    const engine = script.config.idsync?.engine;
    let target: FleetTarget;
    if (!t || t === 'embedded') target = await startEmbeddedTarget(engine ? { envelopeEngine: engine } : {});
    else {
      if (!env.IDSYNC_CLIENT_ID || !env.IDSYNC_CLIENT_SECRET) throw new IdsyncError('invalid_config', 'config.target is a URL: set IDSYNC_CLIENT_ID and IDSYNC_CLIENT_SECRET (and IDSYNC_PROJECT_ID)');
      target = await remoteTarget(t, { clientId: env.IDSYNC_CLIENT_ID, clientSecret: env.IDSYNC_CLIENT_SECRET, ...(env.IDSYNC_PROJECT_ID ? { projectId: env.IDSYNC_PROJECT_ID } : {}) });
    }
    const pool = await startWalletPool({ serviceUrl: target.url, ...(engine ? { envelopeEngine: engine } : {}) });
    return { target, pool };
  })().catch((err: unknown) => {
    // Not kept: the next virtual user tries again (and fails with the same code if nothing changed).
    shared = undefined;
    throw err;
  }));
}

/** Stops what the engine started in this process (tests; Artillery's workers simply exit). */
export async function stopArtilleryEngine(): Promise<void> {
  const s = shared;
  shared = undefined;
  if (!s) return;
  const { target, pool } = await s;
  await pool.close();
  await target.close();
}

export class IdsyncArtilleryEngine {
  constructor(
    private readonly script: ArtilleryScript,
    _ee?: EventEmitter,
    _helpers?: unknown,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** Artillery's engine contract: a function per virtual user, called with its context and a callback. */
  createScenario(spec: ScenarioSpec, ee: EventEmitter): VuFunction {
    const actions = spec.flow ?? [{ connect: {} }, { sync: {} }];
    for (const a of actions) {
      const name = Object.keys(a ?? {})[0];
      if (name !== 'connect' && name !== 'sync' && name !== 'issuance') throw new IdsyncError('invalid_argument', `idsync engine: unknown flow step ${String(name)} (connect, sync, issuance)`);
    }
    const timeoutMs = (this.script.config.idsync?.timeout ?? 120) * 1000;
    return (context, callback) => {
      ee.emit('started');
      void this.runVu(actions, ee, timeoutMs).then(
        () => callback(null, context),
        (err: unknown) => callback(err, context),
      );
    };
  }

  private async runVu(actions: FlowAction[], ee: EventEmitter, timeoutMs: number): Promise<void> {
    const started = performance.now();
    const index = next++;
    let pool: WalletPool | undefined;
    try {
      const s = await start(this.script, this.env);
      pool = s.pool;
      const ctx: FlowContext = {
        index,
        userId: `artillery-${runId}-${threadId}-${index}`,
        wallet: await s.pool.wallet(index),
        client: (clients.get(s) ?? clients.set(s, clientFor(s.target)).get(s))!,
        serviceDid: s.target.did,
        timeoutMs,
        signal: new AbortController().signal,
        async step(name, fn) {
          const t = performance.now();
          const value = await fn();
          ee.emit('histogram', ARTILLERY_METRICS.step(name), performance.now() - t);
          return value;
        },
      };
      let connected = false;
      for (const action of actions) {
        if ('connect' in action) {
          await connectFlow(ctx);
          connected = true;
        } else if ('sync' in action) {
          if (!connected) await connectFlow(ctx);
          connected = true;
          await syncConnected(ctx);
        } else {
          await issuanceScenario(action.issuance?.channel ?? 'DIDCOMM').run(ctx);
        }
      }
      ee.emit('histogram', ARTILLERY_METRICS.flow, performance.now() - started);
      ee.emit('counter', ARTILLERY_METRICS.completed, 1);
    } catch (err) {
      const e = toIdsyncError(err);
      ee.emit('counter', ARTILLERY_METRICS.failed, 1);
      ee.emit('counter', ARTILLERY_METRICS.error(e.code), 1);
      // Artillery counts errors by this name too (errors.<code> in its report).
      ee.emit('error', e.code);
      throw e;
    } finally {
      await pool?.release(index);
    }
  }
}

const clients = new WeakMap<Shared, ReturnType<typeof clientFor>>();
