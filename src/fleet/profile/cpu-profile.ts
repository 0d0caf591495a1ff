// A V8 CPU profile (what `node --cpu-prof` writes, one file per thread) read as timed samples,
// each with its layer: the layer of its innermost frame that names one (layers.ts), walking out
// through builtins and helpers. A sample lasts until the next one (the profiler's clock is the
// process's monotonic clock in µs, the same as process.hrtime), so sums are time, not counts:
// the sampling interval stretches when the machine is busy.
import { LAYERS, layerOfFrame, type Layer } from './layers.js';

/** The parts of a .cpuprofile this reads (Chrome DevTools Protocol Profiler.Profile). */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber?: number }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Sample {
  /** Monotonic time in µs. */
  at: number;
  /** How long it stands for (µs): until the next sample. */
  us: number;
  layer: Layer;
  /** Layers anywhere on its stack (for inclusive time). */
  stack: ReadonlySet<Layer>;
  /** The innermost frame with a source file: `file:function` (for the hot-function list). */
  where: string;
  /** idsync's own functions on its stack, `file:function` (for inclusive time by function). */
  own: ReadonlySet<string>;
}

interface NodeInfo {
  self: Layer | 'inherit' | '(idle)' | '(root)';
  layer: Layer | '(idle)';
  stack: Set<Layer>;
  where: string;
  own: Set<string>;
}

/** Short name of a source file for the hot list: the path under dist/, src/ or node_modules/. */
function shortFile(url: string): string {
  const m = /\/(?:node_modules|dist|src|bench)\/(.+)$/.exec(url);
  return m ? m[1]! : url.replace(/^file:\/\//, '');
}

/**
 * The innermost frame with a source file, and the node internal or builtin it was in, if any
 * (`fleet/link.js:linkFetch > node:internal/deps/undici/undici:Response`, `store/light-store.js:get
 * > parse`): where self time was spent, for the hot list.
 */
function whereOf(f: CpuProfile['nodes'][number]['callFrame'], self: NodeInfo['self'], up: NodeInfo | undefined): string {
  if (self === 'gc') return '(garbage collector)';
  const name = f.functionName || '(anonymous)';
  if (f.url && !f.url.startsWith('node:')) return `${shortFile(f.url)}:${name}`;
  const caller = up && up.self !== '(root)' ? up.where.split(' > ')[0]! : undefined;
  const own = f.url ? `${f.url}:${name}` : name;
  return caller ? `${caller} > ${own}` : own;
}

/** Resolves each node's layer once, from the root down. */
function nodeInfos(p: CpuProfile): Map<number, NodeInfo> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const out = new Map<number, NodeInfo>();
  const info = (id: number): NodeInfo => {
    const known = out.get(id);
    if (known) return known;
    const n = byId.get(id)!;
    const self = layerOfFrame(n.callFrame);
    const up = parent.has(id) ? info(parent.get(id)!) : undefined;
    // Builtins, natives, node internals and helpers take their caller's layer; under no caller
    // (straight from the event loop) they are the runtime's.
    const layer: Layer | '(idle)' = self === '(idle)' ? '(idle)' : self === 'inherit' || self === '(root)' ? (up && up.self !== '(root)' && up.layer !== '(idle)' ? up.layer : 'runtime') : self;
    const stack = new Set(up?.stack ?? []);
    // The event loop under every callback is no layer's cost: inclusive time is for layers.
    if (layer !== '(idle)' && layer !== 'runtime') stack.add(layer);
    const url = n.callFrame.url;
    const mine = /\/(?:dist|src)\//.test(url) && !url.includes('/node_modules/');
    const own = mine ? new Set(up?.own ?? []).add(`${shortFile(url)}:${n.callFrame.functionName || '(anonymous)'}`) : (up?.own ?? new Set<string>());
    const r: NodeInfo = { self, layer, stack, where: whereOf(n.callFrame, self, up), own };
    out.set(id, r);
    return r;
  };
  for (const n of p.nodes) info(n.id);
  return out;
}

