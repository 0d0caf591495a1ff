// A fault plan that is turned on, changed and off while the parties run: the injector the
// transports are wrapped with once (faulty-transport.ts), over whichever plan is in force now.
// Off, it applies nothing. Each new plan starts with fresh counters and PRNG streams, as a new
// testbed would (a rule added to the plan in force does not restart the others); the record of
// applied faults runs on across plans.
import { faultInjector, FAULT_KINDS, type AppliedFault, type FaultInjector, type FaultKind, type FaultPlan, type FaultRule } from './fault-plan.js';

export interface FaultSwitch extends FaultInjector {
  /** The plan in force, or undefined while off. */
  readonly current: FaultPlan | undefined;
  /** Puts `plan` in force from the next message on (checked: an unknown fault kind throws invalid_argument). */
  set(plan: FaultPlan): void;
  /**
   * Adds `rule` to the plan in force (or puts a plan of it alone in force), from the next message
   * on; the plan's other rules keep their counters and PRNG streams (a `times: 1` rule that has
   * applied stays spent).
   */
  add(rule: FaultRule): void;
  /** No faults from the next message on. */
  off(): void;
  /** Calls `listener` with every fault applied, under any plan; returns the function that stops it. */
  watch(listener: (fault: AppliedFault) => void): () => void;
}

const NONE: FaultPlan = { rules: [] };

export function faultSwitch(initial?: FaultPlan): FaultSwitch {
  let current: FaultPlan | undefined;
  let inner: FaultInjector | undefined;
  const applied: AppliedFault[] = [];
  const listeners = new Set<(fault: AppliedFault) => void>();

  const sw: FaultSwitch = {
    get current() {
      return current;
    },
    get plan() {
      return current ?? NONE;
    },
    applied,
    set(plan) {
      // faultInjector checks the rules before anything changes.
      const next = faultInjector(plan);
      current = plan;
      inner = next;
    },
    add(rule) {
      const plan: FaultPlan = { ...(current ?? {}), rules: [...(current?.rules ?? []), rule] };
      const next = faultInjector(plan, inner);
      current = plan;
      inner = next;
    },
    off() {
      current = undefined;
      inner = undefined;
    },
    decide(subject, possible) {
      return inner ? inner.decide(subject, possible) : { faults: [] };
    },
    record(f) {
      const fault: AppliedFault = { seq: applied.length + 1, ...f };
      applied.push(fault);
      current?.onFault?.(fault);
      for (const l of [...listeners]) l(fault);
      return fault;
    },
    counts() {
      const c = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
      for (const f of applied) c[f.fault]++;
      return c;
    },
    watch(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
  if (initial) sw.set(initial);
  return sw;
}
