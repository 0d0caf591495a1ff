import { describe, expect, it, vi } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { createRouter, type Outbound, type ReceiveInfo, type Router, type RouterOptions, type RouterResult } from '../../src/router/router.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { IdsyncError } from '../../src/errors.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { PROBLEM_REPORT, type ParsedProblem } from '../../src/protocols/report-problem.js';
import { TRUST_PING, ping } from '../../src/protocols/trust-ping.js';
import { messageLog } from '../../src/store/messages.js';
import { openStore } from '../../src/store/store.js';
import { UNDECRYPTABLE, stubContext, stubJwe, stubPack, stubUnpack } from '../protocols/stub-envelope.js';

const ALICE = 'did:example:alice';
const BOB = 'did:example:bob';

function router(name: string, clock: ManualClock, send: Outbound, extra: Partial<RouterOptions> = {}): Router {
  return createRouter({
    envelope: stubContext,
    pack: stubPack,
    unpack: stubUnpack,
    clock,
    ids: sequentialIds(name),
    myDids: [name === 'a' ? ALICE : BOB],
    send,
    ...extra,
  }).use(...basicProtocols());
}

/** Two routers wired to each other; every delivery is recorded. */
function pair(extraA: Partial<RouterOptions> = {}, extraB: Partial<RouterOptions> = {}) {
  const clock = new ManualClock();
  const toB: string[] = [];
  const toA: string[] = [];
  const results: { a: RouterResult[]; b: RouterResult[] } = { a: [], b: [] };
  let a: Router, b: Router;
  a = router('a', clock, async (packed) => {
    toB.push(packed);
    results.b.push(await b.receive(packed, { transport: 'test' }));
  }, extraA);
  b = router('b', clock, async (packed) => {
    toA.push(packed);
    results.a.push(await a.receive(packed, { transport: 'test' }));
  }, extraB);
  return { a, b, clock, toA, toB, results };
}

function plain(message: Partial<PlainMessage> & { type: string }): string {
  return JSON.stringify({ id: 'm-1', from: ALICE, to: [BOB], body: {}, ...message });
}

