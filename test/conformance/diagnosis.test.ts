// `message check` that diagnoses (harness/check.ts checkMessageText, shared with the harness): every
// rule of a malformed message is listed, and with the recipient's keys the deviant forms agents are
// known to send are tried, so the check says what it found, each finding naming its rule, and judges
// the message inside. The deviant messages are built here (test/didcomm/jwe-forge.ts): an authcrypt
// as Veramo 7 packs it (ECDH-1PU with the draft-03 KDF, no tag in it; A256GCM;
// skid but no apu/apv) and its variants one fault at a time.
import { createPrivateKey, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { b64uEncode, sha256 } from '../../src/encoding.js';
import { checkMessageText } from '../../src/harness/check.js';
import { publicJwk, privateJwk } from '../../src/keys.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { contextFor, makeParty, mapResolver } from '../didcomm/envelope-fixtures.js';
import { forgeJwe, type ForgeOptions } from '../didcomm/jwe-forge.js';

const alice = makeParty('alice');
const bob = makeParty('bob');
const resolve = mapResolver([alice.doc, bob.doc]);
const bobCtx = contextFor(bob, resolve);
const ping = { id: 'ping-1', type: 'https://didcomm.org/trust-ping/2.0/ping', from: alice.did, to: [bob.did], body: { response_requested: true } };
const toBob = [{ kid: `${bob.did}#key-2`, publicJwk: publicJwk(bob.agreement) as unknown as Record<string, string> }];
const apvOf = (kids: string[]) => b64uEncode(sha256([...kids].sort().join('.')));
const skid = `${alice.did}#key-2`;

/** An authcrypt from alice to bob; by default conformant, `o` adds faults. */
function authcrypt(o: { header?: Record<string, unknown>; enc?: ForgeOptions['enc']; kdf?: ForgeOptions['kdf']; plaintext?: object } = {}): string {
  const header = { typ: 'application/didcomm-encrypted+json', alg: 'ECDH-1PU+A256KW', enc: o.enc ?? 'A256CBC-HS512', skid, apu: b64uEncode(skid), apv: apvOf([toBob[0]!.kid]), ...o.header };
  for (const k of Object.keys(header)) if ((header as Record<string, unknown>)[k] === undefined) delete (header as Record<string, unknown>)[k];
  return forgeJwe({ header, curve: 'X25519', recipients: toBob, sender: privateJwk(alice.agreement) as unknown as Record<string, string>, enc: o.enc ?? 'A256CBC-HS512', plaintext: JSON.stringify(o.plaintext ?? ping), kdf: o.kdf });
}

const found = (c: { diagnosis: Array<{ rule: string; finding: string }> }) => c.diagnosis.map((d) => `${d.rule}: ${d.finding}`);
const failed = (c: { results: Array<{ ok: boolean; severity: string; rule: string }> }) => c.results.filter((r) => !r.ok).map((r) => `${r.severity}:${r.rule}`);

describe('a plaintext is judged by its shape, every rule listed', () => {
  it('gives three findings for a plaintext without type, with a string created_time and a string to', async () => {
    const { type: _, ...untyped } = ping;
    const c = await checkMessageText(JSON.stringify({ ...untyped, created_time: '2025-01-01', to: bob.did }), bobCtx);
    expect(c.opened).toBe(true);
    expect(failed(c)).toEqual(['error:plaintext.type', 'error:plaintext.to', 'advice:plaintext.created_time']);
    expect(c.ok).toBe(false);
  });
});

describe('with the recipient keys, what the strict unpack refuses is diagnosed', () => {
  it('a conformant authcrypt opens strictly and has nothing to say', async () => {
    const c = await checkMessageText(authcrypt(), bobCtx);
    expect(c).toMatchObject({ ok: true, opened: true, metadata: { mode: 'authcrypt', encryptedFromKid: skid } });
    expect(c.notOpened).toBeUndefined();
    expect(found(c)).toEqual([]);
    // Opened strictly, with the draft-04 KDF: that rule was judged, and held.
    expect(c.results.find((r) => r.rule === 'envelope.authcrypt-kdf')).toMatchObject({ ok: true });
  });

  it('an authcrypt packed as Veramo does: the draft-03 KDF, A256GCM, no apu/apv, each found and named', async () => {
    const veramoLike = authcrypt({ kdf: 'draft-03', enc: 'A256GCM', header: { apu: undefined, apv: undefined } });
    const c = await checkMessageText(veramoLike, bobCtx);
    expect(found(c)).toEqual([
      'envelope.authcrypt-enc: ECDH-1PU with A256GCM (authcrypt requires the AES-CBC-HMAC family)',
      'envelope.authcrypt-apu: no apu/apv',
      'envelope.authcrypt-kdf: opens only with the draft-03 ECDH-1PU KDF (no tag in the KDF)',
    ]);
    // Opened the lenient way, the message inside is judged like any other.
    expect(c).toMatchObject({ ok: false, opened: true, message: { id: 'ping-1' }, metadata: { mode: 'authcrypt', encryptedFromKid: skid } });
    expect(c.notOpened).toMatch(/^the strict unpack refused it \(.*\); opened leniently$/);
    expect(failed(c)).toEqual(expect.arrayContaining(['error:envelope.authcrypt-enc', 'error:envelope.authcrypt-apu', 'error:envelope.jwe-apv', 'error:envelope.authcrypt-kdf']));
    expect(c.results.find((r) => r.rule === 'envelope.from-matches-sender')?.ok).toBe(true);
    expect(c.results.find((r) => r.rule === 'trust-ping.response_requested')?.ok).toBe(true);
  });

  it('each deviation alone is found alone', async () => {
    expect(found(await checkMessageText(authcrypt({ kdf: 'draft-03' }), bobCtx))).toEqual(['envelope.authcrypt-kdf: opens only with the draft-03 ECDH-1PU KDF (no tag in the KDF)']);
    const gcm = await checkMessageText(authcrypt({ enc: 'A256GCM' }), bobCtx);
    expect(found(gcm)).toEqual(['envelope.authcrypt-enc: ECDH-1PU with A256GCM (authcrypt requires the AES-CBC-HMAC family)']);
    expect(failed(gcm)).toEqual(['error:envelope.authcrypt-enc']);
    const noApv = await checkMessageText(authcrypt({ header: { apv: undefined } }), bobCtx);
    expect(found(noApv)).toEqual(['envelope.jwe-apv: no apv']);
    expect(noApv.opened).toBe(true);
  });

  it('without keys, what the header shows is found; the KDF cannot be judged', async () => {
    const c = await checkMessageText(authcrypt({ kdf: 'draft-03', enc: 'A256GCM', header: { apu: undefined, apv: undefined } }), bobCtx, { canDecrypt: false });
    expect(c.opened).toBe(false);
    expect(found(c)).toEqual(['envelope.authcrypt-enc: ECDH-1PU with A256GCM (authcrypt requires the AES-CBC-HMAC family)', 'envelope.authcrypt-apu: no apu/apv']);
  });

  it('says why when nothing opens it', async () => {
    const carol = makeParty('carol');
    const c = await checkMessageText(authcrypt(), contextFor(carol, resolve));
    expect(c.opened).toBe(false);
    expect(c.notOpened).toMatch(/no key is held for any recipient/);
  });

  it('tells JSON nested too deeply to read from text that is not JSON', async () => {
    const deep = await checkMessageText('['.repeat(10_000) + ']'.repeat(10_000), bobCtx);
    expect(deep.results).toEqual([expect.objectContaining({ rule: 'envelope.json', ok: false, detail: 'the message is not read: JSON may nest at most 64 levels deep' })]);
    const junk = await checkMessageText('{oops', bobCtx);
    expect(junk.results).toEqual([expect.objectContaining({ rule: 'envelope.json', ok: false, detail: 'the message is not JSON' })]);
  });
});

describe('a message JSON-encoded twice (a JSON string holding it, as Veramo 7 answers a return route)', () => {
  it('breaks envelope.shape, saying what the string holds, and what it holds is opened and judged too', async () => {
    const veramoLike = authcrypt({ kdf: 'draft-03', enc: 'A256GCM', header: { apu: undefined, apv: undefined } });
    const c = await checkMessageText(JSON.stringify(veramoLike), bobCtx);
    expect(found(c)[0]).toBe('envelope.shape: a JSON string holding a JWE: the message is JSON-encoded twice');
    expect(c).toMatchObject({ ok: false, opened: true, message: { id: 'ping-1' }, metadata: { mode: 'authcrypt' } });
    expect(failed(c)).toEqual(expect.arrayContaining(['error:envelope.shape', 'error:envelope.authcrypt-enc', 'error:envelope.authcrypt-apu', 'error:envelope.jwe-apv', 'error:envelope.authcrypt-kdf']));
  });

  it('a conformant message inside breaks envelope.shape alone; a string that holds no message is only not an object', async () => {
    const c = await checkMessageText(JSON.stringify(JSON.stringify(ping)), bobCtx);
    expect(failed(c)).toEqual(['error:envelope.shape']);
    expect(c).toMatchObject({ opened: true, message: { id: 'ping-1' } });
    expect(failed(await checkMessageText(JSON.stringify('hello'), bobCtx))).toEqual(['error:envelope.shape']);
    expect(found(await checkMessageText(JSON.stringify('hello'), bobCtx))).toEqual([]);
  });
});

describe('an anoncrypt without apv is opened, and breaks the MUST', () => {
  it('with or without keys', async () => {
    const header = { typ: 'application/didcomm-encrypted+json', alg: 'ECDH-ES+A256KW', enc: 'A256GCM' };
    const jwe = forgeJwe({ header, curve: 'X25519', recipients: toBob, enc: 'A256GCM', plaintext: JSON.stringify({ ...ping, from: undefined }) });
    const opened = await checkMessageText(jwe, bobCtx);
    expect(opened).toMatchObject({ ok: false, opened: true, metadata: { mode: 'anoncrypt' } });
    expect(opened.notOpened).toBeUndefined();
    expect(failed(opened)).toEqual(['error:envelope.anoncrypt-no-apv']);
    expect(found(opened)).toEqual(['envelope.anoncrypt-no-apv: anoncrypt without apv']);
    const sealed = await checkMessageText(jwe, bobCtx, { canDecrypt: false });
    expect(failed(sealed)).toEqual(['error:envelope.anoncrypt-no-apv']);
  });
});

describe('a signed message', () => {
  it('with kid only in the protected header is read, and that is said', async () => {
    // Signed by hand: idsync itself writes kid in the unprotected header, as the spec's vectors do.
    const protectedB64 = b64uEncode(JSON.stringify({ typ: 'application/didcomm-signed+json', alg: 'EdDSA', kid: `${alice.did}#key-1` }));
    const payload = b64uEncode(JSON.stringify(ping));
    const key = createPrivateKey({ key: privateJwk(alice.signing) as unknown as import('node:crypto').JsonWebKey, format: 'jwk' });
    const signature = sign(null, Buffer.from(`${protectedB64}.${payload}`), key).toString('base64url');
    const packed = JSON.stringify({ payload, signatures: [{ protected: protectedB64, signature }] });
    const c = await checkMessageText(packed, bobCtx);
    expect(c).toMatchObject({ ok: true, opened: true, metadata: { mode: 'signed' } });
    expect(found(c)).toEqual(['envelope.jws-kid-protected: kid only in the protected header']);
  });

  it('whose signer does not resolve is judged by its payload', async () => {
    const { packed } = await pack(ping, { mode: 'signed', signBy: `${alice.did}#key-1` }, contextFor(alice, resolve));
    const c = await checkMessageText(packed, contextFor(bob, mapResolver([bob.doc])));
    expect(c).toMatchObject({ ok: true, opened: true, message: { id: 'ping-1' } });
    expect(c.notOpened).toMatch(/^the signature was not verified/);
  });
});

describe('the strict profile', () => {
  it('counts SHOULDs and advice against ok', async () => {
    const noBody = JSON.stringify({ id: 'x', type: ping.type });
    expect((await checkMessageText(noBody, bobCtx)).ok).toBe(true);
    expect((await checkMessageText(noBody, bobCtx, { profile: 'strict' })).ok).toBe(false);
  });
});

describe('what the strict unpack enforces while it opens is judged, and held, on a clean open', () => {
  const held = (c: { results: Array<{ ok: boolean; rule: string }> }, rule: string) => c.results.find((r) => r.rule === rule);

  it('an authcrypt: the draft-04 KDF and a sender key from the keyAgreement of the sender', async () => {
    const c = await checkMessageText(authcrypt(), bobCtx);
    expect(held(c, 'envelope.authcrypt-kdf')).toMatchObject({ ok: true });
    expect(held(c, 'envelope.jwe-sender-key')).toMatchObject({ ok: true });
    expect(held(c, 'envelope.anoncrypt-apv-mismatch')).toBeUndefined();
  });

  it('an anoncrypt whose apv is the digest of its recipient kids; one whose apv is not breaks the rule instead', async () => {
    const header = { typ: 'application/didcomm-encrypted+json', alg: 'ECDH-ES+A256KW', enc: 'A256GCM' };
    const plaintext = JSON.stringify({ ...ping, from: undefined });
    const good = await checkMessageText(forgeJwe({ header: { ...header, apv: apvOf([toBob[0]!.kid]) }, curve: 'X25519', recipients: toBob, enc: 'A256GCM', plaintext }), bobCtx);
    expect(good).toMatchObject({ ok: true, opened: true, metadata: { mode: 'anoncrypt' } });
    expect(held(good, 'envelope.anoncrypt-apv-mismatch')).toMatchObject({ ok: true });
    expect(held(good, 'envelope.jwe-sender-key')).toBeUndefined();
    const other = await checkMessageText(forgeJwe({ header: { ...header, apv: apvOf(['did:example:someone-else#key-1']) }, curve: 'X25519', recipients: toBob, enc: 'A256GCM', plaintext }), bobCtx);
    expect(other.results.filter((r) => r.rule === 'envelope.anoncrypt-apv-mismatch').map((r) => r.ok)).toEqual([false]);
  });
});
