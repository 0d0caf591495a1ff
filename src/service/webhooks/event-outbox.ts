// The outbox pattern for webhook events (service-security.md #8b): the store writes that record
// an event go into the same store batch as the state change the event reports, so a process
// killed between the two cannot keep the change and lose the event (or the reverse). The
// dispatcher delivers from what is stored, at least once.
//
// With an event sink that cannot prepare (a test's recording sink, the testbed's wrapper), the
// events are emitted right after the batch, as before.
import { toIdsyncError } from '../../errors.js';
import type { BatchOp } from '../../store/store.js';
import type { ServiceBase, ServiceEvent } from '../context.js';

export interface PreparedEvents {
  /** Put these in the batch with the state change. */
  ops: BatchOp[];
  /** After the batch is stored: starts delivery, or emits the events the sink could not prepare. Never throws. */
  commit(): Promise<void>;
}

export async function prepareEvents(deps: Pick<ServiceBase, 'events'> & { logger?: Pick<ServiceBase['logger'], 'warn'> }, events: ServiceEvent[]): Promise<PreparedEvents> {
  const ops: BatchOp[] = [];
  const commits: (() => void)[] = [];
  const later: ServiceEvent[] = [];
  const sink = deps.events;
  for (const event of events) {
    if (!sink.prepare) {
      later.push(event);
      continue;
    }
    try {
      const prepared = await sink.prepare(event);
      ops.push(...prepared.ops);
      commits.push(() => prepared.commit());
    } catch (err) {
      // Could not be prepared (e.g. the subscriptions could not be read): emit it after the batch.
      deps.logger?.warn({ code: toIdsyncError(err).code, event: event.event }, 'webhook event not prepared; emitting after the state change');
      later.push(event);
    }
  }
  return {
    ops,
    async commit() {
      for (const c of commits) {
        try {
          c();
        } catch {
          // delivery starts with the next loop pass
        }
      }
      for (const event of later) await emitSafe(deps, event);
    },
  };
}

/** Emits one event on its own (no state change to share a batch with); never throws, a failure is logged. */
export async function emitSafe(deps: Pick<ServiceBase, 'events'> & { logger?: Pick<ServiceBase['logger'], 'warn'> }, event: ServiceEvent): Promise<void> {
  try {
    await deps.events.emit(event);
  } catch (err) {
    deps.logger?.warn({ code: toIdsyncError(err).code, event: event.event }, 'event hook failed');
  }
}
