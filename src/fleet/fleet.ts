// runFleet: N simulated holder wallets against a service, the library API behind `idsync fleet`.
// The wallets are sharded across worker threads (one event loop each) or run in this thread
// (workers: 1); each thread's HDR histograms come back encoded and are added bucket by bucket,
// so every percentile is over all flows. The embedded twin, when used, runs in a worker thread of
// its own beside them (this thread then only coordinates), or with them in this thread
// (workers: 1); its wallets reach it over the fleet's link (link.ts: no sockets, a MessagePort
// per wallet thread).
//
//   const result = await runFleet({ scenario: { builtin: 'sync' }, model: { kind: 'closed', wallets: 100, concurrency: 20 } });
//   result.summary   // the --json document
import { availableParallelism } from 'node:os';
import { randomUUID } from 'node:crypto';
import { MessageChannel, Worker, type MessagePort, type ResourceLimits } from 'node:worker_threads';
import type { EnvelopeEngine } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import { decodeHistogram, latencyHistogram, type LatencyHistogram } from './histogram.js';
import { exposeGc, openArrivalCount, runShard, type ShardPlan, type ShardProgress, type ShardResult } from './runner.js';
import { loadScenario, type ScenarioRef } from './scenario-ref.js';
import { clientFor, remoteTarget, SERVICE_STORE_MEMORY_FLOWS, startEmbeddedTarget, type FleetTarget, type ServiceCredentials, type ServiceStoreKind, type TargetInfo } from './target.js';
import type { FleetSummary, LoadModel, Scenario } from './types.js';
import { startWalletPool } from './wallet-pool.js';
import { measureThread, type MemorySample, type ThreadStats } from './thread-stats.js';
import { fleetMemory, type FleetMemory } from './run-memory.js';
import { mergeSeconds, secondFigures, type SecondFigures } from './timeline.js';
import { startServiceThread, type ServiceThread } from './service-thread.js';
import { startWorkersWithOldGeneration } from './old-generation.js';
import { fleetMediator, type FleetMediator } from './mediator.js';
import { portEnd, type LinkHandler } from './link.js';
import { directSockets, type SocketAcceptor } from './link-socket.js';
import { mediatorDidOf } from '../wallet/mediation.js';

export interface FleetOptions {
  /** A built-in ({builtin: 'sync'}), a module of one's own, or (workers: 1 only) a Scenario object. */
  scenario: ScenarioRef | Scenario;
  model: LoadModel;
  /**
   * 'auto': one per core, less one for the embedded service, which gets a worker thread of its
   * own (the wallets are then always in worker threads, even one); 1: everything in this thread.
   */
  workers?: number | 'auto';
  /** A service elsewhere; default: an embedded twin started for the run. */
  service?: { url: string; credentials: ServiceCredentials };
  /**
   * How the wallets reach the embedded twin: 'link' (default) hands requests and messages over
   * between threads as data, without sockets; 'http' goes through loopback sockets, as to any
   * service (its HTTP stack is then part of what is measured). A remote service is always HTTP.
   */
  embeddedTransport?: 'link' | 'http';
  /**
   * Where the embedded twin keeps its state: 'memory', 'disk' (a temporary LevelDB), or 'auto'
   * (default): on disk for runs of more than SERVICE_STORE_MEMORY_FLOWS flows.
   */
  serviceStore?: ServiceStoreKind | 'auto';
  envelopeEngine?: EnvelopeEngine;
  /**
   * Wallets behind a mediator: idsync's standalone mediator is started for the run (in this
   * thread, on 127.0.0.1, port 0), every wallet's DID names it, the service forwards to it and the
   * wallets collect live over Message Pickup 3.0. Its store is where the embedded twin keeps its
   * own (serviceStore). Or the invitation URL / DID of a running one.
   */
  mediated?: boolean | string;
  /** Guard for each wait in a flow (default 120 s). */
  timeoutMs?: number;
  /** Open model: wallets made (and measured idle) before the arrivals, per thread (default 50). */
  idleSample?: number;
  /** Called about twice a second while flows run. */
  onProgress?: (p: FleetProgress) => void;
  signal?: AbortSignal;
  /** Young generation of each worker thread in MB (default: youngGenerationFor, by the run's length). */
  youngGenerationMb?: number;
  /**
   * execArgv of worker threads (default: this process's Node options that a worker takes: no
   * loader, as sources register tsx themselves, no script given with -e/-p or --input-type; if
   * a worker refuses one, e.g. a V8 flag, which already holds for the whole process, none).
   */
  workerExecArgv?: string[];
}

