import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { issueCredential } from '../../src/credentials/issue.js';
import type { CredentialFormat, JwtCredential, VerificationResult, W3cCredential } from '../../src/credentials/types.js';
import { verifyCredential } from '../../src/credentials/verify.js';
import { decodeVcJwt } from '../../src/credentials/vc-jwt.js';
import { b64uEncode } from '../../src/encoding.js';
import { exampleDid, mapResolver } from './helpers.js';

const issuer = exampleDid('issuer', 1);
const holder = exampleDid('holder', 2);
const other = exampleDid('other', 3);
const resolve = mapResolver(issuer, holder, other);
const claims = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  birthDate: '1815-12-10',
  residentialAddress: { streetAddress: '12 St James Square', locality: 'London', postalCode: 'SW1Y 4JH', country: 'GB' },
};
const DAY = 86_400_000;

function issue(format: CredentialFormat, clock = new ManualClock(), extra: Record<string, unknown> = {}) {
  return issueCredential({ format, issuer: issuer.issuer, subjectDid: holder.did, claims, clock, ...extra });
}

/** The failing checks' codes. */
const failures = (r: VerificationResult) => r.checks.filter((c) => !c.ok).map((c) => c.code);

describe.each(['ldp', 'jwt'] as const)('%s credentials', (format) => {
  it('issues a credential that verifies with subject, issuer and claims', async () => {
    const clock = new ManualClock();
    const issued = await issue(format, clock);
    const wire = format === 'jwt' ? (issued.credential as JwtCredential).jwt : issued.credential;
    const r = await verifyCredential(wire, { resolve, clock, expectedSubject: holder.did, expectedIssuer: issuer.did, expectedClaims: claims });
    expect(failures(r)).toEqual([]);
    expect(r.verified).toBe(true);
    expect(r.format).toBe(format);
    expect(r.checks.map((c) => c.check)).toEqual(['structure', 'issuer_key', 'proof', 'issuer', 'subject', 'validity', 'claims']);
    expect(r.credential?.credentialSubject).toEqual({ id: holder.did, ...claims });
    expect(r.credential?.id).toBe(issued.id);
  });

  it('rejects a tampered claim with invalid_proof', async () => {
    const clock = new ManualClock();
    const issued = await issue(format, clock);
    let wire: unknown;
    if (format === 'ldp') {
      const c = structuredClone(issued.credential as W3cCredential);
      c.credentialSubject.lastName = 'Byron';
      wire = c;
    } else {
      const [h, p, s] = (issued.credential as JwtCredential).jwt.split('.');
      const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
      payload.vc.credentialSubject.lastName = 'Byron';
      wire = [h, b64uEncode(JSON.stringify(payload)), s].join('.');
    }
    const r = await verifyCredential(wire, { resolve, clock });
    expect(r.verified).toBe(false);
    expect(failures(r)).toEqual(['invalid_proof']);
  });

  it('refuses an ldp credential with a member named __proto__ its proof does not cover', async () => {
    if (format !== 'ldp') return; // a JWT's signature covers its bytes
    const clock = new ManualClock();
    const issued = await issue(format, clock);
    const text = JSON.stringify(issued.credential);
    // JSON.parse makes __proto__ an own member; JSON-LD processing skips it, so the signature
    // verified with it added, at the top and in the subject.
    for (const wire of [JSON.parse(`{"__proto__":{"role":"admin"},${text.slice(1)}`), JSON.parse(text.replace('"credentialSubject":{', '"credentialSubject":{"__proto__":1,'))]) {
      const r = await verifyCredential(wire, { resolve, clock });
      expect(r.verified).toBe(false);
      expect(failures(r)).toEqual(['malformed_credential']);
    }
    expect((await verifyCredential(JSON.parse(text), { resolve, clock })).verified).toBe(true);
  });

  it('refuses a credential signed with a key outside assertionMethod', async () => {
    const clock = new ManualClock();
    const issued = await issueCredential({
      format,
      issuer: { did: issuer.did, kid: `${issuer.did}#key-2`, privateKey: issuer.authKey.privateKey },
      subjectDid: holder.did,
      claims,
      clock,
    });
    const wire = format === 'jwt' ? (issued.credential as JwtCredential).jwt : issued.credential;
    const r = await verifyCredential(wire, { resolve, clock });
    expect(r.verified).toBe(false);
    // The signature itself is fine; the issuer never authorised the key for assertions.
    expect(failures(r)).toEqual(['issuer_key_not_authorized']);
  });

  it("refuses a credential naming the issuer but signed with another DID's key", async () => {
    const clock = new ManualClock();
    const issued = await issueCredential({ format, issuer: other.issuer, subjectDid: holder.did, claims, clock });
    let wire: unknown;
    if (format === 'ldp') {
      // Claim to be `issuer` while the proof points at other's key: the proof breaks too.
      wire = { ...(issued.credential as W3cCredential), issuer: issuer.did };
    } else {
      const forged = await issueCredential({ format, issuer: { ...other.issuer, did: issuer.did, kid: `${issuer.did}#key-1` }, subjectDid: holder.did, claims, clock });
      wire = (forged.credential as JwtCredential).jwt;
    }
    const r = await verifyCredential(wire, { resolve, clock });
    expect(r.verified).toBe(false);
    expect(failures(r)).toContain(format === 'ldp' ? 'issuer_key_not_authorized' : 'invalid_proof');
  });

  it('reports an issuer DID that does not resolve', async () => {
    const clock = new ManualClock();
    const r = await verifyCredential(format === 'jwt' ? ((await issue(format, clock)).credential as JwtCredential).jwt : (await issue(format, clock)).credential, {
      resolve: async () => null,
      clock,
    });
    expect(failures(r)).toEqual(['issuer_not_resolved', 'invalid_proof']);
  });

  it('reports subject, issuer and claims mismatches', async () => {
    const clock = new ManualClock();
    const issued = await issue(format, clock);
    const wire = format === 'jwt' ? (issued.credential as JwtCredential).jwt : issued.credential;
    const r = await verifyCredential(wire, {
      resolve,
      clock,
      expectedSubject: other.did,
      expectedIssuer: other.did,
      expectedClaims: { ...claims, firstName: 'Augusta' },
    });
    expect(failures(r)).toEqual(['issuer_mismatch', 'subject_mismatch', 'claims_mismatch']);
    expect(r.checks.find((c) => c.check === 'claims')?.detail).toContain('firstName');
  });

  it('accepts expected claims in the flat form', async () => {
    const clock = new ManualClock();
    const issued = await issue(format, clock);
    const wire = format === 'jwt' ? (issued.credential as JwtCredential).jwt : issued.credential;
    const flat = {
      firstName: 'Ada',
      lastName: 'Lovelace',
      birthDate: '1815-12-10',
      residentialAddressStreetAddress: '12 St James Square',
      residentialAddressLocality: 'London',
      residentialAddressPostalCode: 'SW1Y 4JH',
      residentialAddressountry: 'GB',
    };
    expect((await verifyCredential(wire, { resolve, clock, expectedClaims: flat })).verified).toBe(true);
  });

  it('is not valid before issuanceDate nor from expirationDate on', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const issued = await issue(format, clock, { expirationDate: '2026-01-31T00:00:00Z' });
    const wire = format === 'jwt' ? (issued.credential as JwtCredential).jwt : issued.credential;
    clock.set(Date.UTC(2025, 11, 31));
    expect(failures(await verifyCredential(wire, { resolve, clock }))).toEqual(['not_yet_valid']);
    clock.set(Date.UTC(2026, 0, 30));
    expect(failures(await verifyCredential(wire, { resolve, clock }))).toEqual([]);
    clock.set(Date.UTC(2026, 0, 31));
    expect(failures(await verifyCredential(wire, { resolve, clock }))).toEqual(['expired']);
    clock.advance(30 * DAY);
    expect(failures(await verifyCredential(wire, { resolve, clock }))).toEqual(['expired']);
  });

  it('records the credential it replaces', async () => {
    const clock = new ManualClock();
    const first = await issue(format, clock);
    const second = await issue(format, clock, { replaces: first.id });
    const wire = format === 'jwt' ? (second.credential as JwtCredential).jwt : second.credential;
    const r = await verifyCredential(wire, { resolve, clock });
    expect(r.verified).toBe(true);
    expect(r.credential?.replaces).toBe(first.id);
    expect(second.id).not.toBe(first.id);
  });
});

