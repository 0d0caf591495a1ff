// The mediator side of Routing Protocol 2.0 (DIDComm v2.1 §Routing Protocol 2.0 "Mediator
// Process"): a forward whose `next` a recipient registered (keylist.ts) is queued for it, written
// before the sender is answered, so that what was acknowledged survives a crash; its owner, when
// live, gets it pushed at once (pickup.ts). A forward for a party beyond this mediator is passed to
// that party's endpoint, and answered only once it took it. Headers: `expires_time` is honoured
// (the router refuses an expired forward; the queue drops the message at that time) and so is
// `delay_milli` (held back from delivery until then; negative: a random delay up to its absolute
// value), up to the policy's maximum; a longer delay is refused rather than shortened.
import { createHash } from 'node:crypto';
import { epochSecondsMs } from '../clock.js';
import { didOf, sameDid } from '../didcomm/message.js';
import { shortForm } from '../did/short-form.js';
import { toIdsyncError } from '../errors.js';
import { protocolError } from '../protocols/protocol-kit.js';
import { parseForwardMessage, ROUTING_PIURI, ROUTING_RULES } from '../protocols/routing.js';
import type { HandlerContext, ProtocolModule, Router } from '../router/router.js';
import type { MediatorCore } from './core.js';
import type { Pickup } from './pickup.js';
import type { QueuedMessage } from './queue.js';

/** The same packed message forwarded again (a sender retrying an unanswered POST) waits once. */
const digest = (packed: string) => `sha256:${createHash('sha256').update(packed).digest('base64url')}`;

export function mediatorRouting(core: MediatorCore, pickup: Pickup): ProtocolModule {
  async function relay(ctx: HandlerContext, next: string, packed: string[]): Promise<void> {
    if (!core.policy.onwards || !core.relay || sameDid(didOf(next), core.did())) {
      throw protocolError('forward_unknown_recipient', `no recipient registered ${next.slice(0, 200)} here`, { next: next.slice(0, 200) });
    }
    try {
      for (const p of packed) await core.relay(didOf(next), p);
    } catch (err) {
      const e = toIdsyncError(err);
      // Nothing to pass it to (no endpoint, or only endpoints no transport takes): as unknown as
      // any other DID nobody registered. Sent again, it would fail the same way.
      if (e.code === 'no_endpoint' || e.code === 'unsupported_scheme' || e.code === 'did_not_resolved' || e.code === 'invalid_did' || e.code === 'unsupported_did') {
        throw protocolError('forward_unknown_recipient', `no recipient registered ${next.slice(0, 200)} here, and it names no endpoint of its own`, { next: next.slice(0, 200) });
      }
      throw protocolError('forward_onwards_failed', `the endpoint of ${next.slice(0, 200)} did not take the message (${e.code})`, { next: next.slice(0, 200), cause: e.code });
    }
    core.events.emit('forward-relayed', { next: shortForm(next), count: packed.length, id: ctx.message.id });
  }

  /** Pushes now, or once the delay is over (a timer: nothing is lost if the process stops first, it stays queued). */
  function pushWhenDue(router: Router, owner: string, recipientDid: string, entries: QueuedMessage[]): void {
    const now = core.clock.now();
    const wait = Math.max(0, ...entries.map((e) => (e.notBefore ?? now) - now));
    if (wait === 0) return void core.background('live push', async () => void (await pickup.pushLive(router, owner, entries)));
    // Held back (delay_milli): by the time it is due it may have passed its expires_time, or been
    // collected and confirmed by a delivery-request. Only what still waits is pushed.
    setTimeout(
      () =>
        core.background('live push', async () => {
          const waiting = (await Promise.all(entries.map((e) => core.queue.get(recipientDid, e.id, { heldBack: true })))).filter((e): e is QueuedMessage => e !== undefined);
          await pickup.pushLive(router, owner, waiting);
        }),
      wait,
    ).unref();
  }

  async function onForward(ctx: HandlerContext): Promise<void> {
    const parsed = parseForwardMessage(ctx.message);
    for (const p of parsed.packed) {
      const size = Buffer.byteLength(p);
      if (size > core.policy.maxMessageBytes) {
        throw protocolError('forward_too_large', `the forwarded message has ${size} bytes; this mediator takes at most ${core.policy.maxMessageBytes}`, { size, max: core.policy.maxMessageBytes });
      }
    }
    const now = core.clock.now();
    let notBefore: number | undefined;
    if (parsed.delayMilli !== undefined && parsed.delayMilli !== 0) {
      const asked = Math.abs(parsed.delayMilli);
      if (asked > core.policy.maxDelayMs) {
        throw protocolError('forward_delay_refused', `delay_milli ${parsed.delayMilli} is longer than the ${core.policy.maxDelayMs} ms this mediator holds messages back`, { delayMilli: parsed.delayMilli, max: core.policy.maxDelayMs });
      }
      notBefore = now + (parsed.delayMilli < 0 ? Math.floor(Math.random() * asked) : asked);
    }
    // An expires_time beyond any date is no end: in milliseconds it may be Infinity, which the store's
    // JSON keeps as null, read back as an end long passed (an acknowledged message dropped).
    const expiresAt = parsed.expiresTime !== undefined ? epochSecondsMs(parsed.expiresTime) : undefined;
    // Looked up and queued with the registration held still: a removal meanwhile would count
    // nothing waiting and let the DID go, leaving this message for nobody (keylist.ts).
    const queued = await core.keylist.withRecipient(parsed.next, async () => {
      const reg = await core.keylist.lookup(parsed.next);
      if (!reg) return undefined;
      const entries: QueuedMessage[] = [];
      for (const p of parsed.packed) {
        entries.push(
          await core.queue.enqueue(reg.recipientDid, p, {
            messageId: digest(p),
            type: 'forwarded',
            ...(expiresAt !== undefined ? { expiresAt } : {}),
            ...(notBefore !== undefined ? { notBefore } : {}),
          }),
        );
      }
      return { reg, entries };
    });
    if (!queued) return relay(ctx, parsed.next, parsed.packed);
    const { reg, entries } = queued;
    core.crashPoint?.('mediator:forward-queued');
    core.events.emit('forward-queued', { to: shortForm(reg.recipientDid), owner: shortForm(reg.owner), queueIds: entries.map((e) => e.id), id: ctx.message.id });
    if (core.live.has(reg.owner)) pushWhenDue(ctx.router, reg.owner, reg.recipientDid, entries);
  }

  return { piuri: ROUTING_PIURI, roles: ['mediator'], rules: ROUTING_RULES, handlers: { forward: onForward } };
}
