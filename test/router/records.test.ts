// records.ts: the message log keeps a plaintext only for an authenticated sender and a
// message of bounded size; anything else (undecryptable, plaintext, anoncrypt, too large) is
// kept as a digest, so input from anyone cannot fill the store.
import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { createRouter, type RouterOptions } from '../../src/router/router.js';
import { DEFAULT_LOG_MESSAGE_MAX_BYTES } from '../../src/router/records.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { b64uEncode } from '../../src/encoding.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import { DIGEST_HEAD_CHARS, MESSAGES_COLLECTION, messageDigest, messageLog, type LoggedMessage } from '../../src/store/messages.js';
import { openStore, type Store } from '../../src/store/store.js';
import { stubContext, stubJwe, stubPack, stubUnpack } from '../protocols/stub-envelope.js';

const ALICE = 'did:example:alice';
const BOB = 'did:example:bob';
const MIB = 1024 * 1024;
const SECRET = 'body-content-that-must-not-be-stored';

async function setup(extra: Partial<RouterOptions> = {}) {
  const store = await openStore();
  const clock = new ManualClock();
  const log = messageLog(store, clock);
  const router = createRouter({
    envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock, ids: sequentialIds('b'), myDids: [BOB], send: async () => {}, log, ...extra,
  }).use(...basicProtocols());
  return { store, log, router };
}

/** Bytes the store holds for the message records. */
async function storedBytes(store: Store): Promise<number> {
  const all = await store.collection(MESSAGES_COLLECTION).list();
  return all.reduce((n, e) => n + JSON.stringify(e).length, 0);
}

function ping(extra: Partial<PlainMessage> = {}): PlainMessage {
  return { id: 'p-1', type: TRUST_PING.ping, from: ALICE, to: [BOB], body: { response_requested: false }, ...extra };
}

describe('router message records', () => {
  it('logs ~1 MiB of undecryptable garbage as a digest of a few hundred bytes', async () => {
    const { store, log, router } = await setup();
    const garbage = JSON.stringify({ protected: 'e30', recipients: [], iv: '', tag: '', ciphertext: 'broken', junk: 'A'.repeat(MIB) });
    expect((await router.receive(garbage)).status).toBe('undecryptable');
    const [rec] = await log.list();
    expect(rec).toMatchObject({ result: 'undecryptable', size: Buffer.byteLength(garbage), message: {}, digest: messageDigest(garbage) });
    expect(rec.digest!.head).toHaveLength(DIGEST_HEAD_CHARS);
    expect(rec.digest!.hash).toMatch(/^sha256:[A-Za-z0-9_-]{22}$/);
    expect(await storedBytes(store)).toBeLessThan(4096);
    await store.close();
  });

  it('caps conformance details that quote what was sent', async () => {
    const { store, log, router } = await setup();
    const header = b64uEncode(JSON.stringify({ typ: 'x'.repeat(200_000), alg: 'ECDH-ES+A256KW' }));
    const packed = JSON.stringify({ protected: header, recipients: [], iv: '', tag: '', ciphertext: 'broken' });
    const result = await router.receive(packed);
    expect(result.conformance.some((c) => (c.detail?.length ?? 0) > 100_000)).toBe(true);
    const [rec] = await log.list();
    expect(Math.max(...rec.conformance!.map((c) => c.detail?.length ?? 0))).toBeLessThanOrEqual(501);
    expect(await storedBytes(store)).toBeLessThan(8192);
    await store.close();
  });

  it('logs an unauthenticated plaintext message without its body, headers capped', async () => {
    const { store, log, router } = await setup();
    const big = JSON.stringify({ ...ping({ id: 'big', thid: 't'.repeat(100_000) }), body: { response_requested: false, filler: 'z'.repeat(MIB) + SECRET } });
    await router.receive(big);
    const [rec] = await log.list({ direction: 'in' });
    expect(rec).toMatchObject({ id: 'big', type: TRUST_PING.ping, mode: 'plaintext', from: ALICE, to: [BOB], size: Buffer.byteLength(big), result: 'handled' });
    expect(rec.message).toEqual({ id: 'big', type: TRUST_PING.ping, thid: rec.thid, from: ALICE, to: [BOB], body: {} });
    expect(rec.thid!.length).toBeLessThanOrEqual(4097);
    expect(rec.digest).toMatchObject({ size: Buffer.byteLength(big), hash: messageDigest(big).hash });
    expect(rec.digest!.head.length).toBeLessThanOrEqual(DIGEST_HEAD_CHARS);
    // At most the first characters of what arrived are kept: never the body.
    expect(JSON.stringify(await store.collection(MESSAGES_COLLECTION).list()).includes(SECRET)).toBe(false);
    expect(await storedBytes(store)).toBeLessThan(64 * 1024);
    await store.close();
  });

  it('logs an anoncrypted message as a digest too (its sender is not proven)', async () => {
    const { store, log, router } = await setup();
    await router.receive(stubJwe(ping({ body: { response_requested: false, note: SECRET } }), `${BOB}#key-2`));
    const [rec] = await log.list({ direction: 'in' });
    expect(rec).toMatchObject({ mode: 'anoncrypt', id: 'p-1', message: { id: 'p-1', body: {} } });
    expect(rec.digest).toBeDefined();
    expect(JSON.stringify(rec.message)).not.toContain(SECRET);
    await store.close();
  });

  it('logs the plaintext of an authenticated message of bounded size', async () => {
    const { store, log, router } = await setup();
    const message = ping({ body: { response_requested: false, note: 'kept' } });
    await router.receive(stubJwe(message, `${BOB}#key-2`, `${ALICE}#key-2`));
    const [rec] = await log.list({ direction: 'in' });
    expect(rec.message).toEqual(message);
    expect(rec.digest).toBeUndefined();
    await store.close();
  });

  it('logs an authenticated message above logMessageMaxBytes as a digest (default 256 KiB)', async () => {
    expect(DEFAULT_LOG_MESSAGE_MAX_BYTES).toBe(256 * 1024);
    const { store, log, router } = await setup({ logMessageMaxBytes: 1000 });
    const packed = stubJwe(ping({ body: { response_requested: false, note: 'n'.repeat(2000) } }), `${BOB}#key-2`, `${ALICE}#key-2`);
    expect((await router.receive(packed)).status).toBe('handled');
    const [rec] = await log.list({ direction: 'in' });
    expect(rec).toMatchObject({ mode: 'authcrypt', result: 'handled', message: { id: 'p-1', body: {} }, digest: { size: Buffer.byteLength(packed) } });
    await store.close();
  });

  it('logs a message whose id is not a string under a generated id', async () => {
    const { store, log, router } = await setup();
    await router.receive(JSON.stringify({ ...ping(), id: 42 }));
    const [rec]: LoggedMessage[] = await log.list({ direction: 'in' });
    expect(rec.id).toBe('invalid-b-1');
    expect(rec.result).toBe('rejected');
    await store.close();
  });
});