/** The profile's samples (idle ones left out), each with its time, duration and layer. */
export function profileSamples(p: CpuProfile): Sample[] {
  const infos = nodeInfos(p);
  const times: number[] = new Array(p.samples.length);
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) times[i] = t += p.timeDeltas[i] ?? 0;
  const out: Sample[] = [];
  for (let i = 0; i < p.samples.length; i++) {
    const n = infos.get(p.samples[i]!);
    if (!n || n.layer === '(idle)') continue;
    const next = i + 1 < times.length ? times[i + 1]! : p.endTime;
    out.push({ at: times[i]!, us: Math.max(0, next - times[i]!), layer: n.layer, stack: n.stack, where: n.where, own: n.own });
  }
  return out;
}

/** Time by layer (self: the sample's own layer; inclusive: any layer on its stack), in µs. */
export interface LayerTimes {
  self: Record<Layer, number>;
  inclusive: Record<Layer, number>;
  total: number;
}

export function emptyLayerTimes(): LayerTimes {
  const zero = () => Object.fromEntries(LAYERS.map((l) => [l, 0])) as Record<Layer, number>;
  return { self: zero(), inclusive: zero(), total: 0 };
}

export function addSample(into: LayerTimes, s: Sample): void {
  into.self[s.layer] += s.us;
  for (const l of s.stack) into.inclusive[l] += s.us;
  into.total += s.us;
}

/** Layer times of the samples inside [from, to] (µs, monotonic). */
export function layerTimes(samples: Sample[], from = -Infinity, to = Infinity): LayerTimes {
  const out = emptyLayerTimes();
  for (const s of samples) if (s.at >= from && s.at <= to) addSample(out, s);
  return out;
}

/** The innermost source functions by self time inside [from, to], largest first. */
export function hotFunctions(samples: Sample[], from = -Infinity, to = Infinity, top = 20): { where: string; layer: Layer; us: number }[] {
  const by = new Map<string, { where: string; layer: Layer; us: number }>();
  for (const s of samples) {
    if (s.at < from || s.at > to) continue;
    const k = `${s.layer} ${s.where}`;
    const e = by.get(k) ?? by.set(k, { where: s.where, layer: s.layer, us: 0 }).get(k)!;
    e.us += s.us;
  }
  return [...by.values()].sort((a, b) => b.us - a.us).slice(0, top);
}

/** idsync's functions by inclusive time (their own and their callees') inside [from, to], largest first. */
export function inclusiveFunctions(samples: Sample[], from = -Infinity, to = Infinity, top = 20): { where: string; us: number }[] {
  const by = new Map<string, number>();
  for (const s of samples) {
    if (s.at < from || s.at > to) continue;
    for (const f of s.own) by.set(f, (by.get(f) ?? 0) + s.us);
  }
  return [...by].map(([where, us]) => ({ where, us })).sort((a, b) => b.us - a.us).slice(0, top);
}

/**
 * Which thread of a fleet run a profile is, from the modules it ran: the embedded twin's worker
 * ('service'), a wallets worker ('wallets'), the thread that ran runFleet ('coordinator'), or
 * another (e.g. the module loader's hooks thread when running from sources). A profile holds
 * only the frames its samples caught: the twin's worker module runs once, at start, and is often
 * not among them, so a thread that ran the twin's end of the link and neither a wallets worker
 * nor runFleet is the twin's too.
 */
export function threadRole(p: CpuProfile): 'service' | 'wallets' | 'coordinator' | 'other' {
  let role: 'service' | 'wallets' | 'coordinator' | 'other' = 'other';
  let twin = false;
  for (const n of p.nodes) {
    const url = n.callFrame.url;
    if (/\/fleet\/service-worker\.[jt]s$/.test(url)) return 'service';
    if (/\/fleet\/worker\.[jt]s$/.test(url)) role = 'wallets';
    else if (role === 'other' && /\/fleet\/fleet\.[jt]s$/.test(url)) role = 'coordinator';
    else if (/\/fleet\/(link-service|target)\.[jt]s$/.test(url)) twin = true;
  }
  return role === 'other' && twin ? 'service' : role;
}
