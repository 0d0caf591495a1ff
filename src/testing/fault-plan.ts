// Fault plans for QA (README "Testing flows under faults"): which DIDComm messages get which
// fault, decided by rules and a seeded PRNG, so that a failing run replays exactly with the same
// seed. Pure: no transport here (faulty-transport.ts applies the faults, fault-proxy.ts does the
// same between processes). Every applied fault is recorded and handed to `onFault`.
//
// What a rule can see of a message (nothing is decrypted):
// - `direction`: the label of the stream it travels on ('out' for what a wrapped transport sends,
//   'in' for what comes back to it; the testbed names them 'to-service' and 'to-wallet');
// - `mediaType`: 'plain', 'signed' or 'encrypted', from the JSON shape of the packed message;
// - `type`: the plaintext `type` when the message is plaintext, else the type the sending side
//   knows and hands to the transport (Transport.send options `messageType`: the router's sends
//   carry it); replies coming back encrypted have no known type and never match a `type` rule.
import { IdsyncError } from '../errors.js';

export type FaultKind = 'drop' | 'delay' | 'duplicate' | 'reorder' | 'tamper' | 'disconnect' | 'fail503';

export const FAULT_KINDS: readonly FaultKind[] = ['drop', 'delay', 'duplicate', 'reorder', 'tamper', 'disconnect', 'fail503'];

export interface FaultRule {
  fault: FaultKind;
  /** Only on this stream ('out', 'in', or the testbed's 'to-service' / 'to-wallet'); default every stream. */
  direction?: string;
  /** Only messages of this type: an exact type URI, a suffix after '/' (e.g. 'issue-credential/3.0/ack'), or a RegExp. */
  type?: string | RegExp;
  mediaType?: 'plain' | 'signed' | 'encrypted';
  /** Only the nth message(s) this rule's filters match (1-based). */
  nth?: number | number[];
  /** Chance in [0, 1] for each matching message (default 1); drawn from the plan's seeded PRNG. */
  probability?: number;
  /** At most this many applications (default unlimited). */
  times?: number;
  /** delay: milliseconds (default 50), plus up to `jitterMs` drawn from the PRNG. */
  delayMs?: number;
  jitterMs?: number;
  /** fail503: the Retry-After seconds to answer with (default 1). */
  retryAfterSeconds?: number;
}

export interface FaultPlan {
  /** Seed of the PRNG (default 1). The same seed and the same message order give the same faults. */
  seed?: number;
  rules: FaultRule[];
  /** Called with every fault as it is applied. */
  onFault?: (fault: AppliedFault) => void;
}

/** What a rule is matched against. */
export interface FaultSubject {
  direction: string;
  mediaType: 'plain' | 'signed' | 'encrypted' | 'unknown';
  type?: string;
  endpoint?: string;
}

export interface AppliedFault {
  /** 1-based order of application over the whole plan. */
  seq: number;
  fault: FaultKind;
  /** Index of the rule in the plan. */
  rule: number;
  direction: string;
  mediaType: FaultSubject['mediaType'];
  type?: string;
  endpoint?: string;
  /** delay: the milliseconds waited; tamper: the character position changed. */
  detail?: Record<string, unknown>;
}

/** A decision for one message: the faults to apply, at most one of each kind, in rule order. */
export interface FaultDecision {
  faults: { kind: FaultKind; rule: number; rng: () => number; spec: FaultRule }[];
}

