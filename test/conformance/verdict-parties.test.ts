// Verdicts that blame the party the quoted sentence binds, at the severity of its RFC 2119
// keyword, under a quote that says what is checked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ruleOf } from '../../src/conformance/catalogue.js';
import { checkEnvelope } from '../../src/conformance/envelope.js';
import { createRuleRegistry } from '../../src/conformance/registry.js';
import type { ConformanceResult } from '../../src/conformance/types.js';
import { unpack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { b64uDecodeText, b64uEncode } from '../../src/encoding.js';
import { addIdsyncRules } from '../../src/protocols/idsync-rules.js';
import { MESSAGE_PICKUP } from '../../src/protocols/message-pickup.js';
import { mapResolver, readVector, vectorDocs, vectorSecrets } from '../didcomm/envelope-fixtures.js';

const SPEC = join(import.meta.dirname, '../../fixtures/didcomm-v2-spec');
const vector = (name: string) => readFileSync(join(SPEC, name), 'utf8');
const failed = (results: ConformanceResult[]) => results.filter((r) => !r.ok).map((r) => `${r.severity}:${r.rule}`);

/** The JWE vector with its protected header (and, optionally, its unprotected header) changed. */
function jweWith(name: string, change: (h: Record<string, unknown>) => void, unprotected?: Record<string, unknown>): string {
  const jwe = JSON.parse(vector(name));
  const h = JSON.parse(b64uDecodeText(jwe.protected));
  change(h);
  jwe.protected = b64uEncode(JSON.stringify(h));
  if (unprotected) jwe.unprotected = unprotected;
  return JSON.stringify(jwe);
}

/** The signed vector with its one signature's protected and unprotected headers changed. */
function jwsWith(change: (prot: Record<string, unknown>, header: Record<string, unknown>) => void): string {
  const jws = JSON.parse(vector('signed-eddsa-ed25519.json'));
  const sig = jws.signatures[0];
  const prot = JSON.parse(b64uDecodeText(sig.protected));
  const header = { ...(sig.header ?? {}) };
  change(prot, header);
  jws.signatures = [{ ...sig, protected: b64uEncode(JSON.stringify(prot)), header }];
  return JSON.stringify(jws);
}

describe('crit: the producer is failed for what RFC 7515 §4.1.11 forbids it, not for an extension idsync lacks', () => {
  it('a well-formed crit in the protected header is a note, not a failure of the sender', () => {
    for (const results of [
      checkEnvelope(jwsWith((p) => Object.assign(p, { crit: ['x-ext'], 'x-ext': 1 }))),
      checkEnvelope(jweWith('authcrypt-x25519-a256cbc.json', (h) => Object.assign(h, { crit: ['x-ext'], 'x-ext': 1 }))),
    ]) {
      expect(failed(results)).toEqual([]);
      expect(results.find((r) => r.rule.endsWith('-crit'))).toMatchObject({ ok: true, severity: 'advice', detail: expect.stringContaining('does not implement') });
    }
    expect(ruleOf('envelope.jws-crit')).toMatchObject({ severity: 'advice', refuses: true });
    expect(ruleOf('envelope.jwe-crit')).toMatchObject({ severity: 'advice', refuses: true });
  });

  it('an empty list, a JOSE name, a duplicate or a name absent from the header breaks the producer MUST NOT', () => {
    for (const crit of [[], ['alg'], ['x-ext', 'x-ext'], ['x-absent'], 'x-ext']) {
      expect(failed(checkEnvelope(jwsWith((p) => Object.assign(p, { crit, 'x-ext': 1 })))), JSON.stringify(crit)).toEqual(['error:envelope.jws-crit-list']);
      expect(failed(checkEnvelope(jweWith('authcrypt-x25519-a256cbc.json', (h) => Object.assign(h, { crit, 'x-ext': 1 })))), JSON.stringify(crit)).toEqual(['error:envelope.jwe-crit-list']);
    }
    expect(failed(checkEnvelope(jweWith('authcrypt-x25519-a256cbc.json', (h) => Object.assign(h, { crit: ['epk'] }))))).toEqual(['error:envelope.jwe-crit-list']);
  });

  it('crit outside the protected header breaks "it MUST occur only within the JWS Protected Header"', () => {
    expect(failed(checkEnvelope(jwsWith((_p, header) => Object.assign(header, { crit: ['x-ext'], 'x-ext': 1 }))))).toEqual(['error:envelope.jws-crit-protected']);
    expect(failed(checkEnvelope(jweWith('authcrypt-x25519-a256cbc.json', (h) => Object.assign(h, { 'x-ext': 1 }), { crit: ['x-ext'] })))).toEqual(['error:envelope.jwe-crit-protected']);
  });
});

describe('epk: where it sits, that it is public, and its curve, each by its own sentence', () => {
  it('a private d breaks RFC 7518 §4.6.1.1, not the common-headers MUST', () => {
    const results = checkEnvelope(jweWith('anoncrypt-x25519-xc20p.json', (h) => ((h.epk as Record<string, unknown>).d = 'AAAA')));
    expect(failed(results)).toEqual(['error:envelope.jwe-epk-public']);
    expect(results.find((r) => r.rule === 'envelope.jwe-epk')).toMatchObject({ ok: true });
    expect(ruleOf('envelope.jwe-epk-public')).toMatchObject({ version: 'RFC 7518', keyword: 'MUST' });
  });

  it('a curve outside DIDComm\'s table is advice (idsync cannot read it), no MUST forbids the sender', () => {
    const results = checkEnvelope(jweWith('anoncrypt-x25519-xc20p.json', (h) => (h.epk = { kty: 'EC', crv: 'secp256k1', x: 'AAAA', y: 'AAAA' })));
    expect(failed(results)).toEqual(['advice:envelope.jwe-epk-crv']);
    expect(ruleOf('envelope.jwe-epk-crv')).toMatchObject({ refuses: true });
  });

  it('a missing epk still breaks the common-headers MUST', () => {
    expect(failed(checkEnvelope(jweWith('anoncrypt-x25519-xc20p.json', (h) => delete h.epk)))).toContain('error:envelope.jwe-epk');
  });
});

describe('Message Pickup 3.0 fields, by what their sentences say', () => {
  const registry = addIdsyncRules(createRuleRegistry());
  const check = (type: string, body: Record<string, unknown>) => failed(registry.check({ id: 'm-1', type, body, return_route: 'all' } as PlainMessage)).filter((f) => f.includes('messagepickup'));

  it('delivery-request limit: REQUIRED means present; 0 is a limit the spec allows', () => {
    expect(check(MESSAGE_PICKUP.deliveryRequest, { limit: 0 })).toEqual([]);
    expect(check(MESSAGE_PICKUP.deliveryRequest, {})).toEqual(['error:messagepickup.delivery-request.limit']);
    expect(check(MESSAGE_PICKUP.deliveryRequest, { limit: 'ten' })).toEqual(['advice:messagepickup.delivery-request.limit-form']);
  });

  it('a status alone is not judged by the echo MUST: its recipient_did form is advice', () => {
    expect(check(MESSAGE_PICKUP.status, { message_count: 0, recipient_did: 7 })).toEqual(['advice:messagepickup.status.recipient_did']);
    expect(ruleOf('messagepickup.status.recipient_did')?.quote).not.toContain('MUST');
    expect(ruleOf('messagepickup.status.recipient_did-echo')?.severity).toBe('error');
  });
});

describe('from_prior by the sentences that govern it', () => {
  it('plaintext.from_prior judges the JWT form under the JWT-practices MUST, not under REQUIRED (presence)', () => {
    expect(ruleOf('plaintext.from_prior')).toMatchObject({ keyword: 'MUST', quote: expect.stringContaining('Practices for creating and signing the JWT MUST be followed') });
  });

  it('v2.1 names no algorithms for from_prior: one idsync lacks is advice; one that does not fit its key is a MUST of RFC 7515 §5.2', () => {
    expect(ruleOf('from_prior.alg')).toMatchObject({ severity: 'advice', refuses: true, section: 'JWT Details' });
    expect(ruleOf('from_prior.alg-key')).toMatchObject({ severity: 'error', version: 'RFC 7515' });
  });
});

describe('anoncrypt(authcrypt(sign(plaintext))): forbidden by §IANA Media Types, used by Appendix C.3', () => {
  it('the MUST NOT governs: the appendix vector is read, and its sender fails envelope.nesting-protected-signed (error)', async () => {
    const bob = { resolve: mapResolver(vectorDocs()), secrets: memorySecrets(vectorSecrets('secrets-bob.json')) };
    const { message, metadata } = await unpack(readVector('signed-authcrypt-then-anoncrypt-x25519.json'), bob, { engine: 'native' });
    expect(metadata).toMatchObject({ mode: 'authcrypt-signed', anonymousSender: true });
    const noted = metadata.notes?.find((n) => n.rule === 'envelope.nesting-protected-signed');
    expect(noted).toMatchObject({ broken: true, detail: expect.stringMatching(/MUST NOT be used.*Appendix C\.3/) });
    expect(ruleOf('envelope.nesting-protected-signed')).toMatchObject({
      severity: 'error',
      keyword: 'MUST NOT',
      section: 'IANA Media Types',
      quote: 'However, in the set of envelopes that targets a single hop, envelope combinations other than the ones above MUST NOT be used. In particular, it makes no sense to use anoncrypt(authcrypt(sign(plaintext))); use anoncrypt(sign(plaintext)) instead.',
      text: expect.stringContaining('Appendix C.3'),
    });
    const results = addIdsyncRules(createRuleRegistry()).check(message, { metadata });
    expect(results).toContainEqual(expect.objectContaining({ rule: 'envelope.nesting-protected-signed', ok: false, severity: 'error' }));
  });
});

describe('forward receipt and encryption support: no MUST binds them', () => {
  it('a forward answered 2xx and not held breaks advice (Routing §Roles), not the HTTPS status MUST', () => {
    expect(ruleOf('routing.forward.receipt')).toMatchObject({ severity: 'advice', section: 'Roles', quote: expect.stringContaining('passes on the result') });
  });

  it('refusing authcrypt or anoncrypt is advice: the curve MUST is about curves, not envelopes', () => {
    for (const id of ['envelope.authcrypt-supported', 'envelope.anoncrypt-supported']) {
      expect(ruleOf(id)).toMatchObject({ severity: 'advice', section: 'Message Encryption', quote: expect.stringContaining('DIDComm supports two types of message encryption') });
    }
    expect(ruleOf('envelope.signed-supported')?.severity).toBe('error');
  });
});
