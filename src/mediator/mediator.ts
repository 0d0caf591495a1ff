// A DIDComm v2 mediator as protocol modules for a router: Coordinate Mediation 2.0 and 3.0,
// Routing 2.0 forward and Message Pickup 3.0 over one durable keylist and queue. The standalone
// mediator (agent.ts, `idsync mediator`) mounts them on a router of its own; the service twin
// mounts the same modules on its router, for its own wallets. Nothing here knows who mounted it.
import { EventEmitter } from 'node:events';
import type { Clock, IdGenerator } from '../clock.js';
import type { CrashPoint } from '../crash-point.js';
import { toIdsyncError } from '../errors.js';
import type { ProtocolModule } from '../router/router.js';
import type { Store } from '../store/store.js';
import { mediatorCoordination } from './coordinate.js';
import type { MediatorCore } from './core.js';
import { mediatorRouting } from './forward.js';
import { keylist, type Keylist } from './keylist.js';
import { liveRoutes, type LiveRoutes } from './live.js';
import { mediatorPickup, takeOne } from './pickup.js';
import { mediatorPolicy, type MediatorPolicy } from './policy.js';
import { messageQueue, type MessageQueue, type QueueOptions } from './queue.js';

export interface MediatorDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  /** The mediator's DID now: the routing DID of its grants. */
  did(): string;
  policy?: Partial<MediatorPolicy>;
  /** The queue to hold messages in (the twin shares its own); default one over `store`. */
  queue?: MessageQueue;
  /** Queue options when the mediator makes its queue (maxPerRecipient defaults to policy.maxQueue). */
  queueOptions?: QueueOptions;
  /** Live connections (the twin shares its own); default a new set. */
  live?: LiveRoutes;
  events?: EventEmitter;
  /**
   * DIDs that collect their own messages here without asking for mediation (the twin's users'
   * wallets): like a granted party's DID, nobody else may register them or collect for them.
   */
  reserved?(did: string): Promise<boolean>;
  /** Sends a packed message to a DID's own endpoint (forwards for parties beyond this mediator). */
  relay?(did: string, packed: string): Promise<void>;
  crashPoint?: CrashPoint;
}

export interface Mediator {
  /** For router.use(): coordinate-mediation 2.0 and 3.0, routing 2.0, messagepickup 3.0. */
  readonly protocols: ProtocolModule[];
  readonly queue: MessageQueue;
  readonly keylist: Keylist;
  readonly live: LiveRoutes;
  readonly events: EventEmitter;
  readonly policy: MediatorPolicy;
  /** HTTP return_route "all": the oldest message queued for `did` in the response (pickup.ts takeOne). */
  takeOne(did: string, reply: (packed: string) => Promise<void>): Promise<boolean>;
  /** Resolves when no live push started by a forward is still running. */
  idle(): Promise<void>;
}

export function createMediator(deps: MediatorDeps): Mediator {
  const policy = mediatorPolicy(deps.policy);
  const events = deps.events ?? new EventEmitter();
  const pending = new Set<Promise<void>>();
  const queue = deps.queue ?? messageQueue(deps, { maxPerRecipient: policy.maxQueue, ...deps.queueOptions });
  const core: MediatorCore = {
    store: deps.store,
    clock: deps.clock,
    ids: deps.ids,
    events,
    queue,
    // A DID removed while messages for it wait stays its owner's until they are gone (keylist.ts).
    keylist: keylist({ store: deps.store, clock: deps.clock, waiting: (did) => queue.kept(did), ...(deps.reserved ? { reserved: deps.reserved } : {}) }),
    live: deps.live ?? liveRoutes({ ended: (did) => void events.emit('live-ended', { to: did }) }),
    policy,
    did: deps.did,
    ...(deps.relay ? { relay: deps.relay } : {}),
    ...(deps.crashPoint ? { crashPoint: deps.crashPoint } : {}),
    background(what, fn) {
      const p = fn().catch((err) => void events.emit('mediator-error', { what, code: toIdsyncError(err).code }));
      pending.add(p);
      void p.finally(() => pending.delete(p));
    },
  };
  const pickup = mediatorPickup(core);
  return {
    protocols: [...mediatorCoordination(core), mediatorRouting(core, pickup), pickup.protocol],
    queue: core.queue,
    keylist: core.keylist,
    live: core.live,
    events,
    policy,
    takeOne: (did, reply) => takeOne(core, did, reply),
    async idle() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
  };
}