describe('router', () => {
  it('runs a trust ping between two parties and threads the response to the ping', async () => {
    const { a, b } = pair();
    const pinged = b.waitFor<{ message: PlainMessage }>('trust-ping');
    const { ping: sent, response } = await ping(a, BOB);
    expect((await pinged).message.id).toBe(sent.id);
    expect(response.type).toBe(TRUST_PING.pingResponse);
    expect(response.thid).toBe(sent.id);
    expect(response.from).toBe(BOB);
    expect(response.to).toEqual([ALICE]);
  });

  it('does not answer a ping that asks for no response', async () => {
    const { a, toA } = pair();
    await a.send({ type: TRUST_PING.ping, body: { response_requested: false } }, { to: BOB });
    expect(toA).toEqual([]);
  });

  it('answers an unknown message type with a report-problem e.p.msg.unsupported', async () => {
    const { a, results } = pair();
    const problem = a.waitFor<{ problem: ParsedProblem }>('problem');
    const sent = await a.send({ type: 'https://example.org/lunch/1.0/proposal', body: {} }, { to: BOB });
    expect(results.b[0]).toMatchObject({ status: 'unsupported', code: 'unsupported_message_type', problemCode: 'e.p.msg.unsupported' });
    const { problem: p } = await problem;
    expect(p.code).toBe('e.p.msg.unsupported');
    expect(p.pthid).toBe(sent.message.id);
    expect(p.ack).toEqual([sent.message.id]);
    expect(p.text).toBe('Message type https://example.org/lunch/1.0/proposal is not supported.');
  });

  it('drops a message whose id it has seen, without running the handler again', async () => {
    const { b } = pair();
    const onPing = vi.fn();
    b.use({ piuri: 'https://example.org/count/1.0', handlers: { hit: onPing } });
    const packed = plain({ type: 'https://example.org/count/1.0/hit' });
    expect((await b.receive(packed)).status).toBe('handled');
    expect((await b.receive(packed)).status).toBe('duplicate');
    // DIDComm v2 §Threading: ids compare case-insensitively.
    expect((await b.receive(packed.replace('"m-1"', '"M-1"'))).status).toBe('duplicate');
    expect(onPing).toHaveBeenCalledTimes(1);
  });

  it('remembers seen ids across a restart when given a store collection', async () => {
    const store = await openStore();
    const clock = new ManualClock();
    const seen = store.collection<{ at: number }>('seen-ids');
    const make = () =>
      createRouter({ envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock, seen, send: async () => {} }).use({
        piuri: 'https://example.org/count/1.0',
        handlers: { hit: () => {} },
      });
    const packed = plain({ type: 'https://example.org/count/1.0/hit' });
    expect((await make().receive(packed)).status).toBe('handled');
    expect((await make().receive(packed)).status).toBe('duplicate');
    await store.close();
  });

  it('refuses an expired message with e.m.req.time.expired and handles one that expires now', async () => {
    const { b, clock } = pair();
    const handler = vi.fn();
    b.use({ piuri: 'https://example.org/count/1.0', handlers: { hit: handler } });
    const now = clock.now() / 1000;
    const sent: string[] = [];
    const late = await createRouter({ envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock, send: async (p) => void sent.push(p) })
      .use(...basicProtocols())
      .receive(plain({ id: 'late', type: TRUST_PING.ping, expires_time: now - 1 }));
    expect(late).toMatchObject({ status: 'expired', code: 'message_expired', problemCode: 'e.m.req.time.expired' });
    const report = JSON.parse(sent[0]) as PlainMessage;
    expect(report.type).toBe(PROBLEM_REPORT);
    expect(report.body.args).toEqual([new Date((now - 1) * 1000).toISOString()]);
    expect((await b.receive(plain({ id: 'on-time', type: 'https://example.org/count/1.0/hit', expires_time: now }))).status).toBe('handled');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('refuses as expired, coded, a message whose expires_time is a number no date holds', async () => {
    // -1e308 seconds is an integer in the past; new Date() of it is invalid, and its toISOString() throws.
    const { clock } = pair();
    const sent: string[] = [];
    const router = createRouter({ envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock, send: async (p) => void sent.push(p) }).use(...basicProtocols());
    const late = await router.receive(plain({ id: 'long-ago', type: TRUST_PING.ping, expires_time: -1e308 }));
    expect(late).toMatchObject({ status: 'expired', code: 'message_expired', problemCode: 'e.m.req.time.expired' });
    expect((JSON.parse(sent[0]) as PlainMessage).body.args).toEqual(['-1e+308 (seconds since 1970, beyond any date)']);
  });

  it('turns an IdsyncError thrown by a handler into a problem report with the mapped code', async () => {
    const { a, b, results } = pair();
    b.use({
      piuri: 'https://example.org/vault/1.0',
      handlers: {
        get: () => {
          throw new IdsyncError('not_found', 'no such item');
        },
      },
    });
    const problem = a.waitFor<{ problem: ParsedProblem }>('problem');
    await a.send({ type: 'https://example.org/vault/1.0/get', body: {} }, { to: BOB });
    expect(results.b[0]).toMatchObject({ status: 'failed', code: 'not_found', problemCode: 'e.p.req.not-found' });
    expect((await problem).problem.text).toBe("Circumstances don't satisfy requirements. no such item");
  });

  it('reports an unexpected handler error as e.p.me without revealing its message', async () => {
    const { a, b } = pair();
    b.use({
      piuri: 'https://example.org/vault/1.0',
      handlers: {
        get: () => {
          throw new TypeError('secret internals at /srv/x');
        },
      },
    });
    const problem = a.waitFor<{ problem: ParsedProblem }>('problem');
    await a.send({ type: 'https://example.org/vault/1.0/get', body: {} }, { to: BOB });
    const { problem: p } = await problem;
    expect(p.code).toBe('e.p.me');
    expect(JSON.stringify(p)).not.toContain('secret internals');
  });

  it('never answers a problem report with a problem report', async () => {
    const { b, toA } = pair();
    const result = await b.receive(plain({ type: PROBLEM_REPORT, pthid: 'x', body: { code: 'NOT A CODE' } }));
    expect(result.status).toBe('rejected');
    expect(result.problemCode).toBeUndefined();
    expect(toA).toEqual([]);
  });

  it('returns a coded result and sends nothing for a message it cannot decrypt', async () => {
    const store = await openStore();
    const clock = new ManualClock();
    const log = messageLog(store, clock);
    const send = vi.fn();
    const r = createRouter({ envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock, send, log }).use(...basicProtocols());
    const result = await r.receive(UNDECRYPTABLE);
    expect(result).toMatchObject({ status: 'undecryptable', code: 'secret_not_found' });
    expect((await r.receive('not json at all')).code).toBe('didcomm_malformed');
    expect(send).not.toHaveBeenCalled();
    const records = await log.list();
    expect(records.map((x) => x.result)).toEqual(['undecryptable', 'undecryptable']);
    await store.close();
  });

  it('emits each result with the packed message as received, handled or not', async () => {
    const { a, b, toB } = pair();
    const results: [string, string | undefined][] = [];
    b.events.on('result', (r: RouterResult, packed?: string) => results.push([r.status, packed]));
    await ping(a, BOB);
    await b.receive(UNDECRYPTABLE);
    expect(results).toEqual([
      ['handled', toB[0]],
      ['undecryptable', UNDECRYPTABLE],
    ]);
  });

  it('rejects a message that breaks a MUST of the plaintext rules, and handles it when not strict', async () => {
    const bad = JSON.stringify({ id: 'm-9', type: TRUST_PING.ping, from: ALICE, to: [BOB], body: [] });
    const strict = pair();
    const rejected = await strict.b.receive(bad);
    expect(rejected).toMatchObject({ status: 'rejected', code: 'message_malformed', problemCode: 'e.m.msg.malformed' });
    expect(rejected.conformance.find((c) => c.rule === 'plaintext.body')?.ok).toBe(false);
    const lax = pair({}, { strict: false });
    expect((await lax.b.receive(bad)).status).toBe('handled');
  });

  it('rejects an authcrypted message whose from is not the sender key DID', async () => {
    const { b, toA } = pair();
    const packed = stubJwe({ id: 'm-2', type: TRUST_PING.ping, from: ALICE, to: [BOB], body: {} }, `${BOB}#key-2`, 'did:example:mallory#key-2');
    const result = await b.receive(packed);
    expect(result).toMatchObject({ status: 'rejected', code: 'sender_mismatch', problemCode: 'e.m.trust.sender-mismatch' });
    // The report goes to the DID the envelope proves, not to the claimed sender.
    expect(JSON.parse(toA[0]).recipients[0].header.kid).toBe('did:example:mallory#key-2');
  });

  it('sends replies back over the return route when the message asks for it', async () => {
    const clock = new ManualClock();
    const bSend = vi.fn();
    const b = router('b', clock, bSend);
    const a = router('a', clock, async (packed, target) => {
      expect(target.returnRoute).toBe(true);
      const replies: string[] = [];
      const info: ReceiveInfo = { transport: 'test', reply: async (p) => void replies.push(p) };
      await b.receive(packed, info);
      return replies;
    });
    const handled = a.waitFor<{ message: PlainMessage }>('trust-ping-response');
    const sent = await a.send({ type: TRUST_PING.ping, body: {}, return_route: 'all' }, { to: BOB });
    expect(bSend).not.toHaveBeenCalled();
    expect(sent.replies.map((r) => r.status)).toEqual(['handled']);
    expect((await handled).message.thid).toBe(sent.message.id);
  });

  it('handles a newer minor version of a protocol it knows (DIDComm v2 semver rules)', async () => {
    const { b, toA } = pair();
    const result = await b.receive(plain({ type: 'https://didcomm.org/trust-ping/2.3/ping', body: { response_requested: true } }));
    expect(result.status).toBe('handled');
    expect(toA).toHaveLength(1);
  });

  it('records messages in and out with their conformance results, in order', async () => {
    const store = await openStore();
    const { a, clock } = pair();
    const log = messageLog(store, clock);
    const b = router('b', clock, async (packed) => void (await a.receive(packed)), { log });
    await b.receive(plain({ id: 'p-1', type: TRUST_PING.ping, body: {} }), { transport: 'test' });
    const records = await log.list();
    expect(records.map((r) => [r.direction, r.type, r.result])).toEqual([
      ['in', TRUST_PING.ping, 'handled'],
      ['out', TRUST_PING.pingResponse, 'sent'],
    ]);
    expect(records[0].conformance?.every((c) => c.ok || c.severity !== 'error')).toBe(true);
    expect(records[1].thid).toBe('p-1');
    expect(records[0].transport).toBe('test');
    await store.close();
  });

  it('keeps handling messages when the log fails', async () => {
    const { a } = pair();
    const r = router('b', new ManualClock(), async (p) => void (await a.receive(p)), {
      log: { record: async () => Promise.reject(new Error('disk full')) },
    });
    expect((await r.receive(plain({ type: TRUST_PING.ping }))).status).toBe('handled');
  });

  it('refuses to register two protocols for the same message types and replaces a re-registered one', () => {
    const { b } = pair();
    b.use({ piuri: 'https://example.org/x/1.0', handlers: { a: () => {} } });
    expect(() => b.use({ piuri: 'https://example.org/x/1.1', handlers: { a: () => {} } })).toThrow(expect.objectContaining({ code: 'protocol_conflict' }));
    b.use({ piuri: 'https://example.org/x/1.0', roles: ['r'], handlers: { a: () => {}, b: () => {} } });
    expect(b.protocols().find((p) => p.piuri === 'https://example.org/x/1.0')?.messageTypes).toHaveLength(2);
    expect(() => b.use({ piuri: 'not a piuri', handlers: {} })).toThrow(expect.objectContaining({ code: 'invalid_protocol' }));
  });

  it('throws a coded error when sending a nonconformant message, unless unchecked', async () => {
    const { a, toB } = pair();
    await expect(a.send({ type: 'no-uri', body: {} }, { to: BOB })).rejects.toMatchObject({ code: 'message_malformed' });
    await a.send({ type: 'no-uri', body: {} }, { to: BOB, unchecked: true });
    expect(toB).toHaveLength(1);
  });

  it('rejects waitFor after its time limit with a coded error', async () => {
    const { a } = pair();
    await expect(a.waitFor('never', undefined, { timeoutMs: 5 })).rejects.toMatchObject({ code: 'timeout' });
  });
});
