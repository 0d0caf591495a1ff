// Liberal in what it accepts, strict in what it must refuse. Valid forms other agents send,
// made here by a JOSE library we did not write (jose): a flattened JWS, a JWS whose kid is only
// in the protected header, anoncrypt without apv on every curve, a flattened JWE; the native
// engine reads them and records a note, which the router logs as a conformance result.
// Forbidden ones, built consistently (jwe-forge.ts) so that only the rule can refuse them, fail
// with a coded error naming the rule.
import { FlattenedEncrypt, FlattenedSign, GeneralEncrypt, GeneralSign, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { pack, unpack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { MEDIA_TYPES, type EnvelopeContext, type EnvelopeEngine } from '../../src/didcomm/types.js';
import { isIdsyncError } from '../../src/errors.js';
import { createRouter } from '../../src/router/router.js';
import { mapResolver } from './envelope-fixtures.js';
import { curveParty, jwkPair, type CurveParty } from './envelope-parties.js';
import { apvOf, forgeJwe } from './jwe-forge.js';

const alice = curveParty('alice', { agreement: ['X25519', 'P-256'], signing: ['Ed25519', 'P-256'] });
const bob = curveParty('bob', { agreement: ['X25519', 'X25519', 'P-256'] });
const carol = curveParty('carol');
const dana = curveParty('dana', { agreement: ['X25519', 'P-256', 'P-384', 'P-521'] });
const resolve = mapResolver([alice.doc, bob.doc, carol.doc, dana.doc]);
const ctx = (p: CurveParty, engine: EnvelopeEngine = 'native'): EnvelopeContext => ({ resolve, secrets: memorySecrets(p.secrets), engine });
const jwk = (p: CurveParty, kid: string) => p.secrets.find((s) => s.id === kid)!.privateKeyJwk as unknown as Record<string, string>;
const publicJwk = (p: CurveParty, kid: string) => {
  const { d: _d, kid: _k, ...pub } = jwk(p, kid);
  return pub;
};

const enc = new TextEncoder();
const plaintext = (to: CurveParty, from: CurveParty = alice) =>
  JSON.stringify({ id: `m-${Math.random()}`, typ: MEDIA_TYPES.plaintext, type: 'https://example.com/p/1.0/hello', from: from.did, to: [to.did], body: { hi: 1 } });

async function refusal(p: Promise<unknown>): Promise<{ code: string; rule?: string }> {
  try {
    await p;
  } catch (err) {
    if (!isIdsyncError(err)) throw err;
    return { code: err.code, rule: err.details?.rule as string | undefined };
  }
  throw new Error('expected a refusal');
}

const notes = (md: { notes?: { rule: string }[] }) => (md.notes ?? []).map((n) => n.rule);

describe('valid forms made by another library (jose) are accepted, with a note', () => {
  it('a flattened JWS, EdDSA and ES256', async () => {
    for (const [kid, alg] of [
      [alice.signingKids[0]!, 'EdDSA'],
      [alice.signingKids[1]!, 'ES256'],
    ] as const) {
      const key = await importJWK(jwk(alice, kid), alg);
      const jws = await new FlattenedSign(enc.encode(plaintext(bob))).setProtectedHeader({ typ: MEDIA_TYPES.signed, alg }).setUnprotectedHeader({ kid }).sign(key);
      const { metadata } = await unpack(JSON.stringify(jws), ctx(bob));
      expect(metadata).toMatchObject({ mode: 'signed', signFrom: kid, signAlg: alg });
      expect(notes(metadata)).toEqual(['envelope.jws-flattened']);
      // The reason for a second engine: didcomm-node 0.4.1 refuses this valid form.
      expect(await refusal(unpack(JSON.stringify(jws), ctx(bob, 'didcomm-node')))).toMatchObject({ code: 'didcomm_malformed' });
    }
  });

  it('a general JWS whose kid is only in the protected header', async () => {
    const kid = alice.signingKids[0]!;
    const jws = await new GeneralSign(enc.encode(plaintext(bob)))
      .addSignature(await importJWK(jwk(alice, kid), 'EdDSA'))
      .setProtectedHeader({ typ: MEDIA_TYPES.signed, alg: 'EdDSA', kid })
      .done()
      .sign();
    const { metadata } = await unpack(JSON.stringify(jws), ctx(bob));
    expect(metadata).toMatchObject({ mode: 'signed', signFrom: kid });
    expect(notes(metadata)).toEqual(['envelope.jws-kid-protected']);
    expect(await refusal(unpack(JSON.stringify(jws), ctx(bob, 'didcomm-node')))).toMatchObject({ code: 'didcomm_malformed' });
  });

  it('anoncrypt without apv on X25519, P-256, P-384 and P-521, with A256GCM and A256CBC-HS512', async () => {
    for (const [i, kid] of dana.agreementKids.entries()) {
      for (const contentEnc of ['A256GCM', 'A256CBC-HS512']) {
        const e = new GeneralEncrypt(enc.encode(plaintext(dana))).setProtectedHeader({ typ: MEDIA_TYPES.encrypted, alg: 'ECDH-ES+A256KW', enc: contentEnc });
        e.addRecipient(await importJWK(publicJwk(dana, kid), 'ECDH-ES+A256KW')).setUnprotectedHeader({ kid });
        const jwe = JSON.stringify(await e.encrypt());
        const { message, metadata } = await unpack(jwe, ctx(dana));
        expect(message.body).toEqual({ hi: 1 });
        expect(metadata).toMatchObject({ mode: 'anoncrypt', encryptedToKids: [kid], encAlgAnon: `ECDH-ES+A256KW/${contentEnc}` });
        expect(notes(metadata)).toEqual(i >= 2 ? ['envelope.jwe-curve', 'envelope.anoncrypt-no-apv'] : ['envelope.anoncrypt-no-apv']);
      }
    }
    // didcomm-node 0.4.1 requires apv even for ECDH-ES.
    const e = new GeneralEncrypt(enc.encode(plaintext(dana))).setProtectedHeader({ typ: MEDIA_TYPES.encrypted, alg: 'ECDH-ES+A256KW', enc: 'A256GCM' });
    e.addRecipient(await importJWK(publicJwk(dana, dana.agreementKids[0]!), 'ECDH-ES+A256KW')).setUnprotectedHeader({ kid: dana.agreementKids[0]! });
    expect(await refusal(unpack(JSON.stringify(await e.encrypt()), ctx(dana, 'didcomm-node')))).toMatchObject({ code: 'didcomm_malformed' });
  });

  it('a flattened JWE around a flattened JWS (anoncrypt of a signed message)', async () => {
    const kid = alice.signingKids[0]!;
    const jws = await new FlattenedSign(enc.encode(plaintext(bob))).setProtectedHeader({ typ: MEDIA_TYPES.signed, alg: 'EdDSA' }).setUnprotectedHeader({ kid }).sign(await importJWK(jwk(alice, kid), 'EdDSA'));
    const to = bob.agreementKids[0]!;
    const jwe = await new FlattenedEncrypt(enc.encode(JSON.stringify(jws)))
      .setProtectedHeader({ typ: MEDIA_TYPES.encrypted, alg: 'ECDH-ES+A256KW', enc: 'A256GCM' })
      .setUnprotectedHeader({ kid: to })
      .setKeyManagementParameters({ apv: apvOf([to]) })
      .encrypt(await importJWK(publicJwk(bob, to), 'ECDH-ES+A256KW'));
    const { metadata } = await unpack(JSON.stringify(jwe), ctx(bob));
    expect(metadata).toMatchObject({ mode: 'anoncrypt-signed', signFrom: kid, encryptedToKids: [to] });
    expect(notes(metadata)).toEqual(['envelope.jwe-flattened', 'envelope.jws-flattened']);
  });

  it('authcrypt without skid, the sender read from apu', async () => {
    const skid = alice.agreementKids[0]!;
    const kids = bob.agreementKids.slice(0, 2);
    const jwe = forgeJwe({
      header: { typ: MEDIA_TYPES.encrypted, alg: 'ECDH-1PU+A256KW', enc: 'A256CBC-HS512', apu: Buffer.from(skid).toString('base64url'), apv: apvOf(kids).toString('base64url') },
      curve: 'X25519',
      recipients: kids.map((kid) => ({ kid, publicJwk: publicJwk(bob, kid) })),
      sender: jwk(alice, skid),
      enc: 'A256CBC-HS512',
      plaintext: plaintext(bob),
    });
    const { metadata } = await unpack(jwe, ctx(bob));
    expect(metadata).toMatchObject({ mode: 'authcrypt', encryptedFromKid: skid });
    expect(notes(metadata)).toEqual(['envelope.authcrypt-skid-from-apu']);
  });

  it('the router logs each note as a passed conformance result with its detail', async () => {
    const kid = alice.signingKids[0]!;
    const jws = await new FlattenedSign(enc.encode(plaintext(bob))).setProtectedHeader({ typ: MEDIA_TYPES.signed, alg: 'EdDSA' }).setUnprotectedHeader({ kid }).sign(await importJWK(jwk(alice, kid), 'EdDSA'));
    const router = createRouter({ envelope: ctx(bob), clock: new ManualClock(Date.parse('2024-01-01T00:00:00Z')) });
    const result = await router.receive(JSON.stringify(jws));
    expect(result.status).not.toBe('undecryptable');
    expect(result.conformance).toContainEqual(expect.objectContaining({ rule: 'envelope.jws-flattened', ok: true, layer: 'envelope', detail: expect.stringContaining('flattened JWS') }));
    expect(result.conformance.filter((r) => r.layer === 'envelope' && !r.ok && r.severity === 'error')).toEqual([]);
  });
});

describe('forbidden forms are refused with a coded error naming the rule', () => {
  const to = bob.agreementKids.slice(0, 2);
  const skid = alice.agreementKids[0]!;
  const authHeader = (h: Record<string, unknown> = {}) => ({
    typ: MEDIA_TYPES.encrypted, alg: 'ECDH-1PU+A256KW', enc: 'A256CBC-HS512', skid, apu: Buffer.from(skid).toString('base64url'), apv: apvOf(to).toString('base64url'), ...h,
  });
  const forge = (o: Partial<Parameters<typeof forgeJwe>[0]> & { header: Record<string, unknown> }) =>
    forgeJwe({ curve: 'X25519', recipients: to.map((kid) => ({ kid, publicJwk: publicJwk(bob, kid) })), sender: jwk(alice, skid), enc: 'A256CBC-HS512', plaintext: plaintext(bob), ...o });

  it('authcrypt: a wrong or missing apv', async () => {
    expect(await refusal(unpack(forge({ header: authHeader({ apv: apvOf(['did:example:bob#other']).toString('base64url') }) }), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jwe-apv' });
    const { apv: _apv, ...noApv } = authHeader();
    expect(await refusal(unpack(forge({ header: noApv, apv: apvOf(to) }), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jwe-apv' });
  });

  it('authcrypt: skid and apu naming different keys, or skid without apu', async () => {
    expect(await refusal(unpack(forge({ header: authHeader({ skid: carol.agreementKids[0] }) }), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.authcrypt-apu' });
    const { apu: _apu, ...noApu } = authHeader();
    expect(await refusal(unpack(forge({ header: noApu, apu: Buffer.from(skid) }), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.authcrypt-apu' });
    // A skid with a lone surrogate: apu, its UTF-8, reads back as another string. Twice, as the
    // engine keeps what it learnt of a kid's bytes.
    const lone = `${skid}\ud800`;
    const loneApu = Buffer.from(lone).toString('base64url');
    for (let i = 0; i < 2; i++) {
      expect(await refusal(unpack(forge({ header: authHeader({ skid: lone, apu: loneApu }) }), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.authcrypt-apu' });
    }
  });

  it('`from` that is not the DID of the authcrypt sender key or of the signer', async () => {
    const carolKid = carol.agreementKids[0]!;
    const jwe = forge({ header: authHeader({ skid: carolKid, apu: Buffer.from(carolKid).toString('base64url') }), sender: jwk(carol, carolKid), plaintext: plaintext(bob, alice) });
    expect(await refusal(unpack(jwe, ctx(bob)))).toEqual({ code: 'sender_mismatch', rule: 'envelope.from-matches-sender' });
    const kid = carol.signingKids[0]!;
    const jws = await new FlattenedSign(enc.encode(plaintext(bob, alice))).setProtectedHeader({ typ: MEDIA_TYPES.signed, alg: 'EdDSA' }).setUnprotectedHeader({ kid }).sign(await importJWK(jwk(carol, kid), 'EdDSA'));
    expect(await refusal(unpack(JSON.stringify(jws), ctx(bob)))).toEqual({ code: 'sender_mismatch', rule: 'envelope.from-matches-signer' });
  });

  it('a tag that does not verify (A256GCM, A256CBC-HS512, and authcrypt where the tag feeds the KDF)', async () => {
    const flip = (packed: string) => {
      const j = JSON.parse(packed);
      j.tag = (j.tag[0] === 'A' ? 'B' : 'A') + j.tag.slice(1);
      return JSON.stringify(j);
    };
    for (const encAlgAnon of ['A256GCM', 'A256CBC-HS512', 'XC20P'] as const) {
      const { packed } = await pack(JSON.parse(plaintext(bob)), { mode: 'anoncrypt', encAlgAnon }, ctx(alice));
      expect(await refusal(unpack(flip(packed), ctx(bob))), encAlgAnon).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jwe-tag' });
    }
    const { packed } = await pack(JSON.parse(plaintext(bob)), { mode: 'authcrypt' }, ctx(alice));
    expect(await refusal(unpack(flip(packed), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jwe-tag' });
  });

  it('algorithms and curves outside the spec tables', async () => {
    const anon = (h: Record<string, unknown>) => ({ typ: MEDIA_TYPES.encrypted, alg: 'ECDH-ES+A256KW', enc: 'A256GCM', apv: apvOf(to).toString('base64url'), ...h });
    const cases: [string, string][] = [
      [forge({ header: anon({ alg: 'RSA-OAEP-256' }), sender: undefined, enc: 'A256GCM' }), 'envelope.jwe-alg'],
      [forge({ header: anon({ enc: 'A128GCM' }), sender: undefined, enc: 'A256GCM' }), 'envelope.jwe-enc'],
      // ECDH-1PU key wrapping requires an AES-CBC-HMAC enc (1PU-04 §2.1).
      [forge({ header: authHeader({ enc: 'A256GCM' }), enc: 'A256GCM' }), 'envelope.authcrypt-enc'],
      [forge({ header: anon({ epk: { crv: 'secp256k1', kty: 'EC', ...pointOf('secp256k1') } }), sender: undefined, enc: 'A256GCM' }), 'envelope.jwe-epk-crv'],
      [forge({ header: anon({ epk: { crv: 'Ed25519', kty: 'OKP', x: pointOf('Ed25519').x } }), sender: undefined, enc: 'A256GCM' }), 'envelope.jwe-epk-crv'],
    ];
    for (const [jwe, rule] of cases) expect(await refusal(unpack(jwe, ctx(bob))), rule).toEqual({ code: 'didcomm_unsupported', rule });
    // JWS: alg none or HMAC refused outright; an alg that does not fit the key, refused too.
    const payload = Buffer.from(plaintext(bob)).toString('base64url');
    const kid = alice.signingKids[0]!;
    for (const alg of ['none', 'HS256', 'RS256']) {
      const jws = { payload, signatures: [{ protected: Buffer.from(JSON.stringify({ typ: MEDIA_TYPES.signed, alg })).toString('base64url'), header: { kid }, signature: 'AAAA' }] };
      expect(await refusal(unpack(JSON.stringify(jws), ctx(bob))), alg).toEqual({ code: 'didcomm_unsupported', rule: 'envelope.jws-alg' });
    }
    const es256 = await new FlattenedSign(enc.encode(plaintext(bob))).setProtectedHeader({ typ: MEDIA_TYPES.signed, alg: 'ES256' }).setUnprotectedHeader({ kid }).sign(await importJWK(jwk(alice, alice.signingKids[1]!), 'ES256'));
    expect(await refusal(unpack(JSON.stringify(es256), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jws-alg-key' });
  });

  it('mixed curves: among the recipients, and between the sender key and the epk', async () => {
    const mixed = [bob.agreementKids[0]!, bob.agreementKids[2]!]; // X25519 and P-256
    const jwe = forgeJwe({
      header: { typ: MEDIA_TYPES.encrypted, alg: 'ECDH-ES+A256KW', enc: 'A256GCM', apv: apvOf(mixed).toString('base64url') },
      curve: 'X25519',
      recipients: [{ kid: mixed[0]!, publicJwk: publicJwk(bob, mixed[0]!) }, { kid: mixed[1]!, publicJwk: publicJwk(bob, mixed[0]!) }],
      enc: 'A256GCM',
      plaintext: plaintext(bob),
    });
    expect(await refusal(unpack(jwe, ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jwe-recipient-curve' });
    const p256 = alice.agreementKids[1]!;
    const wrongSender = forge({ header: authHeader({ skid: p256, apu: Buffer.from(p256).toString('base64url') }) });
    expect(await refusal(unpack(wrongSender, ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jwe-epk-curve' });
  });

  it('recipients of two DIDs, and the epk outside the protected header (one epk per recipient)', async () => {
    const two = [bob.agreementKids[0]!, carol.agreementKids[0]!];
    const jwe = forgeJwe({
      header: { typ: MEDIA_TYPES.encrypted, alg: 'ECDH-ES+A256KW', enc: 'A256GCM', apv: apvOf(two).toString('base64url') },
      curve: 'X25519',
      recipients: [{ kid: two[0]!, publicJwk: publicJwk(bob, two[0]!) }, { kid: two[1]!, publicJwk: publicJwk(carol, two[1]!) }],
      enc: 'A256GCM',
      plaintext: plaintext(bob),
    });
    expect(await refusal(unpack(jwe, ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jwe-recipients-one-did' });
    // jose, like RFC 7516 allows, puts a separate epk in each recipient's header for several
    // ECDH-ES recipients; DIDComm v2 requires one epk in the protected header.
    const e = new GeneralEncrypt(enc.encode(plaintext(bob))).setProtectedHeader({ typ: MEDIA_TYPES.encrypted, enc: 'A256GCM' });
    for (const kid of to) e.addRecipient(await importJWK(publicJwk(bob, kid), 'ECDH-ES+A256KW')).setUnprotectedHeader({ alg: 'ECDH-ES+A256KW', kid });
    expect(await refusal(unpack(JSON.stringify(await e.encrypt()), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jwe-protected-headers' });
  });

  it('a header name in two of the protected, the shared unprotected and a recipient\'s header', async () => {
    // RFC 7516 §7.2.1: "The Header Parameter names in the three locations MUST be disjoint."
    const good = JSON.parse(forge({ header: authHeader() }));
    expect((await unpack(JSON.stringify(good), ctx(bob))).metadata.encryptedFromKid).toBe(skid);
    const other = carol.agreementKids[0]!;
    const withRecipientHeader = (extra: Record<string, unknown>) => good.recipients.map((r: { header: Record<string, unknown> }) => ({ ...r, header: { ...r.header, ...extra } }));
    for (const variant of [
      { ...good, unprotected: { skid: other } },
      { ...good, unprotected: { skid } },
      { ...good, unprotected: { enc: 'A256CBC-HS512' } },
      { ...good, recipients: withRecipientHeader({ skid: other }) },
      { ...good, unprotected: { kid: to[0] } },
    ]) {
      expect(await refusal(unpack(JSON.stringify(variant), ctx(bob))), JSON.stringify(variant.unprotected ?? variant.recipients[0].header)).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jwe-header-disjoint' });
    }
    // Names in one place each stay accepted: a shared unprotected header of other names.
    expect((await unpack(JSON.stringify({ ...good, unprotected: { 'x-note': 1 } }), ctx(bob))).metadata.encryptedFromKid).toBe(skid);
  });

  it('layers out of order, duplicated header names, unknown critical extensions', async () => {
    const { packed: inner } = await pack(JSON.parse(plaintext(bob)), { mode: 'anoncrypt' }, ctx(alice));
    expect(await refusal(unpack(forge({ header: authHeader(), plaintext: inner }), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.nesting' });
    const { packed } = await pack(JSON.parse(plaintext(bob)), { mode: 'signed' }, ctx(alice));
    const jws = JSON.parse(packed);
    const sig = jws.signatures[0];
    const h = JSON.parse(Buffer.from(sig.protected, 'base64url').toString());
    const twice = { ...jws, signatures: [{ ...sig, protected: Buffer.from(JSON.stringify({ ...h, kid: sig.header.kid })).toString('base64url') }] };
    expect(await refusal(unpack(JSON.stringify(twice), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jws-header-disjoint' });
    const crit = { ...jws, signatures: [{ ...sig, protected: Buffer.from(JSON.stringify({ ...h, crit: ['b64'], b64: false })).toString('base64url') }] };
    expect(await refusal(unpack(JSON.stringify(crit), ctx(bob)))).toEqual({ code: 'didcomm_unsupported', rule: 'envelope.jws-crit' });
    // RFC 7515 §4.1.11: what the producer broke is named, not "not understood".
    const withCrit = (prot: Record<string, unknown>, header: Record<string, unknown> = sig.header) => JSON.stringify({ ...jws, signatures: [{ ...sig, header, protected: Buffer.from(JSON.stringify(prot)).toString('base64url') }] });
    expect(await refusal(unpack(withCrit(h, { ...sig.header, crit: ['b64'], b64: false }), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jws-crit-protected' });
    expect(await refusal(unpack(withCrit({ ...h, crit: [] }), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jws-crit-list' });
    expect(await refusal(unpack(withCrit({ ...h, crit: ['alg'] }), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jws-crit-list' });
    expect(await refusal(unpack(withCrit({ ...h, crit: ['exp'] }), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jws-crit-list' });
    expect(await refusal(unpack(forge({ header: authHeader({ crit: ['x-ext'], 'x-ext': 1 }) }), ctx(bob)))).toEqual({ code: 'didcomm_unsupported', rule: 'envelope.jwe-crit' });
    expect(await refusal(unpack(forge({ header: authHeader({ crit: [] }) }), ctx(bob)))).toEqual({ code: 'didcomm_malformed', rule: 'envelope.jwe-crit-list' });
  });
});

function pointOf(curve: 'secp256k1' | 'Ed25519'): { x: string; y?: string } {
  const { publicJwk: p } = jwkPair(curve);
  return p.y ? { x: p.x!, y: p.y } : { x: p.x! };
}
