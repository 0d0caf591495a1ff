// The standalone mediator's console on a port of its own (`idsync mediator --console`): the parties
// it mediates for and what waits for them, and every message it received or sent (coordinate-
// mediation, forwards, pickup) live with its verdicts and its threads as sequence diagrams, the
// same views as the other parties' consoles.
import { systemClock, type Clock } from '../clock.js';
import type { MediatorAgent } from '../mediator/agent.js';
import type { Store } from '../store/store.js';
import { MESSAGE_NAV, type ConsoleContext } from './context.js';
import { liveHub, type LiveOptions } from './live.js';
import { messageFeed } from './message-feed.js';
import { startStandaloneConsole, type StandaloneConsole, type StandaloneConsoleOptions } from './standalone.js';
import { registerMediatorOverview } from './views/mediator-overview.js';

export interface MediatorConsoleOptions extends StandaloneConsoleOptions {
  /** The mediator's store: its message log is what the message and thread views read. */
  store: Store;
  clock?: Clock;
  live?: LiveOptions;
}

export type MediatorConsole = StandaloneConsole;

/** The mediator's events after which the overview may have changed. */
const MEDIATOR_EVENTS = [
  'mediation-granted', 'mediation-denied', 'keylist-updated', 'forward-queued', 'forward-relayed', 'pickup-delivered', 'pickup-received',
  'live-delivery-changed', 'live-ended', 'live-pushed', 'queue-pruned', 'message-queued', 'message-delivered', 'message-dropped',
] as const;

/**
 * `mediator`: the mediator's agent, as `idsync mediator` runs it (startMediator's `agent`) or as the
 * testbed does (`bed.mediator.agent`, with `bed.mediator.store`).
 */
export async function startMediatorConsole(mediator: MediatorAgent, o: MediatorConsoleOptions): Promise<MediatorConsole> {
  const clock = o.clock ?? systemClock;
  const hub = liveHub(o.live);
  const feed = messageFeed({ store: o.store, clock });
  const ctx: ConsoleContext = {
    kind: 'mediator',
    label: 'mediator',
    nav: [{ key: 'overview', href: '/console/overview', label: 'Parties and queues' }, ...MESSAGE_NAV],
    hub,
    feed,
    clock,
    self: { name: 'mediator', dids: () => [mediator.did] },
  };
  const changed = () => hub.changed();
  feed.watch(changed);
  const events = mediator.events;
  for (const name of MEDIATOR_EVENTS) events.on(name, changed);
  return startStandaloneConsole(
    {
      ctx,
      home: '/console/overview',
      hint: 'Printed by idsync mediator --console when it started.',
      register: (scope) => registerMediatorOverview(scope, ctx, mediator),
      onClose: () => {
        for (const name of MEDIATOR_EVENTS) events.off(name, changed);
        feed.close();
      },
    },
    o,
  );
}