export interface FleetProgress {
  completed: number;
  failed: number;
  elapsedMs: number;
  flowsPerSecond: number;
  p99Ms: number;
}

export interface FleetResult {
  summary: FleetSummary;
  /** Merged histograms by step (`total` included). */
  histograms: Record<string, LatencyHistogram>;
  /** Flows completed and failed per second, from the second the first flow started. */
  timeline: { completed: number[]; failed: number[] };
  /** Each second from the first flow's: flows started, ended and in flight, latency p50/p90/p99. */
  seconds: SecondFigures[];
  /** Heap of each thread and the process's RSS over time, and their peaks (run-memory.ts). */
  memory: FleetMemory;
  errorSamples: Record<string, string>;
  /**
   * Protocol messages sent again during the run, by step (router/steps: `presentation`;
   * `redeliver:<type>`: after a peer's 503/429; `given-up:<step>`: threads ended unanswered).
   * The wallets' and, when embedded, the service's; a remote service's are not seen.
   */
  resends: Record<string, number>;
  model: LoadModel;
  /** Time spent making the idle wallets before the flows (ms). */
  setupMs: number;
  /** Idle wallets made before the flows (kept as pages, wallet-pages.ts), and how many of them went to disk. */
  idle: { wallets: number; onDisk: number };
  /**
   * The service: its URL, and for the embedded twin where it kept its state; in a mediated run the
   * mediator the wallets sat behind (its invitation URL or DID), and whether it was started for the
   * run (in the coordinating thread) or already running.
   */
  target: { url: string; embedded: boolean; store?: ServiceStoreKind; mediator?: { url: string; startedForRun: boolean } };
  /** The wallets ran in worker threads (false: in the calling thread, beside an embedded service). */
  threaded: boolean;
  /**
   * How busy each thread was: with worker threads, this one ('coordinator'), the embedded twin's
   * ('service') and each wallet thread's ('wallets'); in one thread, 'service+wallets' (or
   * 'wallets' against a service elsewhere).
   */
  threads: ThreadStats[];
}

/** What a worker thread gets (worker.ts). */
export interface WorkerInput {
  plan: ShardPlan;
  scenario: ScenarioRef;
  target: TargetInfo;
  envelopeEngine?: EnvelopeEngine;
  /** This worker's end of the link to the embedded twin (link.ts), when there is one. */
  link?: MessagePort;
  /** The mediator the wallets sit behind (its invitation URL), when the run is mediated. */
  mediator?: string;
  /** This worker's end of a link to the mediator started for the run, and the URL it answers for. */
  mediatorLink?: { url: string; port: MessagePort };
}

type WithMediator = FleetOptions & { mediator?: string; mediatorLocal?: { url: string; serve: LinkHandler; accept: SocketAcceptor } };

export function resolveWorkers(workers: number | 'auto' | undefined, embedded: boolean): number {
  if (workers === undefined || workers === 'auto') return Math.max(1, availableParallelism() - (embedded ? 1 : 0));
  if (!Number.isInteger(workers) || workers < 1) throw new IdsyncError('invalid_argument', '--workers is auto or a whole number ≥ 1');
  return workers;
}

