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

  it('accepts authcrypt without skid when apu names the sender key, with a warning', () => {
    expect(failed(checkEnvelope(withHeader('authcrypt-x25519-a256cbc.json', (h) => delete h.skid)))).toEqual(['warning:envelope.authcrypt-skid']);
    expect(failed(checkEnvelope(withHeader('authcrypt-x25519-a256cbc.json', (h) => (delete h.skid, delete h.apu))))).toEqual([
      'error:envelope.authcrypt-apu',
      'warning:envelope.authcrypt-skid',
    ]);
  });

  it('catches a wrong apv, an unknown alg and an enc authcrypt may not use', () => {
    expect(failed(checkEnvelope(withHeader('authcrypt-x25519-a256cbc.json', (h) => (h.apv = b64uEncode('x')))))).toEqual(['error:envelope.jwe-apv']);
    expect(failed(checkEnvelope(withHeader('anoncrypt-x25519-xc20p.json', (h) => (h.alg = 'RSA-OAEP'))))).toEqual(['error:envelope.jwe-alg']);
    expect(failed(checkEnvelope(withHeader('authcrypt-x25519-a256cbc.json', (h) => (h.enc = 'XC20P'))))).toEqual(['error:envelope.jwe-enc']);
  });

  it('warns when an anoncrypted message names its sender', () => {
    expect(failed(checkEnvelope(withHeader('anoncrypt-x25519-xc20p.json', (h) => (h.skid = 'did:example:alice#key-x25519-1'))))).toEqual([
      'warning:envelope.anoncrypt-no-skid',
    ]);
  });

  it('catches a JWS without a DID URL kid and with the wrong typ', () => {
    const jws = JSON.parse(vector('signed-eddsa-ed25519.json'));
    jws.signatures[0].header.kid = 'key-1';
    jws.signatures[0].protected = b64uEncode(JSON.stringify({ typ: 'JWT', alg: 'EdDSA' }));
    expect(failed(checkEnvelope(JSON.stringify(jws)))).toEqual(['error:envelope.typ', 'error:envelope.jws-kid']);
  });

  it('accepts the forms the spec allows: a flattened JWS, a kid only in the protected header, anoncrypt without apv', () => {
    const general = JSON.parse(vector('signed-eddsa-ed25519.json'));
    const [sig] = general.signatures;
    const flattened = { payload: general.payload, protected: sig.protected, header: sig.header, signature: sig.signature };
    expect(envelopeShape(flattened)).toBe('signed');
    expect(failed(checkEnvelope(JSON.stringify(flattened)))).toEqual([]);
    const h = JSON.parse(b64uDecodeText(sig.protected));
    const kidProtected = { payload: general.payload, signatures: [{ protected: b64uEncode(JSON.stringify({ ...h, kid: sig.header.kid })), signature: sig.signature }] };
    expect(failed(checkEnvelope(JSON.stringify(kidProtected)))).toEqual([]);
    expect(failed(checkEnvelope(withHeader('anoncrypt-x25519-xc20p.json', (x) => delete x.apv)))).toEqual([]);
    // A wrong apv is still a warning for anoncrypt, an error for authcrypt.
    expect(failed(checkEnvelope(withHeader('anoncrypt-x25519-xc20p.json', (x) => (x.apv = b64uEncode('x')))))).toEqual(['warning:envelope.jwe-apv']);
    expect(failed(checkEnvelope(withHeader('authcrypt-x25519-a256cbc.json', (x) => delete x.apv)))).toEqual(['error:envelope.jwe-apv']);
  });

  it('reads a flattened JWE as one recipient', () => {
    const jwe = JSON.parse(vector('anoncrypt-x25519-xc20p.json'));
    const [r] = jwe.recipients;
    const flattened = { protected: jwe.protected, header: r.header, encrypted_key: r.encrypted_key, iv: jwe.iv, ciphertext: jwe.ciphertext, tag: jwe.tag };
    // apv names all three original recipients: with one left it is a wrong apv (a warning for anoncrypt).
    expect(failed(checkEnvelope(JSON.stringify(flattened)))).toEqual(['warning:envelope.jwe-apv']);
  });

  it('says what is not an envelope', () => {
    expect(failed(checkEnvelope('not json'))).toEqual(['error:envelope.json']);
    expect(failed(checkEnvelope('{"hello":1}'))).toEqual(['error:envelope.shape']);
    expect(failed(checkEnvelope('{"id":"1","type":"t","typ":"application/json","body":{}}'))).toEqual(['error:envelope.typ']);
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
    expect(failed(senderRules(message, { metadata: meta({ mode: 'anoncrypt', authenticated: false, anonymousSender: true }) }))).toEqual(['warning:envelope.sender-authenticated']);
  });

  it('records what the unpack accepted as notes: passed results with a detail', () => {
    const notes = [
      { rule: 'envelope.jws-flattened', detail: 'flattened JWS JSON serialization accepted' },
      { rule: 'envelope.anoncrypt-no-apv', detail: 'anoncrypt without apv accepted' },
    ];
    const results = checkMessage(message, meta({ encryptedFromKid: 'did:example:alice#key-2', notes }));
    const noted = results.filter((r) => r.rule === 'envelope.jws-flattened' || r.rule === 'envelope.anoncrypt-no-apv');
    expect(noted).toEqual(notes.map((n) => ({ ...n, ok: true, severity: 'warning', layer: 'envelope' })));
    expect(failed(results)).toEqual([]);
  });

  it('runs envelope, sender and plaintext rules together in checkMessage', () => {
    const results = checkMessage(message, meta({ encryptedFromKid: 'did:example:mallory#key-2' }), { packed: vector('authcrypt-x25519-a256cbc.json') });
    expect(failed(results)).toEqual(['error:envelope.from-matches-sender']);
    expect(results.map((r) => r.layer)).toEqual(expect.arrayContaining(['envelope', 'plaintext']));
  });
});
