// The whole sync flow, end to end, in one process (memory transport, memory stores):
//   1. one flow at a time, with each envelope engine (native, didcomm-node: a testbed each, the
//      engines taking turns run by run): PUT user (isSyncOn) → invite → the wallet accepts → Data
//      Pipe established → PUT datapoints → DID authentication → credential offered, requested,
//      issued, verified, stored, acked → the service says linked. Median wall time over many
//      runs, beside its crypto floor with the engine the flow used: the same number of authcrypt
//      pack + unpack operations, on the flow's own plaintexts (the wallet's message log: each was
//      packed by one side and unpacked by the other), timed right after each flow; and what the
//      same flow would add in cryptography behind a mediator in live mode (its forwards, its
//      deliveries, the pickup messages), with the ceiling that puts on mediated / direct throughput;
//   2. N wallets syncing at once against one service (100, then 1,000), with the default engine:
//      throughput, p50/p99 latency, memory per wallet (heap and RSS growth ÷ N, after a GC).
// Run: npm run bench:flow   (node --import tsx bench/flow.ts)
// Options (argv or env): --quick (BENCH_QUICK=1) CI-sized; --runs N (BENCH_RUNS);
// --wallets 100,1000 (BENCH_WALLETS; 0 skips); --format ldp|jwt (BENCH_FORMAT);
// --engines native,didcomm-node (BENCH_ENGINES); --profile FILE: a V8 CPU profile of the measured
// single flows only (each flow's own wall time, not wallet creation or the crypto floor), the runs'
// profiles merged into one .cpuprofile; --json: the last line is one JSON document
// {"flow": {"<engine>": {medianMs, p90Ms, cryptoFloorMs, …}}, "concurrent": [...]}.
import type { EventEmitter } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createIonDid, resolveIonLongForm } from '../src/did/ion.js';
import { pack, unpack } from '../src/didcomm/envelope/index.js';
import { systemClock } from '../src/clock.js';
import { buildDelivery, buildLiveDeliveryChange, buildMessagesReceived, buildStatus } from '../src/protocols/message-pickup.js';
import { buildForward } from '../src/protocols/routing.js';
import { memorySecrets } from '../src/didcomm/secrets.js';
import { ENVELOPE_ENGINES, type EnvelopeContext, type EnvelopeEngine, type PlainMessage } from '../src/didcomm/types.js';
import { startTestbed, type Testbed } from '../src/testing/index.js';
import type { Wallet } from '../src/wallet/wallet.js';

// --- options ---------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const runs = Number(arg('runs') ?? process.env.BENCH_RUNS ?? (quick ? 8 : 30));
const walletCounts = (arg('wallets') ?? process.env.BENCH_WALLETS ?? (quick ? '20,50' : '100,1000')).split(',').map(Number).filter((n) => n > 0);
const format = (arg('format') ?? process.env.BENCH_FORMAT ?? 'ldp') as 'ldp' | 'jwt';
const engines = (arg('engines') ?? process.env.BENCH_ENGINES ?? ENVELOPE_ENGINES.join(',')).split(',').filter(Boolean) as EnvelopeEngine[];
for (const e of engines) if (!ENVELOPE_ENGINES.includes(e)) throw new Error(`--engines: unknown engine ${e}`);
const json = argv.includes('--json');
const profileFile = arg('profile');
// --timeline: after each N-wallet run, the steps completed in each half second on stderr (a
// phase that advances far slower than the rest shows as a run of small counts).
const timeline = argv.includes('--timeline');
// --profile-wallets FILE: a V8 CPU profile of the N-wallet run's sync phase (the last N's).
const profileWalletsFile = arg('profile-wallets');
const WARMUP = quick ? 2 : 3;
const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10', nationality: 'GB', emailAddress: 'ada@example.com' };
// A guard for the system's own waits; 1,000 flows at once take minutes, not seconds.
const GUARD_MS = 15 * 60_000;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// --- waiting for a user's agent events ------------------------------------------------------
/**
 * The agent's events by user: one listener per event name, and the waiters in a map by user id.
 * agent.waitFor adds a listener per waiter, each checking every event: with N flows at once, N
 * listeners for each of N events (and N removals from an N-long listener list).
 */
