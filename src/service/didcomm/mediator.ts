// The mediator side of Message Pickup 3.0 for wallets without an inbound endpoint
// (docs/protocols.md "Message Pickup 3.0"): status, delivery (anoncrypted outer layer, one
// attachment per queued packed message, attachment id = queue id), messages-received, and live
// mode over a persistent connection: messages that arrive afterwards are pushed on it, those
// already queued stay for delivery-request (Message Pickup 3.0 §Live Mode).
// Every request must come from an authenticated sender, and gets only its own queue.
import { sameDid } from '../../didcomm/message.js';
import type { HandlerContext, ProtocolModule } from '../../router/router.js';
import { ionShortForm } from '../../did/ion-form.js';
import { IdsyncError } from '../../errors.js';
import { buildDelivery, buildStatus, messagePickupProtocol } from '../../protocols/message-pickup.js';
import { protocolError } from '../../protocols/protocol-kit.js';
import type { AgentCore } from './core.js';
import type { LiveRoutes } from './outbound.js';
import type { MessageQueue } from './queue.js';

/** Persistent connections can carry pushes after the request is answered. */
const PERSISTENT = new Set(['ws', 'memory']);

export interface Mediator {
  protocol: ProtocolModule;
  /** HTTP return_route 'all': the oldest queued message for `did`, removed once handed to the transport. */
  takeOne(did: string, reply: (packed: string) => Promise<void>): Promise<boolean>;
}

const MAX_DELIVERY = 100;

export function createMediator(core: AgentCore, queue: MessageQueue, live: LiveRoutes): Mediator {
  /** The recipient whose queue a request may touch: the authenticated sender, and only that DID. */
  function recipientOf(ctx: HandlerContext, recipientDid?: string): string {
    if (!ctx.sender || !ctx.metadata.authenticated) {
      throw new IdsyncError('sender_not_authenticated', 'pickup requests must be authcrypted by the recipient');
    }
    if (recipientDid !== undefined && !sameDid(recipientDid, ctx.sender)) {
      throw new IdsyncError('forbidden', 'a recipient may only collect its own messages');
    }
    // DIDComm v2 §6.1: the answer must travel back on this connection.
    if (ctx.message.return_route !== 'all' && ctx.message.return_route !== 'thread') {
      throw new IdsyncError('return_route_required', 'pickup requests need return_route "all"');
    }
    return ctx.sender;
  }

  async function status(ctx: HandlerContext, did: string): Promise<void> {
    const entries = await queue.list(did);
    const now = core.deps.clock.now();
    const times = entries.map((e) => Date.parse(e.queuedAt));
    await ctx.reply(
      buildStatus(
        {
          thid: ctx.thid,
          messageCount: entries.length,
          ...(entries.length
            ? {
                longestWaitedSeconds: Math.max(0, Math.floor((now - Math.min(...times)) / 1000)),
                oldestReceivedTime: Math.floor(Math.min(...times) / 1000),
                newestReceivedTime: Math.floor(Math.max(...times) / 1000),
                totalBytes: entries.reduce((n, e) => n + Buffer.byteLength(e.packed), 0),
              }
            : {}),
          liveDelivery: live.has(did),
        },
        { clock: core.deps.clock, ids: core.deps.ids },
      ),
    );
  }

  const protocol = messagePickupProtocol(
    {
      'status-request': async (ctx, parsed) => status(ctx, recipientOf(ctx, parsed.recipientDid)),

      'delivery-request': async (ctx, parsed) => {
        const did = recipientOf(ctx, parsed.recipientDid);
        const entries = await queue.list(did, Math.min(parsed.limit, MAX_DELIVERY));
        // §Delivery Request: with nothing queued, the mediator answers with a status.
        if (entries.length === 0) return status(ctx, did);
        const delivery = buildDelivery(
          { thid: ctx.thid, messages: entries.map((e) => ({ id: e.id, packed: e.packed })) },
          { clock: core.deps.clock, ids: core.deps.ids },
        );
        // docs/protocols.md: the delivery's outer layer is anoncrypted (the queued messages inside are authcrypted).
        await ctx.reply(delivery, { mode: 'anoncrypt' });
        core.events.emit('pickup-delivered', { to: ionShortForm(did), queueIds: entries.map((e) => e.id) });
      },

      'messages-received': async (ctx, parsed) => {
        const did = recipientOf(ctx);
        const removed = await queue.remove(did, parsed.messageIds);
        core.events.emit('pickup-received', { to: ionShortForm(did), removed, queueIds: parsed.messageIds });
        await status(ctx, did);
      },

      'live-delivery-change': async (ctx, parsed) => {
        const did = recipientOf(ctx);
        const info = ctx.received;
        if (parsed.liveDelivery) {
          if (!info?.reply || !PERSISTENT.has(info.transport as string)) {
            throw protocolError('live_mode_not_supported', 'live delivery needs a persistent connection (WebSocket)');
          }
          live.bind(did, info.reply);
          info.bind?.(did);
        } else {
          live.unbind(did);
        }
        await status(ctx, did);
      },
    },
    ['mediator'],
  );

  return {
    protocol,
    async takeOne(did, reply) {
      const [entry] = await queue.list(did, 1);
      if (!entry) return false;
      await reply(entry.packed);
      await queue.remove(did, [entry.id]);
      core.events.emit('message-delivered', { to: ionShortForm(did), messageId: entry.messageId, type: entry.type, via: 'return-route', queueId: entry.id });
      return true;
    },
  };
}