export async function runFleet(options: FleetOptions): Promise<FleetResult> {
  checkModel(options.model);
  // A running mediator named for the run is read before any thread starts: a value that is
  // neither a DID nor an invitation to mediate is refused at once, not by every wallet.
  if (typeof options.mediated === 'string') await mediatorDidOf(options.mediated);
  exposeGc();
  const embedded = !options.service;
  const workers = resolveWorkers(options.workers, embedded);
  const isObject = 'run' in options.scenario;
  if (isObject && workers > 1) throw new IdsyncError('invalid_argument', 'a Scenario object runs with workers: 1; give worker threads a module ({module}) instead');
  // 'auto' with the embedded twin: the wallets always go to worker threads, even one, and the
  // twin to one of its own (on 2 cores: one for it, one for the wallets).
  const threaded = workers > 1 || ((options.workers ?? 'auto') === 'auto' && embedded && !isObject);
  const link = (options.embeddedTransport ?? 'link') === 'link';
  const store = serviceStoreFor(options);
  const threads = threaded ? workerSetup(options) : undefined;
  // What the run starts is stopped however it ends, a start that fails half-way included: a
  // service that cannot be reached after the mediator started left the mediator listening (the
  // process never ended) and its folder behind.
  let serviceThread: Awaited<ReturnType<typeof startServiceThread>> | undefined;
  let mediator: FleetMediator | undefined;
  let target: FleetTarget | undefined;
  let mediatorLink: (() => void) | undefined;
  try {
    serviceThread =
      embedded && threads ? await startServiceThread({ ...(options.envelopeEngine ? { envelopeEngine: options.envelopeEngine } : {}), link, store, ...threads, entry: workerEntry('service-worker') }, threads.start) : undefined;
    mediator = await fleetMediator(options.mediated, store);
    target = options.service
      ? await remoteTarget(options.service.url, options.service.credentials)
      : (serviceThread ?? (await startEmbeddedTarget({ ...(options.envelopeEngine ? { envelopeEngine: options.envelopeEngine } : {}), link, store })));
    mediatorLink = link && !options.service ? linkMediator(mediator, serviceThread, target) : undefined;
    const scenario = isObject ? (options.scenario as Scenario) : await loadScenario(options.scenario as ScenarioRef);
    const runId = randomUUID().slice(0, 8);
    const setupStarted = Date.now();
    const plans: ShardPlan[] = Array.from({ length: workers }, (_, shard) => ({
      shard,
      shards: workers,
      model: options.model.kind === 'closed' ? options.model : { ...options.model, rampMs: options.model.rampMs ?? 0 },
      startAt: 0,
      runId,
      timeoutMs: options.timeoutMs ?? 120_000,
      idleSample: options.model.kind === 'open' ? (options.idleSample ?? 50) : 0,
    }));
    const progress = progressMerger(workers, options.onProgress);
    // With the link, the wallets' requests to the mediator started here go between threads too.
    const med = mediator ? { mediator: mediator.invitationUrl, ...(link && !options.service && mediator.local ? { mediatorLocal: mediator.local } : {}) } : {};
    if (!threads) {
      const result = await inThread(plans[0]!, scenario, target, { ...options, ...med }, progress);
      const all = [{ stats: result.thread, memory: result.memory }];
      const merged = merge([result], scenario, options.model, workers, target, setupStarted, {}, all, store);
      return { ...merged, target: withMediator(merged.target, mediator), threaded: false, threads: [result.thread] };
    }
    const measured = measureThread('coordinator', { rss: true });
    const results = await inWorkers(plans, options.scenario as ScenarioRef, target, serviceThread, { ...options, ...med }, progress, threads);
    const { memory: coordinatorMemory, ...coordinator } = measured();
    // The twin's thread counted its own resends.
    const service = await serviceThread?.stats();
    const all = [{ stats: coordinator, memory: coordinatorMemory }, ...(service ? [{ stats: service.thread, memory: service.memory }] : []), ...results.map((r) => ({ stats: r.thread, memory: r.memory }))];
    const merged = merge(results, scenario, options.model, workers, target, setupStarted, service?.resends ?? {}, all, store);
    return {
      ...merged,
      target: withMediator(merged.target, mediator),
      threaded: true,
      threads: all.map((t) => t.stats),
    };
  } finally {
    mediatorLink?.();
    // The twin's thread is the target when there is one; before the target was set, it is closed alone.
    await (target ?? serviceThread)?.close();
    await mediator?.close();
  }
}

/** The run's target, with the mediator its wallets sat behind when they did. */
function withMediator(target: FleetResult['target'], mediator: FleetMediator | undefined): FleetResult['target'] {
  return mediator ? { ...target, mediator: { url: mediator.invitationUrl, startedForRun: mediator.store !== undefined } } : target;
}

