import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEnvelope, envelopeShape, outerMode, senderRules } from '../../src/conformance/envelope.js';
import { checkMessage } from '../../src/conformance/registry.js';
import type { ConformanceResult } from '../../src/conformance/types.js';
import type { PlainMessage, UnpackMetadata } from '../../src/didcomm/types.js';
import { b64uDecodeText, b64uEncode } from '../../src/encoding.js';

const SPEC = join(import.meta.dirname, '../../fixtures/didcomm-v2-spec');
const vector = (name: string) => readFileSync(join(SPEC, name), 'utf8');

function failed(results: ConformanceResult[]): string[] {
  return results.filter((r) => !r.ok).map((r) => `${r.severity}:${r.rule}`);
}

/** The vector with its protected header changed. */
function withHeader(name: string, change: (h: Record<string, unknown>) => void): string {
  const jwe = JSON.parse(vector(name));
  const h = JSON.parse(b64uDecodeText(jwe.protected));
  change(h);
  jwe.protected = b64uEncode(JSON.stringify(h));
  return JSON.stringify(jwe);
}

const meta = (m: Partial<UnpackMetadata>): UnpackMetadata => ({
  mode: 'authcrypt', encrypted: true, authenticated: true, nonRepudiation: false, anonymousSender: false, reWrappedInForward: false, ...m,
});
const message = { id: '1', type: 'https://example.com/p/1.0/m', from: 'did:example:alice', to: ['did:example:bob'], body: {} } as PlainMessage;

