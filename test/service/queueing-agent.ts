// A stand-in ServiceAgent for tests of the REST state machine (202, sync operations) where no
// wallet exists: it records each requested sync durably as a 'queued' operation and does nothing else.
import { isoNow } from '../../src/clock.js';
import type { Clock, IdGenerator } from '../../src/clock.js';
import type { Store } from '../../src/store/store.js';
import { SYNC_OPERATIONS, syncOperationKey, type ServiceAgent, type SyncOperation } from '../../src/service/didcomm-seam.js';

export function createQueueingAgent(deps: { store: Store; clock: Clock; ids: IdGenerator }): ServiceAgent {
  const ops = deps.store.collection<SyncOperation>(SYNC_OPERATIONS);
  return {
    async requestSync(user, reason) {
      const now = isoNow(deps.clock);
      const op: SyncOperation = { id: deps.ids(), ...user, reason, status: 'queued', createdAt: now, updatedAt: now };
      await ops.put(syncOperationKey(op), op);
      return { operationId: op.id };
    },
  };
}