/** splitmix32: a small, well-mixed 32-bit PRNG; one stream per rule so that rules do not disturb each other. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 0x1_0000_0000;
  };
}

/** The media type of a packed message by its JSON shape; the plaintext type when it is plaintext. */
export function peekMessage(packed: string): { mediaType: FaultSubject['mediaType']; type?: string } {
  let value: unknown;
  try {
    value = JSON.parse(packed);
  } catch {
    return { mediaType: 'unknown' };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { mediaType: 'unknown' };
  const v = value as Record<string, unknown>;
  if ('ciphertext' in v) return { mediaType: 'encrypted' };
  if ('signatures' in v || 'signature' in v) return { mediaType: 'signed' };
  return { mediaType: 'plain', ...(typeof v.type === 'string' ? { type: v.type } : {}) };
}

function typeMatches(want: string | RegExp, type: string | undefined): boolean {
  if (type === undefined) return false;
  if (want instanceof RegExp) return want.test(type);
  return type === want || type.endsWith(`/${want.replace(/^\//, '')}`);
}

function check(plan: FaultPlan): void {
  for (const [i, r] of plan.rules.entries()) {
    if (!FAULT_KINDS.includes(r.fault)) throw new IdsyncError('invalid_argument', `fault rule ${i}: unknown fault ${String(r.fault)}`);
    if (r.probability !== undefined && !(r.probability >= 0 && r.probability <= 1)) throw new IdsyncError('invalid_argument', `fault rule ${i}: probability must be in [0, 1]`);
  }
}

export interface FaultInjector {
  readonly plan: FaultPlan;
  /**
   * Decides the faults for one message (advances the counters and PRNG streams of matching
   * rules). Rules whose fault is not in `possible` (what the stream can do) are not considered.
   */
  decide(subject: FaultSubject, possible?: readonly FaultKind[]): FaultDecision;
  /** Records an applied fault and calls `onFault`. */
  record(fault: Omit<AppliedFault, 'seq'>): AppliedFault;
  /** Every fault applied so far, in order. */
  readonly applied: readonly AppliedFault[];
  /** How many faults of each kind were applied. */
  counts(): Record<FaultKind, number>;
}

/** What each rule of an injector has done so far: its PRNG stream and how often it matched and applied. */
interface RuleState {
  streams: (() => number)[];
  matched: number[];
  used: number[];
}

const RULE_STATE = new WeakMap<FaultInjector, RuleState>();

/**
 * An injector for `plan`. Given `from` (an injector whose plan's rules are the first rules of
 * `plan`), those rules go on where they were there: their counters (`times`, `nth`) and PRNG
 * streams carry over, so adding a rule does not start the others again.
 */
export function faultInjector(plan: FaultPlan, from?: FaultInjector): FaultInjector {
  check(plan);
  const seed = plan.seed ?? 1;
  const before = from ? RULE_STATE.get(from) : undefined;
  // Stream i is seeded from the plan's seed and the rule's index.
  const streams = plan.rules.map((_, i) => before?.streams[i] ?? seededRandom(Math.imul(seed ^ 0x5bd1e995, 2654435761) + i * 0x27d4eb2d));
  const matched = plan.rules.map((_, i) => before?.matched[i] ?? 0);
  const used = plan.rules.map((_, i) => before?.used[i] ?? 0);
  const applied: AppliedFault[] = [];

  const injector: FaultInjector = {
    plan,
    applied,
    decide(subject, possible = FAULT_KINDS) {
      const faults: FaultDecision['faults'] = [];
      const kinds = new Set<FaultKind>();
      plan.rules.forEach((r, i) => {
        if (!possible.includes(r.fault)) return;
        if (r.direction !== undefined && r.direction !== subject.direction) return;
        if (r.mediaType !== undefined && r.mediaType !== subject.mediaType) return;
        if (r.type !== undefined && !typeMatches(r.type, subject.type)) return;
        const n = ++matched[i];
        if (r.nth !== undefined && !([] as number[]).concat(r.nth).includes(n)) return;
        // Drawn for every matching message, applied or not: the stream does not depend on other rules.
        const draw = streams[i]();
        if (r.probability !== undefined && draw >= r.probability) return;
        if (r.times !== undefined && used[i] >= r.times) return;
        if (kinds.has(r.fault)) return;
        used[i]++;
        kinds.add(r.fault);
        faults.push({ kind: r.fault, rule: i, rng: streams[i], spec: r });
      });
      return { faults };
    },
    record(f) {
      const fault = { seq: applied.length + 1, ...f };
      applied.push(fault);
      plan.onFault?.(fault);
      return fault;
    },
    counts() {
      const c = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
      for (const f of applied) c[f.fault]++;
      return c;
    },
  };
  RULE_STATE.set(injector, { streams, matched, used });
  return injector;
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * `packed` with one character changed, chosen by `rng`: a base64url character inside the message
 * (JWE/JWS parts, ids, keys) replaced by another, so the JSON stays JSON and the text stays UTF-8
 * but a signature, tag or ciphertext no longer checks. Returns the new text and the position.
 */
export function tamper(packed: string, rng: () => number): { packed: string; position: number } {
  const positions: number[] = [];
  for (let i = 0; i < packed.length; i++) if (B64URL.includes(packed[i])) positions.push(i);
  if (positions.length === 0) return { packed: packed + ' ', position: packed.length };
  const position = positions[Math.floor(rng() * positions.length)];
  const old = B64URL.indexOf(packed[position]);
  const next = B64URL[(old + 1 + Math.floor(rng() * (B64URL.length - 1))) % B64URL.length];
  return { packed: packed.slice(0, position) + next + packed.slice(position + 1), position };
}

/** delay: the rule's milliseconds plus jitter drawn from its stream. */
export function delayOf(spec: FaultRule, rng: () => number): number {
  return Math.max(0, Math.round((spec.delayMs ?? 50) + (spec.jitterMs ? rng() * spec.jitterMs : 0)));
}