describe('envelope rules (DIDComm v2 §Message Encryption, §Message Signing)', () => {
  it('passes the spec vectors of authcrypt, anoncrypt and signed messages', () => {
    for (const name of ['authcrypt-x25519-a256cbc.json', 'anoncrypt-x25519-xc20p.json', 'signed-eddsa-ed25519.json', 'plaintext.json']) {
      expect(failed(checkEnvelope(vector(name))), name).toEqual([]);
    }
    expect(envelopeShape(JSON.parse(vector('signed-eddsa-ed25519.json')))).toBe('signed');
    expect(outerMode(vector('authcrypt-x25519-a256cbc.json'))).toBe('authcrypt');
    expect(outerMode(vector('anoncrypt-x25519-xc20p.json'))).toBe('anoncrypt');
  });

  it('catches a JWE typ that is not the encrypted media type', () => {
    expect(failed(checkEnvelope(withHeader('authcrypt-x25519-a256cbc.json', (h) => (h.typ = 'application/didcomm-signed+json'))))).toEqual(['error:envelope.typ']);
  });

  it('catches an authcrypt apu that is not base64url(skid)', () => {
    expect(failed(checkEnvelope(withHeader('authcrypt-x25519-a256cbc.json', (h) => (h.apu = b64uEncode('did:example:mallory#key-1')))))).toEqual([
      'error:envelope.authcrypt-apu',
    ]);
  });

  it('accepts authcrypt without skid when apu names the sender key (noted), and needs apu', () => {
    const noSkid = checkEnvelope(withHeader('authcrypt-x25519-a256cbc.json', (h) => delete h.skid));
    expect(failed(noSkid)).toEqual([]);
    expect(noSkid.find((r) => r.rule === 'envelope.authcrypt-skid-from-apu')).toMatchObject({ ok: true, detail: expect.stringContaining('apu') });
    expect(failed(checkEnvelope(withHeader('authcrypt-x25519-a256cbc.json', (h) => (delete h.skid, delete h.apu))))).toEqual(['error:envelope.authcrypt-apu']);
  });

  it('catches a wrong apv, an unknown alg and an enc authcrypt may not use', () => {
    expect(failed(checkEnvelope(withHeader('authcrypt-x25519-a256cbc.json', (h) => (h.apv = b64uEncode('x')))))).toEqual(['error:envelope.jwe-apv']);
    expect(failed(checkEnvelope(withHeader('anoncrypt-x25519-xc20p.json', (h) => (h.alg = 'RSA-OAEP'))))).toEqual(['error:envelope.jwe-alg']);
    // ECDH-1PU draft 04 §2.1: key wrapping only with AES_CBC_HMAC_SHA2; XC20P is a DIDComm enc, not for authcrypt.
    expect(failed(checkEnvelope(withHeader('authcrypt-x25519-a256cbc.json', (h) => (h.enc = 'XC20P'))))).toEqual(['error:envelope.authcrypt-enc']);
    expect(failed(checkEnvelope(withHeader('anoncrypt-x25519-xc20p.json', (h) => (h.enc = 'A128GCM'))))).toEqual(['advice:envelope.jwe-enc']);
  });

  it('advises when an anoncrypted message names its sender or carries apu', () => {
    expect(failed(checkEnvelope(withHeader('anoncrypt-x25519-xc20p.json', (h) => (h.skid = 'did:example:alice#key-x25519-1'))))).toEqual([
      'advice:envelope.anoncrypt-no-skid',
    ]);
    expect(failed(checkEnvelope(withHeader('anoncrypt-x25519-xc20p.json', (h) => (h.apu = b64uEncode('x')))))).toEqual(['advice:envelope.jwe-apu']);
  });

  it('catches a JWS without a DID URL kid and with the wrong typ', () => {
    const jws = JSON.parse(vector('signed-eddsa-ed25519.json'));
    jws.signatures[0].header.kid = 'key-1';
    jws.signatures[0].protected = b64uEncode(JSON.stringify({ typ: 'JWT', alg: 'EdDSA' }));
    expect(failed(checkEnvelope(JSON.stringify(jws)))).toEqual(['error:envelope.jws-typ', 'error:envelope.jws-kid']);
  });

  it('accepts the forms the spec allows (a flattened JWS, a kid only in the protected header) and flags an anoncrypt without apv', () => {
    const general = JSON.parse(vector('signed-eddsa-ed25519.json'));
    const [sig] = general.signatures;
    const flattened = { payload: general.payload, protected: sig.protected, header: sig.header, signature: sig.signature };
    expect(envelopeShape(flattened)).toBe('signed');
    expect(failed(checkEnvelope(JSON.stringify(flattened)))).toEqual([]);
    const h = JSON.parse(b64uDecodeText(sig.protected));
    const kidProtected = { payload: general.payload, signatures: [{ protected: b64uEncode(JSON.stringify({ ...h, kid: sig.header.kid })), signature: sig.signature }] };
    expect(failed(checkEnvelope(JSON.stringify(kidProtected)))).toEqual([]);
    expect(checkEnvelope(JSON.stringify(kidProtected)).find((r) => r.rule === 'envelope.jws-kid-protected')).toMatchObject({ ok: true, severity: 'advice' });
    // DIDComm v2.1 §ECDH-ES key wrapping: "JWE messages MUST use common epk, apv and alg headers".
    expect(failed(checkEnvelope(withHeader('anoncrypt-x25519-xc20p.json', (x) => delete x.apv)))).toEqual(['error:envelope.anoncrypt-no-apv']);
    expect(failed(checkEnvelope(withHeader('anoncrypt-x25519-xc20p.json', (x) => (x.apv = b64uEncode('x')))))).toEqual(['error:envelope.jwe-apv']);
    expect(failed(checkEnvelope(withHeader('authcrypt-x25519-a256cbc.json', (x) => delete x.apv)))).toEqual(['error:envelope.jwe-apv']);
  });

  it('reads a flattened JWE as one recipient', () => {
    const jwe = JSON.parse(vector('anoncrypt-x25519-xc20p.json'));
    const [r] = jwe.recipients;
    const flattened = { protected: jwe.protected, header: r.header, encrypted_key: r.encrypted_key, iv: jwe.iv, ciphertext: jwe.ciphertext, tag: jwe.tag };
    // apv names all three original recipients: with one left it is a wrong apv.
    expect(failed(checkEnvelope(JSON.stringify(flattened)))).toEqual(['advice:envelope.jwe-flattened', 'error:envelope.jwe-apv']);
  });

  it('says what is not an envelope', () => {
    expect(failed(checkEnvelope('not json'))).toEqual(['error:envelope.json']);
    expect(failed(checkEnvelope('{"hello":1}'))).toEqual(['error:envelope.shape']);
    // A plaintext has no envelope: its headers (typ among them) are the plaintext rules'.
    expect(checkEnvelope('{"id":"1","type":"t","typ":"application/json","body":{}}')).toEqual([]);
  });

  it('lists every fault of a JWE with several, not only the first', () => {
    const jwe = JSON.parse(withHeader('anoncrypt-x25519-xc20p.json', (h) => (delete h.apv, delete h.typ, (h.enc = 'A128GCM'))));
    delete jwe.tag;
    jwe.recipients[1].header.kid = 'key-2';
    expect(failed(checkEnvelope(JSON.stringify(jwe)))).toEqual([
      'error:envelope.jwe-tag',
      'error:envelope.jwe-recipient-kid',
      'warning:envelope.jwe-typ-set',
      'advice:envelope.jwe-enc',
      'error:envelope.anoncrypt-no-apv',
    ]);
  });

  it('holds to the protected header only the parameters the MUST names (epk, apu, apv, alg), not enc or skid', () => {
    // §ECDH-1PU key wrapping: "JWE messages MUST use common `epk`, `apu`, `apv` and `alg` headers
    // for all recipient keys. They MUST be set in the `protected` JWE section."
    const moved = (names: string[]) => {
      const jwe = JSON.parse(vector('authcrypt-x25519-a256cbc.json'));
      const h = JSON.parse(b64uDecodeText(jwe.protected));
      jwe.unprotected = Object.fromEntries(names.map((n) => [n, h[n]]));
      for (const n of names) delete h[n];
      jwe.protected = b64uEncode(JSON.stringify(h));
      return JSON.stringify(jwe);
    };
    // Moved, not copied: RFC 7516 §7.2.1 keeps the names of the header locations disjoint.
    const placement = (packed: string) => checkEnvelope(packed).filter((r) => r.rule === 'envelope.jwe-protected-headers').every((r) => r.ok);
    expect(placement(moved(['enc']))).toBe(true);
    expect(failed(checkEnvelope(moved(['skid'])))).toEqual([]);
    expect(placement(moved(['apv']))).toBe(false);
    expect(failed(checkEnvelope(moved(['apv'])))).toContain('error:envelope.jwe-protected-headers');
  });

  it('fails a header name in two of the protected, the shared unprotected and a recipient\'s header', () => {
    // RFC 7516 §7.2.1: "The Header Parameter names in the three locations MUST be disjoint."
    const jwe = JSON.parse(vector('authcrypt-x25519-a256cbc.json'));
    const skid = JSON.parse(b64uDecodeText(jwe.protected)).skid as string;
    const variant = (change: (j: Record<string, any>) => void) => {
      const j = structuredClone(jwe);
      change(j);
      return checkEnvelope(JSON.stringify(j));
    };
    expect(failed(variant(() => {}))).toEqual([]);
    expect(variant(() => {})).toContainEqual(expect.objectContaining({ rule: 'envelope.jwe-header-disjoint', ok: true }));
    // A protected skid and an unprotected one naming another key: the JOSE header is ambiguous.
    const two = variant((j) => (j.unprotected = { skid: 'did:example:mallory#key-x25519-1' }));
    expect(failed(two)).toEqual(['error:envelope.jwe-header-disjoint']);
    expect(two.find((r) => r.rule === 'envelope.jwe-header-disjoint')?.detail).toBe('skid in both the protected header and the unprotected header');
    expect(failed(variant((j) => (j.unprotected = { skid })))).toEqual(['error:envelope.jwe-header-disjoint']);
    const perRecipient = variant((j) => {
      j.unprotected = { cty: 'x' };
      j.recipients[1].header = { ...j.recipients[1].header, skid, cty: 'y' };
    });
    expect(failed(perRecipient)).toEqual(['error:envelope.jwe-header-disjoint']);
    expect(perRecipient.find((r) => r.rule === 'envelope.jwe-header-disjoint')?.detail).toBe("skid in both the protected header and recipient 1's header; cty in both the unprotected header and recipient 1's header");
    // A flattened JWE's top-level header is its recipient's header (RFC 7516 §7.2.2).
    const [r] = jwe.recipients;
    const flattened = { protected: jwe.protected, header: { ...r.header, enc: 'A256CBC-HS512' }, encrypted_key: r.encrypted_key, iv: jwe.iv, ciphertext: jwe.ciphertext, tag: jwe.tag };
    expect(failed(checkEnvelope(JSON.stringify(flattened)))).toContain('error:envelope.jwe-header-disjoint');
  });

  it('lists every fault of a JWS with several', () => {
    const jws = JSON.parse(vector('signed-eddsa-ed25519.json'));
    jws.payload = 'not base64!';
    jws.signatures[0].protected = b64uEncode(JSON.stringify({ alg: 'RS256', kid: 'did:example:alice#key-1' }));
    expect(failed(checkEnvelope(JSON.stringify(jws)))).toEqual([
      'error:envelope.jws-payload',
      'error:envelope.jws-header-disjoint',
      'warning:envelope.jws-typ-set',
      'advice:envelope.jws-alg',
    ]);
  });
});

