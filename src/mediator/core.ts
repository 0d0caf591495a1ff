// What the mediator's protocol handlers share (coordinate.ts, forward.ts, pickup.ts), whoever
// mounts them: the standalone mediator (agent.ts) or the service twin, each on its own router
// with its own DID, store and clock.
import type { EventEmitter } from 'node:events';
import type { Clock, IdGenerator } from '../clock.js';
import type { CrashPoint } from '../crash-point.js';
import type { Store } from '../store/store.js';
import type { Keylist } from './keylist.js';
import type { LiveRoutes } from './live.js';
import type { MediatorPolicy } from './policy.js';
import type { MessageQueue } from './queue.js';

export interface MediatorCore {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  /** 'mediation-granted', 'mediation-denied', 'keylist-updated', 'forward-queued', 'forward-relayed', 'live-pushed', 'pickup-delivered', 'pickup-received', 'live-delivery-changed', 'live-ended' (a party's last live connection closed or broke). */
  events: EventEmitter;
  queue: MessageQueue;
  keylist: Keylist;
  live: LiveRoutes;
  policy: MediatorPolicy;
  /** The mediator's DID now (the twin's follows the URL it listens on). */
  did(): string;
  /** Sends a packed message to `did`'s own DIDComm endpoint (a forward passed onwards); throws when it cannot. */
  relay?(did: string, packed: string): Promise<void>;
  /** Crash tests (crash-point.ts): named steps of a forward and of a pickup. */
  crashPoint?: CrashPoint;
  /** Runs `fn` after the current message is answered; failures are logged as events, never thrown. */
  background(what: string, fn: () => Promise<void>): void;
}