describe('credential shape', () => {
  it('ldp: VC v1.1 with the KYC context, vKYC type, urn:uuid id and a DataIntegrityProof', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0, 123));
    const { credential } = await issue('ldp', clock);
    expect(credential).toMatchObject({
      '@context': ['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/security/data-integrity/v2', 'https://idsync.dev/contexts/kyc/v1'],
      id: expect.stringMatching(/^urn:uuid:[0-9a-f-]{36}$/),
      type: ['VerifiableCredential', 'vKYC'],
      issuer: issuer.did,
      issuanceDate: '2026-01-01T12:00:00Z',
      credentialSubject: { id: holder.did, ...claims },
      proof: {
        type: 'DataIntegrityProof',
        cryptosuite: 'eddsa-rdfc-2022',
        created: '2026-01-01T12:00:00Z',
        verificationMethod: `${issuer.did}#key-1`,
        proofPurpose: 'assertionMethod',
        proofValue: expect.stringMatching(/^z/),
      },
    });
  });

  it('jwt: header EdDSA/kid/JWT and the registered claims of VC DM v1.1 §6.3.1', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const issued = await issue('jwt', clock, { expirationDate: '2027-01-01T00:00:00Z' });
    const { header, payload } = decodeVcJwt((issued.credential as JwtCredential).jwt);
    expect(header).toEqual({ alg: 'EdDSA', kid: `${issuer.did}#key-1`, typ: 'JWT' });
    expect(payload).toMatchObject({
      iss: issuer.did,
      sub: holder.did,
      jti: issued.id,
      nbf: Date.UTC(2026, 0, 1) / 1000,
      exp: Date.UTC(2027, 0, 1) / 1000,
      vc: { type: ['VerifiableCredential', 'vKYC'] },
    });
  });

  it('refuses claims outside the vocabulary when issuing', async () => {
    await expect(issueCredential({ format: 'ldp', issuer: issuer.issuer, subjectDid: holder.did, claims: { shoeSize: '42' }, clock: new ManualClock() })).rejects.toMatchObject({
      code: 'invalid_claims',
    });
  });
});

