// docs/protocols.md "Refusals that change no state": a replay (a message id already seen from
// that sender) is answered with e.p.msg.duplicate when the sender is authenticated, logged with
// the rule it broke, and changes no state.
import { describe, expect, it, vi } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { createRouter, type Outbound, type RouterOptions } from '../../src/router/router.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { b64uDecodeText } from '../../src/encoding.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { PROBLEM_REPORT } from '../../src/protocols/report-problem.js';
import { messageLog } from '../../src/store/messages.js';
import { openStore } from '../../src/store/store.js';
import { stubContext, stubJwe, stubPack, stubUnpack } from '../protocols/stub-envelope.js';

const ALICE = 'did:example:alice';
const BOB = 'did:example:bob';
const HIT = 'https://example.org/count/1.0/hit';

/** Bob's router; what it sends is kept (plaintext of each stub envelope) instead of delivered. */
function bob(extra: Partial<RouterOptions> = {}) {
  const sent: PlainMessage[] = [];
  const send: Outbound = async (packed) => {
    const value = JSON.parse(packed) as { ciphertext?: string };
    sent.push(JSON.parse(value.ciphertext ? b64uDecodeText(value.ciphertext) : packed) as PlainMessage);
  };
  const handler = vi.fn();
  const router = createRouter({ envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock: new ManualClock(), ids: sequentialIds('b'), myDids: [BOB], send, ...extra })
    .use(...basicProtocols())
    .use({ piuri: 'https://example.org/count/1.0', handlers: { hit: handler } });
  return { router, sent, handler };
}

/** An authcrypted message from Alice to Bob. */
function fromAlice(message: Partial<PlainMessage> = {}): string {
  return stubJwe({ id: 'm-1', type: HIT, from: ALICE, to: [BOB], body: {}, ...message }, `${BOB}#key-2`, `${ALICE}#key-2`);
}

describe('router duplicates', () => {
  it('answers a replay from an authenticated sender with e.p.msg.duplicate on its thread, handling it once', async () => {
    const { router, sent, handler } = bob();
    const packed = fromAlice({ id: 'm-7', thid: 't-1' });
    expect((await router.receive(packed)).status).toBe('handled');
    const replay = await router.receive(packed);
    expect(replay).toMatchObject({ status: 'duplicate', code: 'duplicate_message', problemCode: 'e.p.msg.duplicate' });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ type: PROBLEM_REPORT, pthid: 't-1', ack: ['m-7'], from: BOB, to: [ALICE], body: { code: 'e.p.msg.duplicate' } });
    expect(sent[0].thid).toBeUndefined();
    expect(sent[0].body.args).toEqual(['Message m-7 was already received.']);
  });

  it('says whether a duplicate was refused while its first copy is still being handled (outcome not known yet) or after it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { router, handler } = bob();
    handler.mockImplementationOnce(() => gate);
    const packed = fromAlice({ id: 'm-held' });
    const first = router.receive(packed);
    await vi.waitFor(() => expect(handler).toHaveBeenCalledTimes(1));
    const during = await router.receive(packed);
    expect(during).toMatchObject({ status: 'duplicate', otherCopyHandling: true });
    release();
    expect((await first).status).toBe('handled');
    const after = await router.receive(packed);
    expect(after.status).toBe('duplicate');
    expect(after.otherCopyHandling).toBeUndefined();
  });

  it('uses the message id as the thread of a replayed message without thid', async () => {
    const { router, sent } = bob();
    await router.receive(fromAlice({ id: 'first' }));
    await router.receive(fromAlice({ id: 'first' }));
    expect(sent[0].pthid).toBe('first');
  });

  it('logs the replay under idsync\'s replay protection (advice: a copy sent again breaks no MUST) and the problem code sent', async () => {
    const store = await openStore();
    const clock = new ManualClock();
    const log = messageLog(store, clock);
    const { router } = bob({ log, clock });
    const packed = fromAlice();
    await router.receive(packed);
    const result = await router.receive(packed);
    const broken = result.conformance.filter((c) => !c.ok);
    expect(broken).toEqual([expect.objectContaining({ rule: 'plaintext.id-replayed', severity: 'advice', layer: 'plaintext' })]);
    const records = await log.list({ direction: 'in' });
    expect(records.map((r) => r.result)).toEqual(['handled', 'duplicate']);
    expect(records[1].problemCode).toBe('e.p.msg.duplicate');
    expect(records[1].conformance?.find((c) => c.rule === 'plaintext.id-replayed')?.ok).toBe(false);
    expect(records[0].conformance?.some((c) => c.rule === 'plaintext.id-replayed')).toBe(false);
    expect(records[1].conformance?.some((c) => c.rule === 'plaintext.id-unique')).toBe(false);
    const out = await log.list({ direction: 'out' });
    expect(out.map((r) => [r.type, r.problemCode ?? null])).toEqual([[PROBLEM_REPORT, null]]);
    await store.close();
  });

  it('drops a replay silently when the sender is not authenticated', async () => {
    const { router, sent } = bob();
    const plain = JSON.stringify({ id: 'm-1', type: HIT, from: ALICE, to: [BOB], body: {} });
    const anon = stubJwe({ id: 'm-2', type: HIT, from: ALICE, to: [BOB], body: {} }, `${BOB}#key-2`);
    for (const packed of [plain, plain, anon, anon]) await router.receive(packed);
    const again = await router.receive(anon);
    expect(again.status).toBe('duplicate');
    expect(again.problemCode).toBeUndefined();
    expect(sent).toEqual([]);
  });

  it('does not report a receive marked as redelivery (Message Pickup, live mode)', async () => {
    const { router, sent } = bob();
    const packed = fromAlice();
    await router.receive(packed, { transport: 'pickup', redelivery: true });
    const again = await router.receive(packed, { transport: 'pickup', redelivery: true });
    expect(again).toMatchObject({ status: 'duplicate', code: 'duplicate_message' });
    expect(again.problemCode).toBeUndefined();
    expect(again.conformance.find((c) => c.rule === 'plaintext.id-replayed')?.ok).toBe(false);
    expect(sent).toEqual([]);
  });

  it('does not report duplicates when the router is made with reportDuplicates false', async () => {
    const { router, sent } = bob({ reportDuplicates: false });
    const packed = fromAlice();
    await router.receive(packed);
    expect((await router.receive(packed)).status).toBe('duplicate');
    expect(sent).toEqual([]);
  });

  it('never answers a replayed problem report with a problem report', async () => {
    const { router, sent } = bob();
    const report = fromAlice({ id: 'p-1', type: PROBLEM_REPORT, pthid: 't-9', body: { code: 'e.p.req.declined' } });
    expect((await router.receive(report)).status).toBe('handled');
    const again = await router.receive(report);
    expect(again.status).toBe('duplicate');
    expect(again.problemCode).toBeUndefined();
    expect(sent).toEqual([]);
  });

  it('sends the duplicate report over the return route when the replay asks for it', async () => {
    const { router, sent } = bob();
    const packed = fromAlice({ return_route: 'all' });
    await router.receive(packed);
    const back: string[] = [];
    const again = await router.receive(packed, { transport: 'test', reply: async (p) => void back.push(p) });
    expect(again.replies).toHaveLength(1);
    expect(back).toEqual(again.replies);
    expect(sent).toEqual([]);
    const { message } = await stubUnpack(back[0], stubContext);
    expect(message).toMatchObject({ type: PROBLEM_REPORT, body: { code: 'e.p.msg.duplicate' } });
  });
});
