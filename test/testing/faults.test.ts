// fault-plan.ts and faulty-transport.ts: which message gets which fault is decided by rules and
// a seeded PRNG (the same seed gives the same faults), and each fault does what it says on a
// real in-memory network, recorded as it is applied.
import { describe, expect, it } from 'vitest';
import { memoryNetwork } from '../../src/didcomm/transport/memory.js';
import { faultInjector, peekMessage, seededRandom, tamper, type AppliedFault, type FaultPlan } from '../../src/testing/fault-plan.js';
import { faultyInbound, faultyTransport } from '../../src/testing/faulty-transport.js';

const plain = (id: string, type = 'https://didcomm.org/trust-ping/2.0/ping') => JSON.stringify({ id, typ: 'application/didcomm-plain+json', type, body: {} });
const jwe = (n: number) => JSON.stringify({ protected: 'eyJhbGciOiJFQ0RILUVTK0EyNTZLVyJ9', recipients: [{ header: { kid: 'did:example:b#k' }, encrypted_key: `AAAA${n}` }], iv: 'aXY', ciphertext: `Y2lwaGVy${n}`, tag: 'dGFn' });

/** An endpoint on a fresh memory network that records what arrives, answering with `reply` when given. */
function receiver(reply?: (packed: string) => string | undefined) {
  const network = memoryNetwork();
  const got: string[] = [];
  network.endpoint('memory://b', async (packed, info) => {
    got.push(packed);
    const r = reply?.(packed);
    if (r) await info.reply(r);
  });
  return { got, transport: network.transport() };
}

