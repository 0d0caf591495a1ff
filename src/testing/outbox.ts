// The service's outbox as a queue for tests: each nextOutboxEntry call hands out a different
// entry (oldest first) among those matching, waiting for the next one when none is left. An
// in-process service is watched through its outbox events; a remote one through GET /dev/outbox.
import type { Outbox, OutboxEntry as StoredOutboxEntry } from '../service/issuance/invitation-outbox.js';
import { matchesOutbox } from '../service/issuance/invitation-outbox.js';
import type { OutboxEntry, ServiceClient } from './rest-client.js';
import { untilTimeout, waitForState, type WaitOptions } from './wait.js';

export interface OutboxFilter {
  to?: string;
  channel?: 'DIDCOMM' | 'EMAIL' | 'SMS';
  workflowId?: string;
}

/** What nextOutboxEntry reads: an in-process service (its outbox) or a REST client. */
export type OutboxSource = { outbox: Outbox; tenantId?: string } | { client: ServiceClient };

const handedOut = new WeakMap<object, Set<string>>();

export function nextOutboxEntry(source: OutboxSource, filter: OutboxFilter = {}, options: WaitOptions = {}): Promise<OutboxEntry> {
  const key = 'outbox' in source ? source.outbox : source.client;
  let used = handedOut.get(key);
  if (!used) handedOut.set(key, (used = new Set()));
  const taken = used;
  const what = `an outbox entry${filter.to ? ` to ${filter.to}` : ''}${filter.channel ? ` by ${filter.channel}` : ''}${filter.workflowId ? ` for workflow ${filter.workflowId}` : ''}`;

  if ('client' in source) {
    const { client } = source;
    return waitForState(
      what,
      async () => (await client.outbox({ ...filter, limit: 1000 })).find((e) => !taken.has(e.id)),
      (e) => e !== undefined,
      client.changes,
      options,
      (e) => (e ? e.id : `no new entry (${taken.size} handed out before)`),
    ).then((e) => {
      taken.add(e!.id);
      return e!;
    });
  }

  const { outbox, tenantId } = source;
  const full = { ...filter, ...(tenantId ? { tenantId } : {}) };
  let seen = 0;
  return untilTimeout<OutboxEntry>(
    what,
    options,
    (resolve, reject, onCleanup) => {
      const take = (e: StoredOutboxEntry) => {
        taken.add(e.id);
        const { tenantId: _t, ...view } = e;
        resolve(view as OutboxEntry);
      };
      const listener = (e: StoredOutboxEntry) => {
        seen += 1;
        if (!taken.has(e.id) && matchesOutbox(e, full)) take(e);
      };
      outbox.on('entry', listener);
      onCleanup(() => outbox.off('entry', listener));
      void outbox
        .list(full)
        .then((entries) => {
          seen += entries.length;
          const first = entries.find((e) => !taken.has(e.id));
          if (first) take(first);
        })
        .catch(reject);
    },
    () => `${seen} entr${seen === 1 ? 'y' : 'ies'} recorded, ${taken.size} handed out before`,
  );
}
