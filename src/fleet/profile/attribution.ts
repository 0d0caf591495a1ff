// A fleet run's CPU by thread and layer, and (when the flows ran one at a time) by flow step:
// the samples of every thread's profile inside the flows' window, summed by layer and divided
// by the flows that completed, so each figure reads as "ms of CPU per flow".
//
// Samples stand for wall time of a thread that was not idle; on a shared machine that includes
// time the thread waited for a core. So each thread's samples are scaled to the CPU time the
// thread really used in the window (when known): the shares come from the profile, the
// milliseconds from the thread's CPU clock. CPU the profiles cannot see (V8's concurrent GC
// helpers and compiler, libuv's pool, the profiler itself) is the process's CPU less its threads'.
//
// Steps come from timing spans: with one flow in flight in the whole fleet, every sample of
// every thread falls in exactly one step of one flow, or after it (the gap a run leaves after
// each flow, where the service finishes what the wallet's last message asked), or outside any
// flow.
import { hotFunctions, inclusiveFunctions, layerTimes, profileSamples, threadRole, type CpuProfile, type LayerTimes, type Sample } from './cpu-profile.js';
import { LAYERS, type Layer } from './layers.js';

/** CPU so far (ms) of the thread that ran a flow and of the whole process. */
export interface CpuMark {
  thread: number | null;
  process: number;
}

/** One flow's timing spans (µs, process.hrtime clock): the flow, its steps, and the gap after it. */
export interface FlowSpans {
  from: number;
  to: number;
  /** End of the quiet gap left after the flow (= `to` when none). */
  gapTo: number;
  ok: boolean;
  steps: [name: string, from: number, to: number][];
  /** The wallets thread that ran it (worker_threads.threadId). */
  threadId?: number;
  /** CPU when that thread's first flow started, and when this flow (and its gap) ended. */
  cpu0?: CpuMark;
  cpu1?: CpuMark;
}

export type Role = 'service' | 'wallets' | 'coordinator' | 'other';

export interface ThreadProfile {
  role: Role;
  samples: Sample[];
}

export function threadProfile(p: CpuProfile): ThreadProfile {
  return { role: threadRole(p), samples: profileSamples(p) };
}

/** Figures in ms per completed flow, rounded to 0.01 ms. */
export type LayerMs = Record<Layer, number>;

export interface HotFunction {
  where: string;
  layer: Layer;
  ms: number;
}

export interface Attribution {
  flows: number;
  /** The window measured (wall ms): first flow's start (after `skip` flows) to the last one's end. */
  windowMs: number;
  /** CPU per flow by thread role: self time by layer, inclusive time, the total; `scaled`: to the thread's CPU clock. */
  byThread: Partial<Record<Role, { self: LayerMs; inclusive: LayerMs; totalMs: number; scaled: boolean }>>;
  /** All profiled threads together. */
  all: { self: LayerMs; inclusive: LayerMs; totalMs: number };
  /** CPU per flow of the process's other threads (V8's background compiler and GC helpers, libuv, the profiler), when known. */
  helpersMs: number | null;
  /** By step (all threads), when the flows ran one at a time. */
  bySteps?: Record<string, { self: LayerMs; totalMs: number; hot: HotFunction[] }>;
  /** The largest self-time functions of each thread. */
  hot: Partial<Record<Role, HotFunction[]>>;
  /** idsync's functions of each thread by inclusive time (theirs and their callees'). */
  inclusive: Partial<Record<Role, { where: string; ms: number }[]>>;
}

export interface AttributeOptions {
  /** Flows completed (the divisor). */
  completed: number;
  /** Split by step (the flows ran one at a time). */
  bySteps?: boolean;
  /** Leave the first flows out (JIT and first-use warm-up); `completed` counts the rest. */
  skip?: number;
  /** CPU (ms) the service thread used over the whole run (its ThreadStats). */
  serviceCpuMs?: number | null;
  top?: number;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The flows' window: first start to last end (or gap end). */
export function flowWindow(flows: FlowSpans[]): { from: number; to: number } {
  let from = Infinity;
  let to = -Infinity;
  for (const f of flows) {
    from = Math.min(from, f.from);
    to = Math.max(to, f.gapTo, f.to);
  }
  return { from, to };
}

/** CPU (ms) of the wallets threads and of the process over the flows, from the spans' marks. */
export function windowCpu(flows: FlowSpans[]): { wallets: number | null; process: number | null } {
  const first = new Map<number, CpuMark>();
  const last = new Map<number, { at: number; cpu: CpuMark }>();
  let p0 = Infinity;
  let p1 = -Infinity;
  for (const f of flows) {
    if (!f.cpu0 || !f.cpu1) return { wallets: null, process: null };
    const t = f.threadId ?? 0;
    first.set(t, f.cpu0);
    const end = Math.max(f.to, f.gapTo);
    if (!last.has(t) || last.get(t)!.at < end) last.set(t, { at: end, cpu: f.cpu1 });
    p0 = Math.min(p0, f.cpu0.process);
    p1 = Math.max(p1, f.cpu1.process);
  }
  let wallets: number | null = 0;
  for (const [t, c0] of first) {
    const c1 = last.get(t)!.cpu;
    wallets = wallets === null || c0.thread === null || c1.thread === null ? null : wallets + (c1.thread - c0.thread);
  }
  return { wallets: first.size ? wallets : null, process: Number.isFinite(p0) ? p1 - p0 : null };
}

/** The span a time falls in: a step's name, 'after' (a flow's gap), or 'outside'. Flows one at a time. */
function spanIndex(flows: FlowSpans[]): (at: number) => string {
  const spans: [string, number, number][] = [];
  for (const f of flows) {
    for (const s of f.steps) spans.push(s);
    if (f.gapTo > f.to) spans.push(['after', f.to, f.gapTo]);
  }
  spans.sort((a, b) => a[1] - b[1]);
  const starts = spans.map((s) => s[1]);
  return (at) => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! <= at) lo = mid + 1;
      else hi = mid;
    }
    const s = spans[lo - 1];
    return s && at <= s[2] ? s[0] : 'outside';
  };
}

