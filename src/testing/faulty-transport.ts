// faultyTransport(transport, plan): a Transport that applies a fault plan (fault-plan.ts) to what
// it sends ('out') and to the return-routed replies that come back ('in'). What each fault does:
// - drop: the message is not delivered and the send resolves as if it had been (lost after the
//   sender let go of it: only a retry by the sender recovers it). A dropped reply is not returned.
// - delay: waits `delayMs` (+ jitter) before delivering (or before returning a reply).
// - duplicate: delivers the message twice, one after the other; the sender gets the first
//   answer. A duplicated reply is returned twice.
// - reorder: holds the message and delivers it after the next message sent to the same endpoint
//   (or once `reorderHoldMs` passed with none); the send resolves at once, and any return-routed
//   reply of the held message goes to `lateReplies`. Replies: reversed when there are several.
// - tamper: one character of the packed message changed (fault-plan.ts tamper); replies too.
// - disconnect: the send fails with `transport_unreachable` (connection reset) and, when the
//   transport has `disconnect(endpoint)` (the WebSocket transport), its socket is dropped.
// - fail503: the send fails as a 503 with Retry-After would (`transport_retry_later`).
// faultyInbound(handler, …) applies drop, delay, duplicate and tamper to messages pushed to a
// party (live delivery, late replies).
import { IdsyncError } from '../errors.js';
import { retryLaterError } from '../didcomm/transport/media-type.js';
import type { InboundHandler, Transport, TransportSendOptions } from '../didcomm/types.js';
import { delayOf, faultInjector, peekMessage, tamper, type FaultInjector, type FaultKind, type FaultPlan } from './fault-plan.js';