/**
 * With the link, the embedded twin reaches the mediator started for the run the way it reaches
 * the direct wallets: its forwards go between threads on a port of their own (the mediator
 * answers as its HTTP server would), not over loopback HTTP. Returns what ends the link.
 */
function linkMediator(mediator: FleetMediator | undefined, serviceThread: ServiceThread | undefined, target: FleetTarget): (() => void) | undefined {
  const local = mediator?.local;
  if (!local) return undefined;
  const prefix = `${local.url}/`;
  if (serviceThread) {
    const port = serviceThread.linkPort();
    if (!port) return undefined;
    const end = portEnd(port, local.serve);
    // The twin's thread routes messages to endpoints under this prefix over the port.
    end.hello(prefix);
    return () => end.close();
  }
  return target.link?.wallets.add(prefix, local.serve);
}

/** The embedded twin's store for this run: as asked, or on disk when the run is too big for memory. */
export function serviceStoreFor(options: Pick<FleetOptions, 'serviceStore' | 'model'>): ServiceStoreKind {
  if (options.serviceStore && options.serviceStore !== 'auto') return options.serviceStore;
  return flowsOf(options.model) > SERVICE_STORE_MEMORY_FLOWS ? 'disk' : 'memory';
}

/**
 * Young generation of each worker thread (MB; V8 makes it three semi-spaces). Flows allocate
 * fast and many of their objects live across a few awaits: with V8's default (16 MB semi-spaces,
 * 48 here) the 1,000-wallet sync took 3-5 % more CPU than with 32 MB ones (three interleaved
 * pairs; 8 % with the twin on the main thread and node's flag), as more scavenges copy the same
 * in-flight survivors. 64 MB semi-spaces (192 here) gave little more at 1,000 wallets, where
 * compiling is a fifth of the run, but at 3,000 and 10,000 wallets the runs were 7 % and 4 %
 * shorter, with a fifth less GC on each thread (docs/performance.md, "The young generation").
 */
export const WORKER_YOUNG_GENERATION_MB = 192;

/**
 * Young generation of each worker thread (MB) for a run of LONG_RUN_FLOWS flows or more whose
 * twin keeps its state in memory. At 10,000 wallets 128 MB semi-spaces took a sixth off each
 * thread's GC per flow (the twin 0.50 → 0.41 ms, the wallets 0.67 → 0.59) and every run was
 * shorter, by 0.2-8.8 % (five pairs, alternating); at 1,000 wallets they gained nothing and the
 * peak RSS rose by a third (722-764 → 1,001-1,015 MB). A run big enough for the twin's state to
 * go to disk was not faster with them: 100,000 wallets took 2,020 s with 3 flows timed out, where
 * 192 MB had taken 1,924 s with none. Those runs, and shorter ones, keep WORKER_YOUNG_GENERATION_MB
 * (docs/performance.md, "A larger young generation for long runs").
 */
export const LONG_RUN_YOUNG_GENERATION_MB = 384;
export const LONG_RUN_FLOWS = 5_000;

/** The young generation each worker gets for this run: as asked, or by the run's length and the twin's store. */
export function youngGenerationFor(options: Pick<FleetOptions, 'youngGenerationMb' | 'model' | 'serviceStore'>): number {
  if (options.youngGenerationMb !== undefined) return options.youngGenerationMb;
  const long = flowsOf(options.model) >= LONG_RUN_FLOWS && serviceStoreFor(options) === 'memory';
  return long ? LONG_RUN_YOUNG_GENERATION_MB : WORKER_YOUNG_GENERATION_MB;
}

/** The flows a load model runs: its wallets, or its arrivals. */
function flowsOf(m: LoadModel): number {
  return m.kind === 'closed' ? m.wallets : (m.ratePerSecond * m.durationMs) / 1000;
}

interface WorkerSetup {
  execArgv: string[];
  resourceLimits: ResourceLimits;
  start(entry: string | URL, options: ConstructorParameters<typeof Worker>[1] & object): Worker;
}

