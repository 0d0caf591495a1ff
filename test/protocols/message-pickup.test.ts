import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { createRuleRegistry } from '../../src/conformance/registry.js';
import { addIdsyncRules } from '../../src/protocols/idsync-rules.js';
import { errorsOf } from '../../src/conformance/types.js';
import { createRouter, type Router } from '../../src/router/router.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import {
  MESSAGE_PICKUP,
  MESSAGE_PICKUP_PIURI,
  buildDelivery,
  buildDeliveryRequest,
  buildLiveDeliveryChange,
  buildMessagesReceived,
  buildStatus,
  buildStatusRequest,
  messagePickupProtocol,
  parseDelivery,
  parseDeliveryRequest,
  parseLiveDeliveryChange,
  parseMessagesReceived,
  parseStatus,
  parseStatusRequest,
  type QueuedMessage,
} from '../../src/protocols/message-pickup.js';
import { stubContext, stubPack, stubUnpack } from './stub-envelope.js';

const deps = { clock: new ManualClock(), ids: sequentialIds('mp') };
const WALLET = 'did:ion:EiAwallet';
const SERVICE = 'did:web:127.0.0.1%3A8080';
const packed = (n: number) => JSON.stringify({ protected: `p${n}`, recipients: [{ header: { kid: `${WALLET}#key-2` }, encrypted_key: 'k' }], iv: 'i', ciphertext: `c${n}`, tag: 't' });

const registry = addIdsyncRules(createRuleRegistry());
const check = (m: PlainMessage) => registry.check(m).filter((r) => !r.ok);

describe('message pickup 3.0 messages', () => {
  it('builds requests with return_route all and parses them', () => {
    const sr = buildStatusRequest({ from: WALLET, to: SERVICE, recipientDid: WALLET }, deps);
    expect(sr).toMatchObject({ type: MESSAGE_PICKUP.statusRequest, return_route: 'all', body: { recipient_did: WALLET } });
    expect(parseStatusRequest(sr)).toEqual({ recipientDid: WALLET });
    expect(parseStatusRequest(buildStatusRequest({ from: WALLET, to: SERVICE }, deps))).toEqual({});
    const dr = buildDeliveryRequest({ from: WALLET, to: SERVICE, limit: 10 }, deps);
    expect(dr).toMatchObject({ return_route: 'all', body: { limit: 10 } });
    expect(parseDeliveryRequest(dr)).toEqual({ limit: 10 });
    const mr = buildMessagesReceived({ from: WALLET, to: SERVICE, messageIds: ['q-1', 'q-2'] }, deps);
    expect(parseMessagesReceived(mr)).toEqual({ messageIds: ['q-1', 'q-2'] });
    const live = buildLiveDeliveryChange({ from: WALLET, to: SERVICE, liveDelivery: true }, deps);
    expect(parseLiveDeliveryChange(live)).toEqual({ liveDelivery: true });
    for (const m of [sr, dr, mr, live]) expect(check(m)).toEqual([]);
  });

  it('maps status fields to the wire names of §Status', () => {
    const s = buildStatus({ from: SERVICE, to: WALLET, thid: 'sr-1', messageCount: 2, recipientDid: WALLET, longestWaitedSeconds: 60, newestReceivedTime: 1740823200, oldestReceivedTime: 1740823140, totalBytes: 812, liveDelivery: false }, deps);
    expect(s.body).toEqual({ message_count: 2, recipient_did: WALLET, longest_waited_seconds: 60, newest_received_time: 1740823200, oldest_received_time: 1740823140, total_bytes: 812, live_delivery: false });
    expect(parseStatus(s)).toEqual({ messageCount: 2, recipientDid: WALLET, longestWaitedSeconds: 60, newestReceivedTime: 1740823200, oldestReceivedTime: 1740823140, totalBytes: 812, liveDelivery: false });
    expect(parseStatus(buildStatus({ thid: 'sr-1', messageCount: 0 }, deps))).toEqual({ messageCount: 0 });
  });

  it('delivers packed messages as base64url or JSON attachments whose ids are the queue ids', () => {
    const queued: QueuedMessage[] = [{ id: 'q-1', packed: packed(1) }, { id: 'q-2', packed: packed(2) }];
    for (const encoding of ['base64', 'json'] as const) {
      const d = buildDelivery({ from: SERVICE, to: WALLET, thid: 'dr-1', messages: queued, encoding }, deps);
      expect(d.attachments!.map((a) => a.id)).toEqual(['q-1', 'q-2']);
      expect(Object.keys(d.attachments![0].data)).toEqual([encoding]);
      expect(check(d)).toEqual([]);
      const parsed = parseDelivery(d);
      expect(parsed.thid).toBe('dr-1');
      expect(parsed.messages.map((m) => JSON.parse(m.packed))).toEqual(queued.map((m) => JSON.parse(m.packed)));
    }
    expect(parseDelivery(buildDelivery({ thid: 'dr-1', messages: queued }, deps)).messages).toEqual(queued);
  });

  it('rejects malformed bodies with message_invalid_body', () => {
    const delivery = buildDelivery({ thid: 'dr-1', messages: [{ id: 'q-1', packed: packed(1) }] }, deps);
    const bad: Array<[() => unknown, string]> = [
      [() => parseStatus({ ...buildStatus({ messageCount: 1 }, deps), body: {} }), 'messagepickup.status.message_count'],
      [() => parseStatus({ ...buildStatus({ messageCount: 1 }, deps), body: { message_count: -1 } }), 'messagepickup.status.message_count'],
      [() => parseDeliveryRequest({ ...buildDeliveryRequest({ limit: 1 }, deps), body: {} }), 'messagepickup.delivery-request.limit'],
      [() => parseDeliveryRequest({ ...buildDeliveryRequest({ limit: 1 }, deps), body: { limit: -1 } }), 'messagepickup.delivery-request.limit-form'],
      [() => parseDeliveryRequest({ ...buildDeliveryRequest({ limit: 1 }, deps), body: { limit: 5, recipient_did: 3 } }), 'messagepickup.delivery-request.recipient_did'],
      [() => parseDelivery({ ...delivery, attachments: [] }), 'messagepickup.delivery.attachments'],
      [() => parseDelivery({ ...delivery, attachments: [{ data: { base64: 'eyJ9' } }] }), 'messagepickup.delivery.attachments'],
      [() => parseDelivery({ ...delivery, thid: undefined }), 'messagepickup.delivery.thid'],
      [() => parseMessagesReceived({ ...buildMessagesReceived({ messageIds: [] }, deps), body: { message_id_list: 'q-1' } }), 'messagepickup.messages-received.message_id_list'],
      [() => parseLiveDeliveryChange({ ...buildLiveDeliveryChange({ liveDelivery: true }, deps), body: { live_delivery: 'yes' } }), 'messagepickup.live-delivery-change.live_delivery'],
    ];
    for (const [fn, rule] of bad) {
      expect(fn).toThrow(expect.objectContaining({ code: 'message_invalid_body', details: { failures: [expect.objectContaining({ rule })] } }));
    }
  });

  it('sets apart the attachments of a delivery it cannot read, and reads those beside them', () => {
    const delivery = buildDelivery({ thid: 'dr-1', messages: [{ id: 'q-1', packed: packed(1) }] }, deps);
    const good = delivery.attachments![0]!;
    const d = {
      ...delivery,
      attachments: [
        { id: 'q-0', data: { links: ['https://example.org/m'], hash: 'x' } },
        good,
        { id: 'q-2', data: { json: [1, 2] } },
        { id: 'q-3', data: { base64: '!!' } },
        { data: { base64: good.data.base64 } },
      ],
    } as typeof delivery;
    // Still judged as it is: attachments that are not packed messages break a MUST.
    expect(errorsOf(check(d))).not.toEqual([]);
    const parsed = parseDelivery(d);
    expect(parsed.messages.map((m) => m.id)).toEqual(['q-1']);
    expect(parsed.unusable.map((u) => u.id)).toEqual(['q-0', 'q-2', 'q-3']);
  });

  it('advises, without refusing, on a request without return_route', () => {
    const dr = { ...buildDeliveryRequest({ limit: 5 }, deps), return_route: undefined };
    const results = check(dr);
    expect(results).toEqual([expect.objectContaining({ rule: 'messagepickup.delivery-request.return_route', severity: 'advice' })]);
    expect(errorsOf(results)).toEqual([]);
  });
});