export function attribute(profiles: ThreadProfile[], allFlows: FlowSpans[], options: AttributeOptions): Attribution {
  // Threads of the tooling (a module loader's hooks) are no part of the run.
  const threads = profiles.filter((t) => t.role !== 'other');
  const full = flowWindow(allFlows);
  const flows = [...allFlows].sort((a, b) => a.from - b.from).slice(options.skip ?? 0);
  const { from, to } = flowWindow(flows);
  const n = options.completed;
  const top = options.top ?? 15;
  const perFlow = (us: number) => round2(us / 1000 / Math.max(1, n));
  const cpu = windowCpu(allFlows);
  const known: Partial<Record<Role, number | null>> = { wallets: cpu.wallets, service: options.serviceCpuMs ?? null };

  // Each role's scale: its CPU over the whole run ÷ its sampled time over the same window.
  const scale = new Map<Role, number>();
  for (const role of ['service', 'wallets', 'coordinator'] as Role[]) {
    const sampled = threads.filter((t) => t.role === role).reduce((us, t) => us + layerTimes(t.samples, full.from, full.to).total, 0);
    const measured = known[role];
    scale.set(role, measured != null && sampled > 0 ? (measured * 1000) / sampled : 1);
  }
  const scaled = (s: Sample, role: Role): Sample => ({ ...s, us: s.us * scale.get(role)! });

  const byRole = new Map<Role, Sample[]>();
  for (const t of threads) {
    const list = byRole.get(t.role) ?? byRole.set(t.role, []).get(t.role)!;
    for (const s of t.samples) if (s.at >= from && s.at <= to) list.push(scaled(s, t.role));
  }
  const conv = (r: Record<Layer, number>) => Object.fromEntries(LAYERS.map((l) => [l, perFlow(r[l])])) as LayerMs;
  const toMs = (t: LayerTimes) => ({ self: conv(t.self), inclusive: conv(t.inclusive), totalMs: perFlow(t.total) });
  const byThread: Attribution['byThread'] = {};
  const hot: Attribution['hot'] = {};
  const inclusive: Attribution['inclusive'] = {};
  const everything: Sample[] = [];
  for (const [role, samples] of byRole) {
    byThread[role] = { ...toMs(layerTimes(samples)), scaled: known[role] != null };
    hot[role] = hotFunctions(samples, -Infinity, Infinity, top).map((h) => ({ where: h.where, layer: h.layer, ms: perFlow(h.us) }));
    inclusive[role] = inclusiveFunctions(samples, -Infinity, Infinity, top * 2).map((h) => ({ where: h.where, ms: perFlow(h.us) }));
    everything.push(...samples);
  }
  const threadCpu = [...byRole.keys()].reduce((ms, r) => ms + (known[r] ?? 0), 0);
  const helpersMs = cpu.process !== null && known.wallets != null && known.service != null ? round2((cpu.process - threadCpu) / Math.max(1, allFlows.length)) : null;
  const out: Attribution = { flows: n, windowMs: Math.round((to - from) / 1000), byThread, all: toMs(layerTimes(everything)), helpersMs, hot, inclusive };
  if (options.bySteps) {
    const at = spanIndex(flows);
    const steps = new Map<string, Sample[]>();
    for (const s of everything) {
      const name = at(s.at);
      (steps.get(name) ?? steps.set(name, []).get(name)!).push(s);
    }
    out.bySteps = Object.fromEntries(
      [...steps].map(([k, samples]) => {
        const { self, totalMs } = toMs(layerTimes(samples));
        const hotOf = hotFunctions(samples, -Infinity, Infinity, top).map((h) => ({ where: h.where, layer: h.layer, ms: perFlow(h.us) }));
        return [k, { self, totalMs, hot: hotOf }];
      }),
    );
  }
  return out;
}
