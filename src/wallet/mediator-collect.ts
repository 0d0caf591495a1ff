// A running wallet behind a mediator collects what is queued for it there over Message Pickup
// 3.0, in the third of §Live Mode's ways: "Activate Live Mode immediately upon connecting to the
// mediator. Retrieve messages from the queue as possible." Live on a WebSocket when the mediator's
// DID offers one, then what was queued while it was away ("Messages already in the queue are not
// affected by Live Mode") when the status says there is some; polling otherwise or once the socket
// is gone. Every
// delivery is processed and stored before messages-received confirms it (wallet/pickup.ts), so
// nothing the mediator acknowledged is lost when the wallet stops half way.
import { IdsyncError, toIdsyncError } from '../errors.js';
import { serviceUris } from '../router/peer-route.js';
import type { WalletContext } from './context.js';
import { chooseEndpoint } from './outbound.js';
import type { QueueStatus } from '../protocols/message-pickup.js';
import { liveDeliveryChange, pickup, type PickupResult, type PickupSession } from './pickup.js';

export interface MediatorCollector {
  /** 'live' while the mediator pushes on a socket, 'polling' otherwise, 'stopped' after close(). */
  readonly mode: 'live' | 'polling' | 'stopped';
  /** Collects now over HTTP (one at a time: a call while one runs waits for it and runs once more). */
  collect(): Promise<PickupResult>;
  close(): void;
}

export interface CollectorDeps {
  ctx: WalletContext;
  session: PickupSession;
  mediator: string;
  /** Opens the wallet's WebSocket to `url` (its inbound handler is the router). */
  connect(url: string): Promise<void>;
  live: boolean;
  pollIntervalMs: number;
}

export async function startCollector(d: CollectorDeps): Promise<MediatorCollector> {
  let mode: MediatorCollector['mode'] = 'polling';
  /** Set once the first way of collecting is chosen: changes after it are told (collecting-changed). */
  let started = false;
  const become = (next: 'live' | 'polling') => {
    if (mode === next || mode === 'stopped') return;
    mode = next;
    if (started) d.ctx.events.emit('collecting-changed', { mediator: d.mediator, mode: next });
  };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<PickupResult> | undefined;
  let again = false;
  const stopped = () => mode === 'stopped';
  const log = (msg: string, err: unknown) => d.ctx.logger('warn', msg, { mediator: d.mediator, code: toIdsyncError(err).code });

  const collect = (): Promise<PickupResult> => {
    if (mode === 'stopped') return Promise.reject(new IdsyncError('invalid_state', 'the wallet stopped collecting from its mediator'));
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        let result = await pickup(d.ctx, d.session, d.mediator);
        // `more`: the pickup stopped at its round guard with messages still queued and every
        // round confirming some. What was queued before live mode is not pushed (§Live Mode), so
        // nothing else would bring the rest.
        while ((again || result.more) && !stopped()) {
          again = false;
          const more = await pickup(d.ctx, d.session, d.mediator);
          result = {
            ...more,
            received: result.received + more.received,
            rounds: result.rounds + more.rounds,
            results: [...result.results, ...more.results],
            leftQueued: result.leftQueued + more.leftQueued,
          };
        }
        return result;
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  const wsUrl = async (): Promise<string | undefined> => (d.live ? chooseEndpoint(serviceUris(await d.ctx.resolve(d.mediator)), ['ws', 'wss']) : undefined);

  /**
   * Live mode on a fresh socket: the mediator's status answer (§Live Mode Change: "the mediator
   * MUST respond with a status message"), {} when it gave none; undefined when it offers no socket or refused.
   */
  async function goLive(): Promise<{ status?: QueueStatus } | undefined> {
    const url = await wsUrl().catch(() => undefined);
    if (!url) return undefined;
    try {
      await d.connect(url);
      const status = await liveDeliveryChange(d.ctx, d.session, d.mediator, url, true);
      become('live');
      return status ? { status } : {};
    } catch (err) {
      log('live mode with the mediator failed: polling', err);
      return undefined;
    }
  }

  function poll(): void {
    if (mode === 'stopped') return;
    become('polling');
    timer = setTimeout(() => {
      timer = undefined;
      void (async () => {
        await collect().catch((err) => log('pickup from the mediator failed', err));
        if (mode === 'stopped') return;
        // A socket that came back ends polling (live mode tried again on every round). What was
        // queued between this round's pickup and live mode is not pushed (§Live Mode: "Messages
        // already in the queue are not affected by Live Mode"): the status answering the change
        // counts it, and it is collected now, as at start.
        const back = await goLive();
        if (!back) return poll();
        if (!stopped() && (back.status === undefined || back.status.messageCount > 0)) await collectOrLater();
      })();
    }, d.pollIntervalMs);
    timer.unref?.();
  }

  const onLiveEnded = (e: { peer: string }) => {
    if (mode !== 'live' || e.peer !== d.mediator) return;
    poll();
  };
  d.ctx.events.on('live-ended', onLiveEnded);

  // Live mode pushes only new arrivals. What stays queued otherwise is asked for after the poll
  // interval: messages a pickup left queued (their handling failed in a way that may pass), a
  // pickup that failed (its request or answer lost), a confirmation whose status never came (the
  // messages-received may be lost: "Delivered messages MUST NOT be deleted until delivery is
  // acknowledged", so they wait there, for good unless asked for). A collection that fails is
  // tried again the same way, while live; polling does it on its own rounds.
  let retry: NodeJS.Timeout | undefined;
  function collectLater(): void {
    if (mode !== 'live' || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      if (mode === 'live') void collectOrLater();
    }, d.pollIntervalMs);
    retry.unref?.();
  }
  const onLeftQueued = (e: { peer: string }) => {
    if (e.peer === d.mediator) collectLater();
  };
  d.ctx.events.on('pickup-left-queued', onLeftQueued);
  const confirmChecks = new Set<NodeJS.Timeout>();
  const onConfirmedLive = (e: { peer: string; ackId: string }) => {
    if (e.peer !== d.mediator || mode !== 'live') return;
    const check = setTimeout(() => {
      confirmChecks.delete(check);
      if (d.session.awaiting(e.ackId)) collectLater();
    }, d.pollIntervalMs);
    check.unref?.();
    confirmChecks.add(check);
  };
  d.ctx.events.on('pickup-confirmed-live', onConfirmedLive);
  const collectOrLater = () =>
    collect().catch((err) => {
      log('pickup from the mediator failed', err);
      collectLater();
    });

  // Live first: new messages are pushed from then on, and the status answering the change counts
  // what was queued before (§Live Mode: those are not pushed), collected only when there is some.
  const live = await goLive();
  if (!live || live.status === undefined || live.status.messageCount > 0) await collectOrLater();
  if (!live) poll();
  started = true;

  return {
    get mode() {
      return mode;
    },
    collect,
    close() {
      mode = 'stopped';
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (retry) clearTimeout(retry);
      retry = undefined;
      for (const check of confirmChecks) clearTimeout(check);
      confirmChecks.clear();
      d.ctx.events.off('live-ended', onLiveEnded);
      d.ctx.events.off('pickup-left-queued', onLeftQueued);
      d.ctx.events.off('pickup-confirmed-live', onConfirmedLive);
    },
  };
}
