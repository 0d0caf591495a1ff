// The agent's message log options (docs/service.md "Limits"): retention (messageLog.maxAgeMs,
// maxEntries) and the size above which even an authenticated message is logged as a digest
// (logMessageMaxBytes). Messages without an authenticated sender are always digests.
import { afterEach, describe, expect, it } from 'vitest';
import { messageLog } from '../../../src/store/messages.js';
import { memoryHarness, type MemoryHarness } from './harness.js';

const PING = 'https://didcomm.org/trust-ping/2.0/ping';

let m: MemoryHarness | undefined;
afterEach(async () => {
  await m?.close();
  m = undefined;
});

const pings = async (h: MemoryHarness) => (await messageLog(h.store, h.clock).list({})).filter((r) => r.direction === 'in' && r.type === PING);

describe('the service agent\'s message log', () => {
  it('keeps the plaintext of an authenticated message by default and a digest of an unauthenticated one', async () => {
    m = await memoryHarness();
    const wallet = m.holder();
    await wallet.router.send({ type: PING, to: [m.service.deps.serviceDid], from: wallet.from(), body: { response_requested: false } });
    const anonymous = JSON.stringify({ id: 'anon-1', typ: 'application/didcomm-plain+json', type: PING, body: { response_requested: false, secret: 'x' } });
    await m.agent.receive(anonymous, { transport: 'http' });
    const [authenticated, plain] = await pings(m);
    expect(authenticated.digest).toBeUndefined();
    expect(authenticated.message.body).toEqual({ response_requested: false });
    expect(plain.digest).toMatchObject({ size: Buffer.byteLength(anonymous), hash: expect.stringMatching(/^sha256:/) });
    expect(plain.message.body).toEqual({});
  });

  it('logs larger authenticated messages as digests with logMessageMaxBytes, and applies messageLog retention', async () => {
    m = await memoryHarness();
    const agent = await m.restart({ logMessageMaxBytes: 100, messageLog: { maxAgeMs: 60_000, pruneEvery: 1 } });
    const wallet = m.holder();
    const ping = () => wallet.router.send({ type: PING, to: [m!.service.deps.serviceDid], from: wallet.from(), body: { response_requested: false } });
    await ping();
    await agent.idle();
    const [first] = await pings(m);
    expect(first.digest?.size).toBeGreaterThan(100);
    expect(first.message.body).toEqual({});

    m.clock.advance(60_001);
    await ping();
    await agent.idle();
    // The first one is past maxAgeMs: deleted when the next record was written.
    const left = await pings(m);
    expect(left).toHaveLength(1);
    expect(left[0].id).not.toBe(first.id);
  });
});