export interface FaultyTransportOptions {
  /** Names of the two streams for rules' `direction` (default 'out' and 'in'). */
  labels?: { out: string; in: string };
  /** Where return-routed replies of a message delivered late (reorder) go; dropped without. */
  lateReplies?: (packed: string) => Promise<unknown>;
  /** How delays and reorder holds wait (default setTimeout). */
  sleep?: (ms: number) => Promise<void>;
  /** Longest a reordered message is held when nothing else is sent (default 25 ms). */
  reorderHoldMs?: number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

const OUT_FAULTS: readonly FaultKind[] = ['drop', 'delay', 'duplicate', 'reorder', 'tamper', 'disconnect', 'fail503'];
const IN_FAULTS: readonly FaultKind[] = ['drop', 'delay', 'duplicate', 'reorder', 'tamper'];
const PUSH_FAULTS: readonly FaultKind[] = ['drop', 'delay', 'duplicate', 'tamper'];

export type FaultyTransport = Transport & {
  readonly injector: FaultInjector;
  /** Delivers every held (reordered) message now. */
  flush(): Promise<void>;
  close(): Promise<void>;
};

/** `plan` may be a plan or an injector shared with other wrappers (one seed, one record for a whole testbed). */
export function faultyTransport(transport: Transport & { disconnect?(endpoint: string): void }, plan: FaultPlan | FaultInjector, options: FaultyTransportOptions = {}): FaultyTransport {
  const injector = 'decide' in plan ? plan : faultInjector(plan);
  const labels = options.labels ?? { out: 'out', in: 'in' };
  const sleep = options.sleep ?? realSleep;
  const holdMs = options.reorderHoldMs ?? 25;
  // Held messages per endpoint, delivered after the next send there.
  const held = new Map<string, { packed: string; options?: TransportSendOptions }[]>();

  const deliverLate = async (endpoint: string, packed: string, o?: TransportSendOptions) => {
    try {
      const replies = await transport.send(endpoint, packed, o);
      for (const r of replies) await options.lateReplies?.(r);
    } catch {
      // Late and failed: as lost as a dropped message.
    }
  };

  const release = async (endpoint: string) => {
    const list = held.get(endpoint);
    if (!list?.length) return;
    held.delete(endpoint);
    for (const h of list) await deliverLate(endpoint, h.packed, h.options);
  };

  async function processReplies(endpoint: string, replies: string[]): Promise<string[]> {
    let out: string[] = [];
    for (const reply of replies) {
      const peek = peekMessage(reply);
      const subject = { direction: labels.in, mediaType: peek.mediaType, ...(peek.type ? { type: peek.type } : {}), endpoint };
      const { faults } = injector.decide(subject, IN_FAULTS);
      let text = reply;
      let copies = 1;
      for (const f of faults) {
        const base = { fault: f.kind, rule: f.rule, ...subject };
        if (f.kind === 'drop') copies = 0;
        else if (f.kind === 'duplicate') copies = copies ? 2 : 0;
        else if (f.kind === 'tamper') {
          const t = tamper(text, f.rng);
          text = t.packed;
          injector.record({ ...base, detail: { position: t.position } });
          continue;
        } else if (f.kind === 'delay') {
          const ms = delayOf(f.spec, f.rng);
          injector.record({ ...base, detail: { ms } });
          await sleep(ms);
          continue;
        } else if (f.kind === 'reorder') {
          if (replies.length < 2) continue; // nothing to reorder with: not applied
          out = [text, ...out];
          injector.record(base);
          copies = -1;
          continue;
        }
        injector.record(base);
      }
      if (copies > 0) for (let i = 0; i < copies; i++) out.push(text);
    }
    return out;
  }

  const faulty: FaultyTransport = {
    schemes: transport.schemes,
    injector,
    async send(endpoint, packed, o) {
      const peek = peekMessage(packed);
      const type = peek.type ?? o?.messageType;
      const subject = { direction: labels.out, mediaType: peek.mediaType, ...(type ? { type } : {}), endpoint };
      const { faults } = injector.decide(subject, OUT_FAULTS);
      const has = (k: FaultKind) => faults.find((f) => f.kind === k);
      const note = (k: FaultKind, detail?: Record<string, unknown>) => {
        const f = has(k)!;
        injector.record({ fault: k, rule: f.rule, ...subject, ...(detail ? { detail } : {}) });
      };

      if (has('disconnect')) {
        note('disconnect');
        transport.disconnect?.(endpoint);
        throw new IdsyncError('transport_unreachable', `cannot reach ${endpoint} (connection reset: fault injected)`, { details: { endpoint, reason: 'ECONNRESET', injected: true } });
      }
      if (has('fail503')) {
        const f = has('fail503')!;
        note('fail503');
        throw retryLaterError(endpoint, 503, f.spec.retryAfterSeconds ?? 1, 'temporarily_unavailable');
      }
      if (has('drop')) {
        note('drop');
        await release(endpoint);
        return [];
      }
      let text = packed;
      const t = has('tamper');
      if (t) {
        const changed = tamper(text, t.rng);
        text = changed.packed;
        note('tamper', { position: changed.position });
      }
      const d = has('delay');
      if (d) {
        const ms = delayOf(d.spec, d.rng);
        note('delay', { ms });
        await sleep(ms);
      }
      if (has('reorder')) {
        note('reorder');
        const list = held.get(endpoint) ?? [];
        list.push({ packed: text, ...(o ? { options: o } : {}) });
        held.set(endpoint, list);
        // Released by the next send to this endpoint, or after the hold with none.
        void sleep(holdMs).then(() => {
          const still = held.get(endpoint);
          const i = still?.findIndex((h) => h.packed === text) ?? -1;
          if (still && i >= 0) {
            still.splice(i, 1);
            if (!still.length) held.delete(endpoint);
            return deliverLate(endpoint, text, o);
          }
        });
        return [];
      }
      let replies: string[];
      try {
        replies = await transport.send(endpoint, text, o);
      } finally {
        // What was held goes after this one: the two arrive swapped.
        await release(endpoint);
      }
      if (has('duplicate')) {
        note('duplicate');
        // The network delivered it twice; the answer to the copy reaches nobody.
        await transport.send(endpoint, text, o).catch(() => undefined);
      }
      return processReplies(endpoint, replies);
    },
    async flush() {
      for (const endpoint of [...held.keys()]) await release(endpoint);
    },
    async close() {
      await faulty.flush();
      await transport.close?.();
    },
  };
  return faulty;
}

/** An inbound handler that applies drop, delay, duplicate and tamper (stream `label`, default 'in') to what it is given. */
export function faultyInbound(handler: InboundHandler, plan: FaultPlan | FaultInjector, options: { label?: string; sleep?: (ms: number) => Promise<void> } = {}): InboundHandler {
  const injector = 'decide' in plan ? plan : faultInjector(plan);
  const sleep = options.sleep ?? realSleep;
  const label = options.label ?? 'in';
  return async (packed, info) => {
    const peek = peekMessage(packed);
    const subject = { direction: label, mediaType: peek.mediaType, ...(peek.type ? { type: peek.type } : {}) };
    const { faults } = injector.decide(subject, PUSH_FAULTS);
    let text = packed;
    let copies = 1;
    for (const f of faults) {
      const base = { fault: f.kind, rule: f.rule, ...subject };
      if (f.kind === 'drop') {
        injector.record(base);
        return;
      }
      if (f.kind === 'tamper') {
        const t = tamper(text, f.rng);
        text = t.packed;
        injector.record({ ...base, detail: { position: t.position } });
      } else if (f.kind === 'delay') {
        const ms = delayOf(f.spec, f.rng);
        injector.record({ ...base, detail: { ms } });
        await sleep(ms);
      } else if (f.kind === 'duplicate') {
        copies = 2;
        injector.record(base);
      }
    }
    let outcome: Awaited<ReturnType<InboundHandler>> = undefined;
    for (let i = 0; i < copies; i++) outcome = await handler(text, info);
    return outcome;
  };
}