function userEvents(events: EventEmitter) {
  const waiters = new Map<string, Map<string, (() => void)[]>>();
  const byUser = (event: string) => {
    let m = waiters.get(event);
    if (!m) {
      const made = new Map<string, (() => void)[]>();
      events.on(event, (e: { userId?: unknown }) => {
        if (typeof e?.userId !== 'string') return;
        const list = made.get(e.userId);
        if (!list) return;
        made.delete(e.userId);
        for (const wake of list) wake();
      });
      waiters.set(event, (m = made));
    }
    return m;
  };
  return {
    /** The next `event` for `userId`; rejects after `timeoutMs` (a guard, as agent.waitFor's). */
    next(event: string, userId: string, timeoutMs: number): Promise<void> {
      const m = byUser(event);
      return new Promise<void>((resolve, reject) => {
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          const list = m.get(userId)?.filter((w) => w !== wake);
          if (list?.length) m.set(userId, list);
          else m.delete(userId);
          reject(new Error(`no ${event} event for ${userId} within ${timeoutMs} ms`));
        }, timeoutMs);
        timer.unref();
        const list = m.get(userId);
        if (list) list.push(wake);
        else m.set(userId, [wake]);
      });
    },
  };
}
const eventsByBed = new WeakMap<Testbed, ReturnType<typeof userEvents>>();
const userEventsOf = (bed: Testbed) => {
  let u = eventsByBed.get(bed);
  if (!u) eventsByBed.set(bed, (u = userEvents(bed.service.agent.events)));
  return u;
};

// --- one flow --------------------------------------------------------------------------------
/** The flow with targeted waits (agent and wallet events), so that waiting costs nothing per other flow. */
async function syncFlow(bed: Testbed, wallet: Wallet, userId: string, step: () => void = () => {}): Promise<number> {
  const { client } = bed.service;
  const agentEvents = userEventsOf(bed);
  const started = performance.now();
  await client.putUser(userId, { settings: { isSyncOn: true } });
  const { invitationUrl } = await client.invite(userId);
  step();
  const established = agentEvents.next('data-pipe-established', userId, GUARD_MS);
  established.catch(() => undefined);
  await wallet.acceptInvitation(invitationUrl!, { timeoutMs: GUARD_MS });
  await established;
  step();
  const completed = agentEvents.next('sync-completed', userId, GUARD_MS);
  const stored = wallet.waitForCredential({ timeoutMs: GUARD_MS });
  completed.catch(() => undefined);
  stored.catch(() => undefined);
  await client.putDatapoints(userId, DATAPOINTS);
  step();
  await Promise.all([completed, stored]);
  const ctx = await client.syncContext(userId);
  if (!ctx.isLinked) throw new Error(`${userId} is not linked after the sync`);
  step();
  return performance.now() - started;
}

/** The flow's envelopes, from the wallet's log: what it sent (it packed, the service unpacked) and received (the reverse). */
async function flowEnvelopes(wallet: Wallet): Promise<{ message: PlainMessage; fromWallet: boolean }[]> {
  const log = await wallet.messages();
  return log.filter((r) => r.mode !== 'plaintext').map((r) => ({ message: r.message, fromWallet: r.direction === 'out' }));
}

/** The crypto floor of a flow: authcrypt pack + unpack of each of its plaintexts between a did:ion and the service. */
async function cryptoFloor(bed: Testbed, envelopes: { message: PlainMessage; fromWallet: boolean }[], engine: EnvelopeEngine): Promise<{ ms: number; ops: number; bytes: number }> {
  const holder = floorHolder ??= createIonDid({ endpoint: 'memory://bench-holder' });
  const identity = bed.service.deps.identity;
  // Both documents are at hand, as in a flow where the resolvers' caches are warm: the floor is
  // the envelope work, not the ion long-form decoding (which costs as much as the cryptography).
  const holderDoc = (floorHolderDoc ??= resolveIonLongForm(holder.did));
  const ctx: EnvelopeContext = {
    resolve: async (did) => (did === identity.did ? identity.document : did === holder.did ? holderDoc : resolveIonLongForm(did)),
    secrets: memorySecrets([...holder.secrets, ...identity.secrets]),
    engine,
  };
  let ms = 0;
  let bytes = 0;
  for (const { message, fromWallet } of envelopes) {
    const [from, to] = fromWallet ? [holder.did, identity.did] : [identity.did, holder.did];
    const plain: PlainMessage = { ...message, from, to: [to] };
    const t = performance.now();
    const packed = await pack(plain, { mode: 'authcrypt', forward: false }, ctx);
    await unpack(packed.packed, ctx);
    ms += performance.now() - t;
    bytes += packed.packed.length;
  }
  return { ms, ops: envelopes.length * 2, bytes };
}
let floorHolder: ReturnType<typeof createIonDid> | undefined;
let floorHolderDoc: ReturnType<typeof resolveIonLongForm> | undefined;