function workerSetup(options: FleetOptions): WorkerSetup {
  const inherited = options.workerExecArgv === undefined;
  startWorkersWithOldGeneration();
  return {
    execArgv: options.workerExecArgv ?? workerArgv(process.execArgv),
    resourceLimits: { maxYoungGenerationSizeMb: youngGenerationFor(options) },
    start: (entry, o) => startWorker(entry, o, inherited),
  };
}

function checkModel(m: LoadModel): void {
  const bad = (what: string) => new IdsyncError('invalid_argument', what);
  if (m.kind === 'closed') {
    if (!Number.isInteger(m.wallets) || m.wallets < 1) throw bad('--wallets is a whole number ≥ 1');
    if (!Number.isInteger(m.concurrency) || m.concurrency < 1) throw bad('--concurrency is a whole number ≥ 1');
  } else {
    if (!(m.ratePerSecond > 0)) throw bad('--rate is a number of flows per second > 0');
    if (!(m.durationMs > 0)) throw bad('--duration is > 0');
    if (m.rampMs !== undefined && !(m.rampMs >= 0)) throw bad('--ramp is ≥ 0');
    // A run that starts no flow has nothing to measure; its "0 failed" would read as a pass.
    if (openArrivalCount(m) < 1) throw bad(`--rate ${m.ratePerSecond}/s for ${m.durationMs} ms${m.rampMs ? ` (ramp ${m.rampMs} ms)` : ''} starts no flow`);
  }
}

/** The flows' clock starts when the idle wallets are made: each plan's startAt is set then. */
async function inThread(plan: ShardPlan, scenario: Scenario, target: FleetTarget, options: WithMediator, progress: ProgressMerger): Promise<ShardResult> {
  const link = target.link;
  const pool = await startWalletPool({
    ...(options.envelopeEngine ? { envelopeEngine: options.envelopeEngine } : {}), serviceUrl: target.url, ...(link ? { serviceLink: link.serve } : {}),
    ...(options.mediator ? { mediator: options.mediator } : {}),
    ...(options.mediatorLocal ? { mediatorLink: { url: options.mediatorLocal.url, call: options.mediatorLocal.serve, open: directSockets(options.mediatorLocal.accept) } } : {}),
  });
  // In one thread the link is a call each way.
  const unlink = link?.wallets.add(pool.endpointPrefix, pool.deliver);
  try {
    return await runShard({ ...plan, startAt: Date.now() }, {
      scenario,
      pool,
      client: clientFor(target, pool.fetch),
      serviceDid: target.did,
      role: target.embedded ? 'service+wallets' : 'wallets',
      measureRss: true,
      ...(options.signal ? { signal: options.signal } : {}),
      onProgress: (p) => progress.update(0, p),
    });
  } finally {
    unlink?.();
    await pool.close();
  }
}

/**
 * A worker's entry: dist/fleet/<name>.js, or, running from sources (tsx), a bootstrap that
 * registers tsx in the new thread before importing <name>.ts (a .ts entry cannot wait for
 * loader hooks to be registered).
 */