describe('JWT algorithm pinning', () => {
  const clock = new ManualClock();
  const payload = { iss: issuer.did, sub: holder.did, nbf: clock.now() / 1000, vc: { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], credentialSubject: { firstName: 'Mallory' } } };

  it("refuses alg 'none'", async () => {
    const header = b64uEncode(JSON.stringify({ alg: 'none', kid: `${issuer.did}#key-1`, typ: 'JWT' }));
    const token = `${header}.${b64uEncode(JSON.stringify(payload))}.`;
    const r = await verifyCredential(token, { resolve, clock });
    expect(r.verified).toBe(false);
    expect(failures(r)).toEqual(['malformed_credential']);
  });

  it('refuses HS256 even when keyed with the issuer public key', async () => {
    const token = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256', kid: `${issuer.did}#key-1`, typ: 'JWT' })
      .sign(issuer.assertionKey.publicKey);
    const r = await verifyCredential(token, { resolve, clock });
    expect(r.verified).toBe(false);
    expect(failures(r)).toEqual(['malformed_credential']);
  });

  it('refuses a JWT whose registered claims contradict the vc claim', async () => {
    const issued = await issue('jwt', clock);
    const [h, p, s] = (issued.credential as JwtCredential).jwt.split('.');
    const body = JSON.parse(Buffer.from(p, 'base64url').toString());
    body.sub = other.did;
    const r = await verifyCredential([h, b64uEncode(JSON.stringify(body)), s].join('.'), { resolve, clock });
    expect(failures(r)).toEqual(['malformed_credential']);
  });

  it.each([['nbf', 1e300], ['exp', -1e300]])('refuses as malformed a JWT whose %s no date holds (%d seconds)', async (claim, seconds) => {
    const issued = await issue('jwt', clock);
    const [h, p, s] = (issued.credential as JwtCredential).jwt.split('.');
    const body = JSON.parse(Buffer.from(p, 'base64url').toString());
    body[claim] = seconds;
    const r = await verifyCredential([h, b64uEncode(JSON.stringify(body)), s].join('.'), { resolve, clock });
    expect(r.verified).toBe(false);
    expect(failures(r)).toEqual(['malformed_credential']);
    // Named as what it is, not as Date's own "Invalid time value".
    expect(r.checks.find((c) => !c.ok)?.detail).toBe(`JWT claim ${claim} is beyond any date`);
  });
});

describe('bad input never throws', () => {
  it.each([
    ['a number', 42],
    ['null', null],
    ['an empty object', {}],
    ['a non-JWT string', 'a.b'],
    ['garbage JWT', 'eyJ.eyJ.sig'],
    ['an array', []],
    ['a credential without proof', { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential'], issuer: 'did:example:issuer', issuanceDate: '2026-01-01T00:00:00Z', credentialSubject: {} }],
  ])('%s → malformed_credential', async (_name, input) => {
    const r = await verifyCredential(input, { resolve, clock: new ManualClock() });
    expect(r.verified).toBe(false);
    expect(failures(r)).toEqual(['malformed_credential']);
  });

  it('an ldp credential with an unbundled context → malformed_credential', async () => {
    const clock = new ManualClock();
    const c = structuredClone((await issue('ldp', clock)).credential as W3cCredential);
    c['@context'].push('https://evil.example/context');
    const r = await verifyCredential(c, { resolve, clock });
    expect(failures(r)).toEqual(['malformed_credential']);
    expect(r.checks.find((x) => !x.ok)?.detail).toContain('context_not_bundled');
  });
});