describe('fault plan', () => {
  it('gives the same decisions for the same seed and other decisions for another seed', () => {
    const decisions = (seed: number) => {
      const inj = faultInjector({ seed, rules: [{ fault: 'drop', probability: 0.3 }, { fault: 'duplicate', probability: 0.3 }] });
      return Array.from({ length: 200 }, () => inj.decide({ direction: 'out', mediaType: 'encrypted' }).faults.map((f) => f.kind).join('+'));
    };
    expect(decisions(42)).toEqual(decisions(42));
    expect(decisions(42)).not.toEqual(decisions(43));
    const drops = decisions(42).filter((d) => d.includes('drop')).length;
    expect(drops).toBeGreaterThan(30);
    expect(drops).toBeLessThan(90);
  });

  it('draws each rule from its own stream: adding a rule does not change what another rule decides', () => {
    const drops = (rules: FaultPlan['rules']) => {
      const inj = faultInjector({ seed: 7, rules });
      return Array.from({ length: 50 }, () => inj.decide({ direction: 'out', mediaType: 'plain' }).faults.some((f) => f.kind === 'drop'));
    };
    expect(drops([{ fault: 'drop', probability: 0.5 }])).toEqual(drops([{ fault: 'drop', probability: 0.5 }, { fault: 'tamper', probability: 0.5 }]));
  });

  it('selects by direction, media type, type (exact, suffix or RegExp), nth and times', () => {
    const inj = faultInjector({
      rules: [
        { fault: 'drop', direction: 'to-service', type: 'issue-credential/3.0/ack' },
        { fault: 'tamper', mediaType: 'encrypted', nth: [2, 3] },
        { fault: 'duplicate', type: /present-proof/, times: 1 },
      ],
    });
    const kinds = (s: Parameters<typeof inj.decide>[0]) => inj.decide(s).faults.map((f) => f.kind);
    expect(kinds({ direction: 'to-wallet', mediaType: 'plain', type: 'https://didcomm.org/issue-credential/3.0/ack' })).toEqual([]);
    expect(kinds({ direction: 'to-service', mediaType: 'plain', type: 'https://didcomm.org/issue-credential/3.0/ack' })).toEqual(['drop']);
    expect(kinds({ direction: 'x', mediaType: 'encrypted' })).toEqual([]);
    expect(kinds({ direction: 'x', mediaType: 'encrypted' })).toEqual(['tamper']);
    expect(kinds({ direction: 'x', mediaType: 'encrypted', type: 'https://didcomm.org/present-proof/3.0/presentation' })).toEqual(['tamper', 'duplicate']);
    expect(kinds({ direction: 'x', mediaType: 'encrypted', type: 'https://didcomm.org/present-proof/3.0/presentation' })).toEqual([]);
  });

  it('refuses unknown faults and probabilities outside [0, 1]', () => {
    expect(() => faultInjector({ rules: [{ fault: 'explode' as never }] })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => faultInjector({ rules: [{ fault: 'drop', probability: 2 }] })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('peeks at the type of plaintext messages only', () => {
    expect(peekMessage(plain('1'))).toEqual({ mediaType: 'plain', type: 'https://didcomm.org/trust-ping/2.0/ping' });
    expect(peekMessage(jwe(1))).toEqual({ mediaType: 'encrypted' });
    expect(peekMessage('{"payload":"x","signatures":[]}')).toEqual({ mediaType: 'signed' });
    expect(peekMessage('nope')).toEqual({ mediaType: 'unknown' });
  });

  it('tampers by changing exactly one base64url character: still JSON, no longer the same', () => {
    const rng = seededRandom(3);
    for (let i = 0; i < 50; i++) {
      const before = jwe(i);
      const { packed, position } = tamper(before, rng);
      expect(() => JSON.parse(packed)).not.toThrow();
      expect(packed).toHaveLength(before.length);
      expect([...packed].filter((c, j) => c !== before[j])).toHaveLength(1);
      expect(packed[position]).not.toBe(before[position]);
    }
  });
});

describe('faultyTransport', () => {
  it('drop: not delivered, the send resolves as if it was; recorded with the type the sender knows', async () => {
    const { got, transport } = receiver();
    const seen: AppliedFault[] = [];
    const t = faultyTransport(transport, { rules: [{ fault: 'drop', type: 'issue-credential/3.0/ack' }], onFault: (f) => void seen.push(f) });
    expect(await t.send('memory://b', jwe(1), { messageType: 'https://didcomm.org/issue-credential/3.0/ack' })).toEqual([]);
    await t.send('memory://b', jwe(2), { messageType: 'https://didcomm.org/issue-credential/3.0/issue-credential' });
    expect(got).toEqual([jwe(2)]);
    expect(seen).toEqual([{ seq: 1, fault: 'drop', rule: 0, direction: 'out', mediaType: 'encrypted', type: 'https://didcomm.org/issue-credential/3.0/ack', endpoint: 'memory://b' }]);
    expect(t.injector.counts()).toMatchObject({ drop: 1, duplicate: 0 });
  });

  it('duplicate: delivered twice; reorder: delivered after the next message; tamper: one character changed', async () => {
    const { got, transport } = receiver();
    const t = faultyTransport(transport, { rules: [{ fault: 'duplicate', nth: 1 }, { fault: 'reorder', nth: 2 }, { fault: 'tamper', nth: 4 }] });
    await t.send('memory://b', plain('a'));
    await t.send('memory://b', plain('b'));
    await t.send('memory://b', plain('c'));
    expect(got).toEqual([plain('a'), plain('a'), plain('c'), plain('b')]);
    await t.send('memory://b', plain('d'));
    expect(got).toHaveLength(5);
    expect(got[4]).not.toBe(plain('d'));
    expect(JSON.parse(got[4]).body).toEqual({});
  });

  it('reorder with nothing after it: the held message goes out after the hold', async () => {
    const { got, transport } = receiver();
    let release!: () => void;
    const t = faultyTransport(transport, { rules: [{ fault: 'reorder' }] }, { sleep: () => new Promise<void>((r) => (release = r)) });
    await t.send('memory://b', plain('a'));
    expect(got).toEqual([]);
    release();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual([plain('a')]);
  });

  it('delay waits the rule\'s time plus seeded jitter through the injected sleep', async () => {
    const { got, transport } = receiver();
    const slept: number[] = [];
    const t = faultyTransport(transport, { seed: 9, rules: [{ fault: 'delay', delayMs: 100, jitterMs: 50 }] }, { sleep: async (ms) => void slept.push(ms) });
    await t.send('memory://b', plain('a'));
    await t.send('memory://b', plain('b'));
    expect(got).toHaveLength(2);
    expect(slept.every((ms) => ms >= 100 && ms <= 150)).toBe(true);
    expect(t.injector.applied.map((f) => f.detail?.ms)).toEqual(slept);
  });

  it('fail503 throws transport_retry_later; disconnect throws transport_unreachable and drops the socket', async () => {
    const { got, transport } = receiver();
    const dropped: string[] = [];
    const withSocket = Object.assign(transport, { disconnect: (e: string) => void dropped.push(e) });
    const t = faultyTransport(withSocket, { rules: [{ fault: 'fail503', nth: 1, retryAfterSeconds: 7 }, { fault: 'disconnect', nth: 2 }] });
    await expect(t.send('memory://b', plain('a'))).rejects.toMatchObject({ code: 'transport_retry_later', details: { status: 503, retryAfterSeconds: 7 } });
    await expect(t.send('memory://b', plain('b'))).rejects.toMatchObject({ code: 'transport_unreachable' });
    expect(dropped).toEqual(['memory://b']);
    expect(got).toEqual([]);
  });

  it('applies drop and duplicate to return-routed replies (the in stream, labelled)', async () => {
    const { transport } = receiver((p) => plain(`re-${JSON.parse(p).id}`, 'https://didcomm.org/trust-ping/2.0/ping-response'));
    const t = faultyTransport(transport, { rules: [{ fault: 'drop', direction: 'to-wallet', nth: 1 }, { fault: 'duplicate', direction: 'to-wallet', nth: 2 }] }, { labels: { out: 'to-service', in: 'to-wallet' } });
    expect(await t.send('memory://b', plain('a'))).toEqual([]);
    expect(await t.send('memory://b', plain('b'))).toEqual([plain('re-b', 'https://didcomm.org/trust-ping/2.0/ping-response'), plain('re-b', 'https://didcomm.org/trust-ping/2.0/ping-response')]);
    expect(t.injector.applied.map((f) => [f.fault, f.direction])).toEqual([['drop', 'to-wallet'], ['duplicate', 'to-wallet']]);
  });

  it('faultyInbound drops, duplicates and tampers pushed messages', async () => {
    const got: string[] = [];
    const inbound = faultyInbound(async (p) => void got.push(p), { rules: [{ fault: 'drop', nth: 1 }, { fault: 'duplicate', nth: 2 }] });
    await inbound(plain('a'), { transport: 'ws' });
    await inbound(plain('b'), { transport: 'ws' });
    expect(got).toEqual([plain('b'), plain('b')]);
  });
});