function workerEntry(name: 'worker' | 'service-worker'): { entry: string | URL; eval: boolean } {
  if (!import.meta.url.endsWith('.ts')) return { entry: new URL(`./${name}.js`, import.meta.url), eval: false };
  const tsx = import.meta.resolve('tsx/esm/api');
  const worker = new URL(`./${name}.ts`, import.meta.url).href;
  return { entry: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(worker)}); })`, eval: true };
}

async function inWorkers(plans: ShardPlan[], scenario: ScenarioRef, target: FleetTarget, service: ServiceThread | undefined, options: WithMediator, progress: ProgressMerger, setup: WorkerSetup): Promise<ShardResult[]> {
  const { entry, eval: isEval } = workerEntry('worker');
  const startAt = Date.now();
  const info: TargetInfo = { url: target.url, did: target.did, credentials: target.credentials, embedded: target.embedded };
  const started: Worker[] = [];
  const running = plans.map(
    (plan) =>
      new Promise<ShardResult>((resolve, reject) => {
        // The worker's own link to the twin's thread: its wallets' requests, the twin's messages to them.
        const port = service?.linkPort();
        // And to the mediator started for the run: this thread answers for it on the port's other end.
        const toMediator = options.mediatorLocal ? new MessageChannel() : undefined;
        const mediatorEnd = toMediator && options.mediatorLocal ? portEnd(toMediator.port1, options.mediatorLocal.serve, undefined, options.mediatorLocal.accept) : undefined;
        const input: WorkerInput = {
          plan: { ...plan, startAt },
          scenario,
          target: info,
          ...(options.envelopeEngine ? { envelopeEngine: options.envelopeEngine } : {}),
          ...(port ? { link: port } : {}),
          ...(options.mediator ? { mediator: options.mediator } : {}),
          ...(toMediator && options.mediatorLocal ? { mediatorLink: { url: options.mediatorLocal.url, port: toMediator.port2 } } : {}),
        };
        const transferList = [...(port ? [port] : []), ...(toMediator ? [toMediator.port2] : [])];
        const w = setup.start(entry, { workerData: input, execArgv: setup.execArgv, eval: isEval, resourceLimits: setup.resourceLimits, ...(transferList.length ? { transferList } : {}) });
        started.push(w);
        w.once('exit', () => mediatorEnd?.close());
        let done = false;
        const onAbort = () => w.postMessage({ type: 'abort' });
        options.signal?.addEventListener('abort', onAbort, { once: true });
        w.on('message', (m: { type: string; progress?: ShardProgress; result?: ShardResult; code?: string; message?: string }) => {
          if (m.type === 'progress' && m.progress) progress.update(plan.shard, m.progress);
          else if (m.type === 'result' && m.result) {
            done = true;
            resolve(m.result);
            // Its work is done: nothing it still holds (keep-alive sockets, the port) may keep the run alive.
            void w.terminate();
          } else if (m.type === 'error') {
            done = true;
            reject(new IdsyncError('fleet_worker_failed', `worker ${plan.shard}: ${m.code}: ${m.message}`));
          }
        });
        w.on('error', (err) => {
          done = true;
          reject(new IdsyncError('fleet_worker_failed', `worker ${plan.shard}: ${err.message}`, { cause: err }));
        });
        w.on('exit', (code) => {
          options.signal?.removeEventListener('abort', onAbort);
          if (!done) reject(new IdsyncError('fleet_worker_failed', `worker ${plan.shard} exited (${code}) without results`));
        });
      }),
  );
  try {
    return await Promise.all(running);
  } catch (err) {
    // The run has failed: a worker that reported its failure may still hold its ports open, and
    // the others' results can no longer be merged. Left running, they would keep the process alive.
    await Promise.all(started.map((w) => w.terminate()));
    throw err;
  }
}

/** This process's options less those a worker thread must not get (its own script, loaders). */
export function workerArgv(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    // Options whose value is the next argument: a script (-e, -p), a loader (--import, --loader).
    if (['-e', '--eval', '-p', '--print', '--import', '--loader', '--experimental-loader', '--require', '-r'].includes(a)) {
      const value = argv[i + 1] ?? '';
      i += 1;
      if ((a === '--require' || a === '-r' || a === '--import') && !/tsx/.test(value)) out.push(a, value);
      continue;
    }
    if (/tsx/.test(a) || a.startsWith('--input-type') || /^--(eval|print|import|loader|experimental-loader)=/.test(a)) continue;
    out.push(a);
  }
  return out;
}

/** A Worker with `execArgv`; inherited options it refuses (V8 flags: already process-wide) are dropped. */
function startWorker(entry: string | URL, options: ConstructorParameters<typeof Worker>[1] & object, inherited: boolean): Worker {
  try {
    return new Worker(entry, options);
  } catch (err) {
    if (!inherited || (err as { code?: string }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw err;
    return new Worker(entry, { ...options, execArgv: [] });
  }
}

interface ProgressMerger {
  update(shard: number, p: ShardProgress): void;
}

function progressMerger(shards: number, onProgress?: (p: FleetProgress) => void): ProgressMerger {
  const latest = new Array<ShardProgress | undefined>(shards);
  const started = Date.now();
  let last = 0;
  return {
    update(shard, p) {
      latest[shard] = p;
      if (!onProgress) return;
      const now = Date.now();
      if (now - last < 400) return;
      last = now;
      const total = latencyHistogram();
      let completed = 0;
      let failed = 0;
      for (const s of latest) {
        if (!s) continue;
        completed += s.completed;
        failed += s.failed;
        total.add(s.total);
      }
      const elapsedMs = now - started;
      onProgress({ completed, failed, elapsedMs, flowsPerSecond: completed / Math.max(0.001, elapsedMs / 1000), p99Ms: total.percentile(99) });
    },
  };
}

const MB = 1024 * 1024;

function merge(
  results: ShardResult[],
  scenario: Scenario,
  model: LoadModel,
  workers: number,
  target: FleetTarget,
  setupStarted: number,
  serviceResends: Record<string, number>,
  threads: { stats: ThreadStats; memory: MemorySample[] }[],
  store: ServiceStoreKind,
): Omit<FleetResult, 'threaded' | 'threads'> {
  const histograms: Record<string, LatencyHistogram> = {};
  const errors: Record<string, number> = {};
  const resends: Record<string, number> = { ...serviceResends };
  const errorSamples: Record<string, string> = {};
  let completed = 0;
  let failed = 0;
  let stopped = 0;
  let idleWallets = 0;
  let idleBytes = 0;
  let idleOnDisk = 0;
  for (const r of results) {
    completed += r.completed;
    failed += r.failed;
    stopped += r.stopped ?? 0;
    for (const [step, enc] of Object.entries(r.histograms)) (histograms[step] ??= latencyHistogram()).add(decodeHistogram(enc));
    for (const [code, n] of Object.entries(r.errors)) errors[code] = (errors[code] ?? 0) + n;
    for (const [step, n] of Object.entries(r.resends)) resends[step] = (resends[step] ?? 0) + n;
    Object.assign(errorSamples, { ...r.errorSamples, ...errorSamples });
    idleWallets += r.idle.wallets;
    idleBytes += r.idle.bytes;
    idleOnDisk += r.idle.onDisk;
  }
  const firstStart = Math.min(...results.map((r) => r.firstStartAt));
  // Second 0 is the one the first flow started in: seconds before it (workers starting, idle
  // wallets made) are no part of the flows' timeline.
  const startAt = results[0]?.startAt ?? setupStarted;
  const zero = Math.max(0, Math.floor((firstStart - startAt) / 1000));
  const seconds = secondFigures(mergeSeconds(results.map((r) => r.seconds)))
    .slice(zero)
    .map((f, i) => ({ ...f, second: i }));
  const timeline = { completed: seconds.map((f) => f.completed), failed: seconds.map((f) => f.failed) };
  const memory = fleetMemory(threads, startAt + zero * 1000);
  const lastEnd = Math.max(...results.map((r) => r.lastEndAt));
  const durationMs = Math.max(0, lastEnd - firstStart);
  const order = [...scenario.steps, 'total'];
  const steps = Object.fromEntries(
    order.filter((s) => histograms[s]).map((s) => {
      const { p50Ms, p90Ms, p99Ms, maxMs } = histograms[s]!.summary();
      return [s, { p50Ms, p90Ms, p99Ms, maxMs }];
    }),
  );
  const round1 = (x: number) => Math.round(x * 10) / 10;
  const summary: FleetSummary = {
    scenario: scenario.name,
    wallets: completed + failed,
    workers,
    completed,
    failed,
    ...(stopped ? { stopped } : {}),
    durationMs: Math.round(durationMs),
    flowsPerSecond: round1(completed / Math.max(0.001, durationMs / 1000)),
    steps,
    errors,
    memoryPerWalletKB: idleWallets ? round1(idleBytes / idleWallets / 1024) : null,
    peakMemoryMB: {
      rss: memory.peakRssBytes === null ? null : round1(memory.peakRssBytes / MB),
      heap: Object.fromEntries(Object.entries(memory.peakHeapBytes).map(([label, b]) => [label, round1(b / MB)])),
    },
  };
  const idle = { wallets: idleWallets, onDisk: idleOnDisk };
  return { summary, histograms, timeline, seconds, memory, errorSamples, resends, model, setupMs: Math.max(0, firstStart - setupStarted), idle, target: { url: target.url, embedded: target.embedded, ...(target.embedded ? { store } : {}) } };
}