/**
 * What the same flow adds in cryptography behind a mediator in live mode (as `idsync fleet
 * --mediated` runs it): each message the service sends the wallet is wrapped in a forward
 * anoncrypted to the mediator (routing 2.0) and reaches the wallet inside a delivery anoncrypted
 * to it (Message Pickup 3.0 §Live Mode), and the wallet sends live-delivery-change, gets its
 * status and confirms with one messages-received (authcrypt each). Each of those packed and
 * unpacked once, on the flow's own messages; the authcrypt message inside is the direct floor's.
 */
async function mediationFloor(bed: Testbed, envelopes: { message: PlainMessage; fromWallet: boolean }[], engine: EnvelopeEngine): Promise<{ ms: number; anoncrypt: number; authcrypt: number }> {
  const holder = floorHolder!;
  const holderDoc = floorHolderDoc!;
  const mediator = (floorMediator ??= createIonDid({ endpoint: 'memory://bench-mediator' }));
  const mediatorDoc = (floorMediatorDoc ??= resolveIonLongForm(mediator.did));
  const identity = bed.service.deps.identity;
  const docs = new Map([[identity.did, identity.document], [holder.did, holderDoc], [mediator.did, mediatorDoc]]);
  const resolve = async (did: string) => docs.get(did) ?? resolveIonLongForm(did);
  // Each party holds its own keys only: the mediator, opening a forward, must not go on to open
  // the message inside it (the wallet does that, and the direct floor counts it).
  const secretsOf = new Map([[identity.did, identity.secrets], [holder.did, holder.secrets], [mediator.did, mediator.secrets]]);
  const ctxOf = (did: string): EnvelopeContext => ({ resolve, secrets: memorySecrets(secretsOf.get(did)!), engine });
  const ctx = ctxOf(identity.did);
  const deps = { clock: systemClock };
  const timed = async (plain: PlainMessage, mode: 'anoncrypt' | 'authcrypt', to: string) => {
    const sender = ctxOf(mode === 'authcrypt' ? plain.from! : identity.did);
    const recipient = ctxOf(to);
    const t = performance.now();
    const packed = await pack(plain, { mode, to, forward: false }, sender);
    await unpack(packed.packed, recipient);
    return performance.now() - t;
  };
  let ms = 0;
  const ids: string[] = [];
  for (const { message } of envelopes.filter((e) => !e.fromWallet)) {
    const inner = await pack({ ...message, from: identity.did, to: [holder.did] }, { mode: 'authcrypt', forward: false }, ctx);
    ms += await timed(buildForward({ next: holder.did, packed: inner.packed, to: mediator.did }, deps), 'anoncrypt', mediator.did);
    const id = `q-${ids.length}`;
    ids.push(id);
    ms += await timed(buildDelivery({ from: mediator.did, to: holder.did, thid: 'live', messages: [{ id, packed: inner.packed }] }, deps), 'anoncrypt', holder.did);
  }
  const change = buildLiveDeliveryChange({ from: holder.did, to: mediator.did, liveDelivery: true }, deps);
  ms += await timed(change, 'authcrypt', mediator.did);
  ms += await timed(buildStatus({ from: mediator.did, to: holder.did, thid: change.id, messageCount: 0, liveDelivery: true }, deps), 'authcrypt', holder.did);
  ms += await timed(buildMessagesReceived({ from: holder.did, to: mediator.did, messageIds: ids }, deps), 'authcrypt', mediator.did);
  return { ms, anoncrypt: ids.length * 2, authcrypt: 3 };
}
let floorMediator: ReturnType<typeof createIonDid> | undefined;
let floorMediatorDoc: ReturnType<typeof resolveIonLongForm> | undefined;