describe('message pickup 3.0 over routers', () => {
  it('answers a delivery request on the return route and confirms receipt', async () => {
    const clock = new ManualClock();
    const queue = new Map<string, string>([['q-1', packed(1)], ['q-2', packed(2)]]);
    let mediator: Router;
    const recipient = createRouter({
      envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock, ids: sequentialIds('r'), myDids: [WALLET],
      // An HTTP-like transport: replies made while the mediator handles the request come back from send.
      send: async (p) => {
        const replies: string[] = [];
        await mediator.receive(p, { transport: 'test', reply: async (r) => void replies.push(r) });
        return replies;
      },
    });
    mediator = createRouter({ envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock, ids: sequentialIds('m'), myDids: [SERVICE], send: async () => undefined });
    mediator.use(
      ...basicProtocols(),
      messagePickupProtocol(
        {
          'delivery-request': async (ctx, { limit }) => {
            const messages = [...queue].slice(0, limit).map(([id, p]) => ({ id, packed: p }));
            await ctx.reply(buildDelivery({ thid: ctx.thid, messages }, { clock }));
          },
          'messages-received': async (ctx, { messageIds }) => {
            for (const id of messageIds) queue.delete(id);
            await ctx.reply(buildStatus({ messageCount: queue.size }, { clock }));
          },
        },
        ['mediator'],
      ),
    );
    const delivered: QueuedMessage[][] = [];
    const statuses: number[] = [];
    recipient.use(
      ...basicProtocols(),
      messagePickupProtocol({ delivery: (_ctx, d) => void delivered.push(d.messages), status: (_ctx, s) => void statuses.push(s.messageCount) }, ['recipient']),
    );
    const sent = await recipient.send(buildDeliveryRequest({ from: WALLET, to: SERVICE, limit: 1 }, { clock }));
    expect(sent.replies.map((r) => r.status)).toEqual(['handled']);
    expect(sent.replies[0].message).toMatchObject({ type: MESSAGE_PICKUP.delivery, thid: sent.message.id });
    expect(delivered).toEqual([[{ id: 'q-1', packed: packed(1) }]]);
    await recipient.send(buildMessagesReceived({ from: WALLET, to: SERVICE, messageIds: ['q-1'] }, { clock }));
    expect(statuses).toEqual([1]);
    expect(mediator.protocols().find((p) => p.piuri === MESSAGE_PICKUP_PIURI)).toMatchObject({ roles: ['mediator'] });
  });
});