describe('sender authentication rules', () => {
  it('passes when from is the DID of the authcrypt key and the signer', () => {
    const md = meta({ encryptedFromKid: 'did:example:alice#key-2', encryptedToKids: ['did:example:bob#key-2'], signFrom: 'did:example:alice#key-1', nonRepudiation: true });
    expect(failed(senderRules(message, { metadata: md }))).toEqual([]);
  });

  it('catches a from that the sender key or the signer does not belong to', () => {
    expect(failed(senderRules(message, { metadata: meta({ encryptedFromKid: 'did:example:mallory#key-2' }) }))).toEqual(['error:envelope.from-matches-sender']);
    expect(failed(senderRules(message, { metadata: meta({ mode: 'signed', encrypted: false, authenticated: false, nonRepudiation: true, signFrom: 'did:example:mallory#key-1' }) }))).toEqual([
      'error:envelope.from-matches-signer',
    ]);
    const { from: _, ...anonymous } = message;
    expect(failed(senderRules(anonymous as PlainMessage, { metadata: meta({ encryptedFromKid: 'did:example:alice#key-2' }) }))).toEqual(['error:envelope.from-matches-sender']);
  });

  it('treats ion long and short forms as one DID', () => {
    const suffix = 'EiDahaOGH-liLLdDtTxEAdc8i-cfCz-WUcQdRJheMVNn3A';
    const long = `did:ion:${suffix}:eyJkZWx0YSI6e319`;
    const m = { ...message, from: long };
    expect(failed(senderRules(m, { metadata: meta({ encryptedFromKid: `did:ion:${suffix}#key-2` }) }))).toEqual([]);
  });

  it('catches a message encrypted for a DID not listed in to', () => {
    expect(failed(senderRules(message, { metadata: meta({ encryptedFromKid: 'did:example:alice#key-2', encryptedToKids: ['did:example:carol#key-2'] }) }))).toEqual([
      'error:envelope.recipient-in-to',
    ]);
  });

  it('warns that from is unauthenticated in anoncrypt and plaintext', () => {
    expect(failed(senderRules(message, { metadata: meta({ mode: 'anoncrypt', authenticated: false, anonymousSender: true }) }))).toEqual(['advice:envelope.sender-authenticated']);
  });

  it('records what the unpack accepted: an allowed form as a note, a deviation read anyway as a broken rule', () => {
    const notes = [
      { rule: 'envelope.jws-flattened', detail: 'a flattened JWS' },
      { rule: 'envelope.anoncrypt-no-apv', detail: 'an anoncrypted JWE without apv, opened all the same', broken: true },
    ];
    const results = checkMessage(message, meta({ encryptedFromKid: 'did:example:alice#key-2', notes }));
    expect(results.find((r) => r.rule === 'envelope.jws-flattened')).toEqual({ rule: 'envelope.jws-flattened', detail: 'a flattened JWS', ok: true, severity: 'error', layer: 'envelope' });
    expect(failed(results)).toEqual(['error:envelope.anoncrypt-no-apv']);
  });

  it('runs envelope, sender and plaintext rules together in checkMessage', () => {
    const results = checkMessage(message, meta({ encryptedFromKid: 'did:example:mallory#key-2' }), { packed: vector('authcrypt-x25519-a256cbc.json') });
    expect(failed(results)).toEqual(['error:envelope.from-matches-sender']);
    expect(results.map((r) => r.layer)).toEqual(expect.arrayContaining(['envelope', 'plaintext']));
  });
});