// --- profiling the flows alone ---------------------------------------------------------------
interface ProfileNode { id: number; callFrame: unknown; children?: number[]; [k: string]: unknown }
interface Profile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

/** Profiles `f` on its own; the profiles of many calls merge into one (merged()). */
function flowProfiler() {
  const session = new Session();
  session.connect();
  const parts: Profile[] = [];
  let started = false;
  return {
    async run<T>(f: () => Promise<T>): Promise<T> {
      if (!started) {
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: 200 });
        started = true;
      }
      await session.post('Profiler.start');
      try {
        return await f();
      } finally {
        const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
        parts.push(profile);
      }
    },
    /** One profile whose root has each run's tree under it (node ids renumbered), time summed. */
    merged(): Profile {
      const nodes: ProfileNode[] = [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [] }];
      const samples: number[] = [];
      const timeDeltas: number[] = [];
      let next = 2;
      let duration = 0;
      for (const p of parts) {
        const ids = new Map(p.nodes.map((n) => [n.id, next++]));
        for (const n of p.nodes) nodes.push({ ...n, id: ids.get(n.id)!, children: (n.children ?? []).map((c) => ids.get(c)!) });
        nodes[0]!.children!.push(ids.get(p.nodes[0]!.id)!);
        samples.push(...p.samples.map((s) => ids.get(s)!));
        timeDeltas.push(...p.timeDeltas.map((d, i) => (i === 0 ? 0 : d)));
        duration += p.endTime - p.startTime;
      }
      return { nodes, startTime: 0, endTime: duration, samples, timeDeltas };
    },
    close: () => session.disconnect(),
  };
}
const profiler = profileFile ? flowProfiler() : undefined;

/** Writes a merged profile, making its folder first: a run of minutes should not end in ENOENT. */
function writeProfile(file: string, profile: Profile): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(profile));
}

// --- progress on stderr ----------------------------------------------------------------------
function progress(label: string, total: number) {
  const tty = process.stderr.isTTY === true;
  const start = performance.now();
  let done = 0;
  let lastDraw = 0;
  let lastDecile = -1;
  const ticks: number[] = [];
  const draw = (force = false) => {
    const now = performance.now();
    const secs = ((now - start) / 1000).toFixed(1);
    if (tty) {
      if (!force && now - lastDraw < 100) return;
      lastDraw = now;
      const width = 30;
      const filled = Math.round((done / total) * width);
      process.stderr.write(`\r${label.padEnd(36)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(done).padStart(String(total).length)}/${total} ${secs}s `);
    } else {
      const decile = Math.floor((done / total) * 10);
      if (decile === lastDecile && !force) return;
      lastDecile = decile;
      process.stderr.write(`${label}: ${done}/${total} (${secs}s)\n`);
    }
  };
  draw(true);
  return {
    tick() {
      done += 1;
      if (timeline) ticks.push(performance.now() - start);
      draw(done === total);
    },
    end() {
      if (tty) process.stderr.write('\n');
      if (timeline && ticks.length) {
        const bins = new Array<number>(Math.floor(ticks.at(-1)! / 500) + 1).fill(0);
        for (const t of ticks) bins[Math.floor(t / 500)]! += 1;
        let sum = 0;
        process.stderr.write(`${label}: steps per 0.5 s (t, steps, cumulative)\n`);
        for (let i = 0; i < bins.length; i++) {
          // A run of half seconds without a step is one line.
          let j = i;
          while (bins[i] === 0 && bins[j + 1] === 0) j++;
          const at = j > i ? `${(i / 2).toFixed(1)}-${((j + 1) / 2).toFixed(1)}s` : `${(i / 2).toFixed(1)}s`;
          process.stderr.write(`  ${at.padStart(12)} ${String(bins[i]).padStart(6)} ${String((sum += bins[i]!)).padStart(7)}\n`);
          i = j;
        }
      }
    },
  };
}

