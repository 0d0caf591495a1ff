// idsync's harness counterpart against an Identus 7 responder on the SDK's Mercury
// (identus-agent.ts): every envelope mode reaches it, its answers are what DIDComm v2.1 asks for,
// and idsync's checks find nothing broken in them (identus-verdicts.test.ts has the verdict of every case).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf } from '../../src/conformance/types.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { b64uEncode, sha256 } from '../../src/encoding.js';
import { startCounterpart, type Counterpart } from '../../src/harness/counterpart.js';
import { protectedHeader } from './ecdh-1pu.js';
import { PING, PING_RESPONSE, startIdentusAgent, type IdentusHandle } from './identus-agent.js';

let identus: IdentusHandle;
let cp: Counterpart;

beforeAll(async () => {
  identus = await startIdentusAgent();
  cp = await startCounterpart({ target: identus.did, resolve: documentResolver(createResolver({})), postTimeoutMs: 5000 });
});
afterAll(async () => {
  await cp?.close();
  await identus?.close();
});

const answersTo = (id: string) => cp.received.filter((r) => r.message?.thid === id);
const answerTo = (id: string) => cp.waitFor((r) => r.message?.thid === id, 5000);

describe('an Identus 7 responder on Mercury', () => {
  it('answers an authcrypted ping with a ping-response threaded to it, in authcrypt with the algorithms and headers v2.1 requires, and idsync finds nothing broken', async () => {
    const ping = cp.draft(PING, { response_requested: true });
    const sent = await cp.send(ping, { mode: 'authcrypt' });
    expect(sent.status).toBe(202);
    const answer = (await answerTo(ping.id))!;
    expect(answer.message).toMatchObject({ type: PING_RESPONSE, from: identus.did, to: [cp.did] });
    expect(answer.check.metadata?.mode).toBe('authcrypt');
    expect(errorsOf(answer.check.results)).toEqual([]);
    // v2.1 §ECDH-1PU key wrapping: apu is base64url(skid), apv the SHA-256 of the sorted recipient kids.
    const header = protectedHeader(answer.packed);
    const kids = (JSON.parse(answer.packed).recipients as { header: { kid: string } }[]).map((r) => r.header.kid);
    expect(kids).toEqual([`${cp.did}#key-1`]);
    expect(header).toMatchObject({ alg: 'ECDH-1PU+A256KW', enc: 'A256CBC-HS512', skid: `${identus.did}#key-1`, apu: b64uEncode(`${identus.did}#key-1`), apv: b64uEncode(sha256([...kids].sort().join('.'))) });
  });

  it.each(['anoncrypt', 'signed', 'plaintext'] as const)('answers a %s ping too, in authcrypt', async (mode) => {
    const ping = cp.draft(PING, { response_requested: true });
    expect((await cp.send(ping, { mode })).status).toBe(202);
    const answer = (await answerTo(ping.id))!;
    expect(answer.check.metadata?.mode).toBe('authcrypt');
    expect(errorsOf(answer.check.results)).toEqual([]);
  });

  it('answers the same ping sent twice, each time under a new id: it keeps no record of ids received, and v2.1 asks for none', async () => {
    const ping = cp.draft(PING, { response_requested: true });
    await cp.send(ping, { mode: 'authcrypt' });
    await answerTo(ping.id);
    await cp.send(ping, { mode: 'authcrypt' });
    await cp.waitFor(() => answersTo(ping.id).length === 2, 5000);
    const ids = answersTo(ping.id).map((r) => r.message!.id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });

  it('answers a message it cannot open with HTTP 400 and Mercury\'s error text', async () => {
    const ping = cp.draft(PING, { response_requested: true });
    const sent = await cp.send(ping, { mode: 'authcrypt', mangle: (p) => p.replace(/"ciphertext":"(.)/, (_, c: string) => `"ciphertext":"${c === 'A' ? 'B' : 'A'}`) });
    expect(sent.status).toBe(400);
    expect(identus.answers.at(-1)!.body).not.toBe('');
    expect(identus.received.some((m) => m.id === ping.id)).toBe(false);
  });
});
