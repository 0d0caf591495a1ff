// idsync's harness counterpart against a Veramo 7 agent behind its own MessagingRouter
// (veramo-agent.ts): what reaches it, what it answers, and in which form. Each refusal asserted
// here is Veramo's, with its cause; docs/conformance.md quotes the v2.1 sentence each one breaks.
import { sign as edSign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { resolvePeerDid } from '../../src/did/peer.js';
import { b64uEncode } from '../../src/encoding.js';
import { startCounterpart, type Counterpart, type Received } from '../../src/harness/counterpart.js';
import { fromMultikey, publicJwk } from '../../src/keys.js';
import { openEcdh1pu, protectedHeader, unwrapEcdh1pu } from './ecdh-1pu.js';
import { startVeramoAgent, type VeramoHandle } from './veramo-agent.js';

const PING = 'https://didcomm.org/trust-ping/2.0/ping';
const PING_RESPONSE = 'https://didcomm.org/trust-ping/2.0/ping-response';

let veramo: VeramoHandle;
let cp: Counterpart;
let opened: (r: Received) => Record<string, unknown>;

beforeAll(async () => {
  // MessagingRouter console.errors every refusal; the tests read its status and body instead.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  veramo = await startVeramoAgent();
  cp = await startCounterpart({ target: veramo.did, resolve: documentResolver(createResolver({})), postTimeoutMs: 5000 });
  const secret = (await cp.ctx.secrets.get(`${cp.did}#key-1`))!;
  const senderKey = resolvePeerDid(veramo.did).verificationMethod!.find((m) => m.id === `${veramo.did}#key-1`)!;
  const senderX = publicJwk(fromMultikey(senderKey.publicKeyMultibase!)).x;
  // What Veramo sends opens with the draft-03 KDF (ecdh-1pu.ts); the tests read its plaintext so.
  opened = (r) => JSON.parse(openEcdh1pu(r.packed, { kid: `${cp.did}#key-1`, privateJwk: secret.privateKeyJwk }, senderX, 'draft-03'));
});
afterAll(async () => {
  await cp?.close();
  await veramo?.close();
});

/** The ping-response Veramo POSTs to the harness for the ping `id` (every answer of Veramo's is a new POST). */
const responseTo = (id: string) => cp.waitFor((r) => r.via === 'endpoint' && opened(r).thid === id, 5000);

/** Sends an anoncrypted ping and waits for its answer: once it is in, Veramo is done with what came before. */
async function barrier(): Promise<void> {
  const ping = cp.draft(PING, { response_requested: true });
  await cp.send(ping, { mode: 'anoncrypt' });
  expect(await responseTo(ping.id)).toBeDefined();
}

describe('Veramo 7 behind its MessagingRouter', () => {
  it('takes an anoncrypted ping (HTTP 200 {id}) and POSTs a ping-response in authcrypt that only the draft-03 ECDH-1PU KDF opens', async () => {
    const ping = cp.draft(PING, { response_requested: true });
    const sent = await cp.send(ping, { mode: 'anoncrypt' });
    expect(sent.status).toBe(200);
    expect(veramo.answers.at(-1)).toEqual({ status: 200, body: JSON.stringify({ id: ping.id }) });
    const answer = (await responseTo(ping.id))!;
    // Veramo found the harness's key agreement key under the id idsync gives it (E first, #key-1).
    const jwe = JSON.parse(answer.packed);
    expect(jwe.recipients.map((r: { header: { kid: string } }) => r.header.kid)).toEqual([`${cp.did}#key-1`]);
    // ECDH-1PU with A256GCM, and neither apu nor apv in the protected header.
    const header = protectedHeader(answer.packed);
    expect(header).toMatchObject({ alg: 'ECDH-1PU+A256KW', enc: 'A256GCM', skid: `${veramo.did}#key-1`, typ: 'application/didcomm-encrypted+json' });
    expect(header).not.toHaveProperty('apu');
    expect(header).not.toHaveProperty('apv');
    expect(opened(answer)).toMatchObject({ type: PING_RESPONSE, id: `${ping.id}-response`, thid: ping.id, from: veramo.did, to: [cp.did] });
    // The draft-04 KDF that DIDComm v2.1 names (with the content tag) does not unwrap its key.
    const secret = (await cp.ctx.secrets.get(`${cp.did}#key-1`))!;
    const senderX = publicJwk(fromMultikey(resolvePeerDid(veramo.did).verificationMethod![0].publicKeyMultibase!)).x;
    expect(() => openEcdh1pu(answer.packed, { kid: `${cp.did}#key-1`, privateJwk: secret.privateKeyJwk }, senderX, 'draft-04')).toThrow();
  });

  it('refuses an authcrypted ping (ECDH-1PU draft-04, A256CBC-HS512: the algorithms v2.1 requires) with HTTP 400 "Unsupported message type" and never answers it', async () => {
    let packed = '';
    const ping = cp.draft(PING, { response_requested: true });
    const sent = await cp.send(ping, { mode: 'authcrypt', mangle: (p) => (packed = p) });
    expect(sent.status).toBe(400);
    expect(veramo.answers.at(-1)).toEqual({ status: 400, body: 'Unsupported message type' });
    expect(protectedHeader(packed)).toMatchObject({ alg: 'ECDH-1PU+A256KW', enc: 'A256CBC-HS512' });
    // The cause, from Veramo's own unpacker: no local key opens it (its KEK is derived without the tag).
    await expect(veramo.agent.unpackDIDCommMessage({ message: packed })).rejects.toThrow('unable to decrypt DIDComm message with any of the locally managed keys');
    await barrier();
    expect(cp.received.filter((r) => r.via === 'endpoint' && opened(r).thid === ping.id)).toEqual([]);
  });

  it('refuses a signed ping whose kid is in the unprotected header, as the spec\'s own Appendix C.2 writes it, with HTTP 400; the same ping with kid protected is answered', async () => {
    let packed = '';
    const ping = cp.draft(PING, { response_requested: true });
    const sent = await cp.send(ping, { mode: 'signed', mangle: (p) => (packed = p) });
    expect(sent.status).toBe(400);
    expect(JSON.parse(packed).signatures[0].header.kid).toBe(`${cp.did}#key-2`);
    await expect(veramo.agent.unpackDIDCommMessage({ message: packed })).rejects.toThrow('invalid_jws: sender is not a DID or does not match the `kid`');

    // The same message, flattened, with kid moved into the protected header: Veramo verifies and answers it.
    const again = cp.draft(PING, { response_requested: true });
    const key = cp.signingKey();
    const protectedB64 = b64uEncode(JSON.stringify({ typ: 'application/didcomm-signed+json', alg: 'EdDSA', kid: key.kid }));
    const payload = b64uEncode(JSON.stringify(again));
    const jwk = { kty: 'OKP', crv: 'Ed25519', d: b64uEncode(key.privateKey), x: publicJwk(fromMultikey(resolvePeerDid(cp.did).verificationMethod![1].publicKeyMultibase!)).x };
    const signature = b64uEncode(edSign(null, Buffer.from(`${protectedB64}.${payload}`), { key: jwk, format: 'jwk' }));
    const posted = await cp.post(JSON.stringify({ protected: protectedB64, payload, signature }), 'application/didcomm-signed+json', { type: PING, id: again.id, mode: 'signed' });
    expect(posted.status).toBe(200);
    expect(await responseTo(again.id)).toBeDefined();
  });

  it('answers a ping with response_requested false all the same (TrustPingMessageHandler never reads it)', async () => {
    const ping = cp.draft(PING, { response_requested: false });
    expect((await cp.send(ping, { mode: 'anoncrypt' })).status).toBe(200);
    expect(await responseTo(ping.id)).toBeDefined();
  });

  it('puts a return-routed answer into the 200 body as a JSON string holding the JWE, and POSTs it as well; idsync reads that body as a message JSON-encoded twice', async () => {
    const ping = cp.draft(PING, { response_requested: true }, { return_route: 'all' });
    const sent = await cp.send(ping, { mode: 'anoncrypt' });
    expect(sent.status).toBe(200);
    const body = veramo.answers.at(-1)!.body;
    const inner = JSON.parse(body);
    expect(typeof inner).toBe('string');
    expect(JSON.parse(inner)).toHaveProperty('ciphertext');
    expect(await responseTo(ping.id)).toBeDefined();
    // The harness reads it (a 2xx with a DIDComm media type, to a requested return route) as a
    // message JSON-encoded twice: envelope.shape broken, and what it holds opened and judged too.
    const [routed] = sent.received;
    expect(routed!.entry).toMatchObject({ via: 'return-route', mode: 'authcrypt', type: PING_RESPONSE, thid: ping.id });
    expect(routed!.entry.findings![0]).toEqual({ rule: 'envelope.shape', severity: 'error', detail: 'a JSON string holding a JWE: the message is JSON-encoded twice' });
    expect(routed!.entry.broken).toEqual(['envelope.shape', 'envelope.authcrypt-enc', 'envelope.authcrypt-apu', 'envelope.jwe-apv', 'envelope.authcrypt-kdf']);
  });

  it('packs anoncrypt without apv, and authcrypt set to A256CBC-HS512 still without apu/apv and with the draft-03 KDF', async () => {
    const message = { type: PING, id: 'library-level', from: veramo.did, to: [cp.did], body: {} };
    const anon = await veramo.agent.packDIDCommMessage({ message, packing: 'anoncrypt' });
    expect(protectedHeader(anon.message)).toMatchObject({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM' });
    expect(protectedHeader(anon.message)).not.toHaveProperty('apv');
    const auth = await veramo.agent.packDIDCommMessage({ message, packing: 'authcrypt', options: { enc: 'A256CBC-HS512' } });
    expect(protectedHeader(auth.message)).toMatchObject({ alg: 'ECDH-1PU+A256KW', enc: 'A256CBC-HS512' });
    expect(Object.keys(protectedHeader(auth.message))).not.toEqual(expect.arrayContaining(['apu']));
    const secret = (await cp.ctx.secrets.get(`${cp.did}#key-1`))!;
    const senderX = publicJwk(fromMultikey(resolvePeerDid(veramo.did).verificationMethod![0].publicKeyMultibase!)).x;
    const recipient = { kid: `${cp.did}#key-1`, privateJwk: secret.privateKeyJwk };
    expect(unwrapEcdh1pu(auth.message, recipient, senderX, 'draft-03')).toHaveLength(64);
    expect(() => unwrapEcdh1pu(auth.message, recipient, senderX, 'draft-04')).toThrow();
  });
});