// --- statistics ------------------------------------------------------------------------------
function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i];
}
const median = (v: number[]) => quantile(v, 0.5);
const ms = (v: number) => `${v.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const kbOrNone = (bytes: number | undefined) => (bytes === undefined ? 'not measured' : kb(bytes));

function memory() {
  gc();
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.external + m.arrayBuffers };
}

// --- 1. one flow at a time, per engine --------------------------------------------------------
interface Single { flows: number[]; floors: number[]; ops: number; bytes: number; mediation: number[]; mediationOps: { anoncrypt: number; authcrypt: number } }

async function singleFlows(): Promise<Record<string, Single>> {
  const beds = new Map<EnvelopeEngine, Testbed>();
  const out: Record<string, Single> = {};
  try {
    for (const engine of engines) {
      beds.set(engine, await startTestbed({ wallets: 0, webhooks: false, service: { format }, envelopeEngine: engine }));
      out[engine] = { flows: [], floors: [], ops: 0, bytes: 0, mediation: [], mediationOps: { anoncrypt: 0, authcrypt: 0 } };
    }
    const bar = progress(`single flows (${runs}+${WARMUP} warm-up) x ${engines.length}`, (runs + WARMUP) * engines.length);
    for (let i = 0; i < runs + WARMUP; i++) {
      // The engines take turns, in rotating order, so that drift on a noisy machine hits all alike.
      for (let k = 0; k < engines.length; k++) {
        const engine = engines[(i + k) % engines.length]!;
        const bed = beds.get(engine)!;
        const wallet = await bed.addWallet();
        const run = () => syncFlow(bed, wallet, `single-${engine}-${i}`);
        const flow = profiler && i >= WARMUP ? await profiler.run(run) : await run();
        const envelopes = await flowEnvelopes(wallet);
        const floor = await cryptoFloor(bed, envelopes, engine);
        const mediation = await mediationFloor(bed, envelopes, engine);
        if (i >= WARMUP) {
          const r = out[engine]!;
          r.flows.push(flow);
          r.floors.push(floor.ms);
          r.mediation.push(mediation.ms);
          r.mediationOps = { anoncrypt: mediation.anoncrypt, authcrypt: mediation.authcrypt };
          r.ops = floor.ops;
          r.bytes = floor.bytes;
        }
        bar.tick();
      }
    }
    bar.end();
    return out;
  } finally {
    for (const bed of beds.values()) await bed.close();
  }
}

/**
 * What the service did during an N-wallet run (--timeline): the DIDComm messages it received by
 * type per half second, and a timer due every half second, which says how long each turn of the
 * event loop took (a timer runs once per turn), how busy the loop was in it (event-loop
 * utilisation, 1 = never idle) and the process's CPU: few steps with a busy loop is work; with an
 * idle loop, a wait.
 */
function phaseWatch(bed: Testbed) {
  const start = performance.now();
  const bins: Map<string, number>[] = [];
  const onReceived = (e: { type?: string }) => {
    const b = (bins[Math.floor((performance.now() - start) / 500)] ??= new Map());
    const type = (e.type ?? '?').split('/').slice(-2).join('/');
    b.set(type, (b.get(type) ?? 0) + 1);
  };
  bed.service.agent.events.on('received', onReceived);
  // Every message the service sent, by type: more than one per flow of a type is a resend.
  const sent = new Map<string, number>();
  const onSent = (e: { type?: string }) => {
    const type = (e.type ?? '?').split('/').slice(-2).join('/');
    sent.set(type, (sent.get(type) ?? 0) + 1);
  };
  bed.service.agent.events.on('message-delivered', onSent);
  const turns: { at: number; gap: number; elu: number; cpuMs: number }[] = [];
  let last = start;
  let elu = performance.eventLoopUtilization();
  let cpu = process.cpuUsage();
  const sample = setInterval(() => {
    const now = performance.now();
    const e2 = performance.eventLoopUtilization();
    const c2 = process.cpuUsage();
    turns.push({ at: now - start, gap: now - last, elu: performance.eventLoopUtilization(e2, elu).utilization, cpuMs: (c2.user - cpu.user + c2.system - cpu.system) / 1000 });
    last = now;
    elu = e2;
    cpu = c2;
  }, 500);
  return {
    end() {
      clearInterval(sample);
      bed.service.agent.events.off('received', onReceived);
      bed.service.agent.events.off('message-delivered', onSent);
      process.stderr.write(`service: DIDComm messages sent by type (whole run): ${[...sent].map(([t, c]) => `${t} ${c}`).join(', ')}\n`);
      process.stderr.write('service: DIDComm messages received by type, per 0.5 s\n');
      bins.forEach((b, i) => process.stderr.write(`  ${(i / 2).toFixed(1).padStart(6)}s  ${[...b].map(([t, c]) => `${t} ${c}`).join(', ')}\n`));
      process.stderr.write('a 0.5 s timer: when it ran, the time since it last ran (one event-loop turn or more), event-loop utilisation and process CPU in that time\n');
      for (const t of turns) process.stderr.write(`  ${(t.at / 1000).toFixed(1).padStart(6)}s  after ${(t.gap / 1000).toFixed(1).padStart(5)} s  elu ${t.elu.toFixed(2)}  cpu ${(t.cpuMs / 1000).toFixed(1).padStart(5)} s\n`);
    },
  };
}

// --- 2. N wallets at once -------------------------------------------------------------------
async function concurrentFlows(n: number) {
  const bed = await startTestbed({ wallets: 0, webhooks: false, service: { format }, envelopeEngine: engines[0] });
  bed.service.agent.events.setMaxListeners(0);
  try {
    // Warm up the service (JIT, first issuance) so the figures are about concurrency.
    await syncFlow(bed, await bed.addWallet(), 'warm-up');
    const before = memory();
    const made = progress(`${n} wallets: create`, n);
    const wallets: Wallet[] = [];
    for (let i = 0; i < n; i++) {
      wallets.push(await bed.addWallet());
      made.tick();
    }
    made.end();
    // Four steps per flow (invited, connected, datapoints sent, synced): all flows start together
    // and finish close together, so counting whole flows would show nothing until the end.
    const bar = progress(`${n} wallets: sync at once (steps)`, 4 * n);
    const watch = timeline ? phaseWatch(bed) : undefined;
    const started = performance.now();
    const sync = () => Promise.all(wallets.map((w, i) => syncFlow(bed, w, `c${n}-${i}`, () => bar.tick())));
    const profiling = profileWalletsFile && n === walletCounts.at(-1) ? flowProfiler() : undefined;
    const latencies = profiling ? await profiling.run(sync) : await sync();
    const wall = performance.now() - started;
    bar.end();
    watch?.end();
    if (profiling) {
      writeProfile(profileWalletsFile!, profiling.merged());
      profiling.close();
    }
    const after = memory();
    return {
      n,
      wall,
      throughput: n / (wall / 1000),
      p50: median(latencies),
      p99: quantile(latencies, 0.99),
      // A few wallets are lost in the process's own growth and shrinking (a GC can hand pages back
      // to the system): a figure at or below zero is no measure, and shows as such.
      heapPerWallet: after.heap > before.heap ? (after.heap - before.heap) / n : undefined,
      rssPerWallet: after.rss > before.rss ? (after.rss - before.rss) / n : undefined,
    };
  } finally {
    await bed.close();
  }
}

// --- main ------------------------------------------------------------------------------------
const t0 = performance.now();
const single = await singleFlows();
if (profiler) {
  writeProfile(profileFile!, profiler.merged());
  profiler.close();
}
const concurrent = [];
for (const n of walletCounts) concurrent.push(await concurrentFlows(n));

const row = (label: string, a: string, b: string, note = '') => `  ${label.padEnd(44)} ${a.padStart(10)} ${b.padStart(10)}${note ? `   ${note}` : ''}`;
const summary: Record<string, {
  medianMs: number; p90Ms: number; cryptoFloorMs: number; cryptoFloorP90Ms: number; floorShare: number; envelopes: number; bytesPerEnvelope: number;
  mediationFloorMs: number; mediatedRatioCeiling: number; mediatedRatioCeilingAtTarget: number;
}> = {};
const lines = [
  '',
  `idsync flow benchmark: node ${process.version}, ${os.cpus().length} CPU(s), ${format} credentials, memory transport and stores${quick ? ', --quick' : ''}`,
];
for (const engine of engines) {
  const r = single[engine]!;
  const flowMed = median(r.flows);
  const floorMed = median(r.floors);
  // A flow behind a mediator does all the direct flow does, plus at least its extra envelopes'
  // cryptography, so where CPU bounds throughput, mediated / direct ≤ flow / (flow + extra): for
  // this flow, and for one that cost twice its floor.
  const extra = median(r.mediation);
  const ceiling = flowMed / (flowMed + extra);
  const ceilingAtTarget = (2 * floorMed) / (2 * floorMed + extra);
  summary[engine] = {
    medianMs: flowMed, p90Ms: quantile(r.flows, 0.9), cryptoFloorMs: floorMed, cryptoFloorP90Ms: quantile(r.floors, 0.9),
    floorShare: floorMed / flowMed, envelopes: r.ops / 2, bytesPerEnvelope: r.bytes / (r.ops / 2),
    mediationFloorMs: extra, mediatedRatioCeiling: ceiling, mediatedRatioCeilingAtTarget: ceilingAtTarget,
  };
  lines.push(
    '',
    `one sync flow at a time, envelope engine ${engine} (flow and crypto floor): ${r.flows.length} runs after ${WARMUP} warm-up`,
    row('', 'median', 'p90'),
    row('whole flow (REST + DIDComm + credentials)', ms(flowMed), ms(quantile(r.flows, 0.9))),
    row(`crypto floor: ${r.ops / 2} authcrypt pack + ${r.ops / 2} unpack`, ms(floorMed), ms(quantile(r.floors, 0.9)), `${kb(r.bytes / (r.ops / 2))} per envelope`),
    row('everything else', ms(flowMed - floorMed), '', `the floor is ${((floorMed / flowMed) * 100).toFixed(0)}% of the flow`),
    row(`behind a mediator, live: + ${r.mediationOps.anoncrypt} anoncrypt, + ${r.mediationOps.authcrypt} authcrypt`, ms(extra), ms(quantile(r.mediation, 0.9)), 'forwards, deliveries, live-delivery-change, status, messages-received'),
    `  so mediated / direct throughput is at most ${ceiling.toFixed(2)} with this flow, ${ceilingAtTarget.toFixed(2)} with a flow at twice its floor`,
  );
}
if (summary.native && summary['didcomm-node']) {
  const n = summary.native, d = summary['didcomm-node'];
  lines.push('', `native vs didcomm-node: flow median ${(d.medianMs / n.medianMs).toFixed(2)}x faster, crypto floor ${(d.cryptoFloorMs / n.cryptoFloorMs).toFixed(2)}x faster`);
}
if (concurrent.length) {
  lines.push(
    '',
    `N wallets syncing at once against one service, envelope engine ${engines[0]} (every flow starts at t=0, so latency ≈ wall time)`,
    '  wallets  wall time   flows/s        p50        p99  heap/wallet  RSS/wallet',
    ...concurrent.map((c) =>
      `  ${String(c.n).padStart(7)} ${`${(c.wall / 1000).toFixed(1)} s`.padStart(10)} ${c.throughput.toFixed(1).padStart(9)} ${ms(c.p50).padStart(10)} ${ms(c.p99).padStart(10)} ${kbOrNone(c.heapPerWallet).padStart(12)} ${kbOrNone(c.rssPerWallet).padStart(11)}`,
    ),
  );
}
lines.push('', `total ${((performance.now() - t0) / 1000).toFixed(0)} s, peak RSS ${mb(process.resourceUsage().maxRSS * 1024)}`);
if (!json) process.stdout.write(lines.join('\n') + '\n');
else {
  const r1 = (x: number) => Math.round(x * 10) / 10;
  const flow = Object.fromEntries(Object.entries(summary).map(([e, v]) => [e === 'didcomm-node' ? 'didcommNode' : e, Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'floorShare' || k.startsWith('mediatedRatio') ? Math.round(x * 1000) / 1000 : r1(x)]))]));
  const conc = concurrent.map((c) => ({ wallets: c.n, engine: engines[0], wallS: r1(c.wall / 1000), flowsPerS: r1(c.throughput), p50Ms: r1(c.p50), p99Ms: r1(c.p99), heapPerWalletKb: c.heapPerWallet === undefined ? null : r1(c.heapPerWallet / 1024), rssPerWalletKb: c.rssPerWallet === undefined ? null : r1(c.rssPerWallet / 1024) }));
  process.stdout.write(JSON.stringify({ flow, concurrent: conc }) + '\n');
}
