// VC-JWTs are signed and verified through the project's Ed25519 module (src/crypto/ed25519.ts),
// and checked here against jose, a JOSE implementation we did not write: our tokens are jose's
// byte for byte and verify with jose, jose's verify with ours, and what RFC 7515 and the pinned
// algorithm forbid is refused with a reason.
import { CompactSign, SignJWT, compactVerify, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ed25519Sign } from '../../src/crypto/ed25519.js';
import { issueCredential } from '../../src/credentials/issue.js';
import type { JwtCredential } from '../../src/credentials/types.js';
import { verifyCredential } from '../../src/credentials/verify.js';
import { signVcJwt, verifyVcJwtSignature } from '../../src/credentials/vc-jwt.js';
import { b64uEncode } from '../../src/encoding.js';
import { privateJwk, publicJwk } from '../../src/keys.js';
import { exampleDid, mapResolver } from './helpers.js';

const issuer = exampleDid('issuer', 7);
const holder = exampleDid('holder', 8);
const resolve = mapResolver(issuer, holder);
const claims = { firstName: 'Ada', lastName: 'Lovelace' };
const enc = (v: unknown) => b64uEncode(JSON.stringify(v));
const B64U = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

async function ourJwt(): Promise<string> {
  const issued = await issueCredential({ format: 'jwt', issuer: issuer.issuer, subjectDid: holder.did, claims, clock: new ManualClock() });
  return (issued.credential as JwtCredential).jwt;
}

describe('VC-JWT against jose', () => {
  it('signs the token jose signs, byte for byte, and jose verifies it', async () => {
    const jwt = await ourJwt();
    const [, payload] = jwt.split('.');
    const joseKey = await importJWK(privateJwk(issuer.assertionKey), 'EdDSA');
    const theirs = await new CompactSign(Buffer.from(payload!, 'base64url'))
      .setProtectedHeader({ alg: 'EdDSA', kid: issuer.issuer.kid, typ: 'JWT' })
      .sign(joseKey);
    expect(jwt).toBe(theirs);
    const verified = await compactVerify(jwt, await importJWK(publicJwk(issuer.assertionKey), 'EdDSA'), { algorithms: ['EdDSA'] });
    expect(verified.protectedHeader.alg).toBe('EdDSA');
    // And our own signing entry point gives that same token.
    const decoded = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
    expect(await signVcJwt({ ...decoded.vc }, issuer.issuer)).toBe(jwt);
  });

  it('verifies a credential jose signed, through the whole verification', async () => {
    const clock = new ManualClock();
    const nbf = Math.floor(clock.now() / 1000);
    const vc = {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      type: ['VerifiableCredential'],
      issuer: issuer.did,
      issuanceDate: new Date(nbf * 1000).toISOString().replace('.000Z', 'Z'),
      credentialSubject: { id: holder.did, ...claims },
    };
    const token = await new SignJWT({ vc })
      .setProtectedHeader({ alg: 'EdDSA', kid: issuer.issuer.kid, typ: 'JWT' })
      .setIssuer(issuer.did)
      .setSubject(holder.did)
      .setNotBefore(nbf)
      .sign(await importJWK(privateJwk(issuer.assertionKey), 'EdDSA'));
    const r = await verifyCredential(token, { resolve, clock, expectedIssuer: issuer.did, expectedSubject: holder.did });
    expect(r.checks.filter((c) => !c.ok)).toEqual([]);
    expect(r.verified).toBe(true);
  });

  it('refuses what the signature, the pinned algorithm and RFC 7515 do not allow, saying why', async () => {
    const jwt = await ourJwt();
    const [h, p, s] = jwt.split('.') as [string, string, string];
    const key = issuer.assertionKey.publicKey;
    const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
    // jose refuses to sign with a critical extension it does not know: signed by hand.
    const signedRaw = (hdr: Uint8Array) => {
      const input = `${b64uEncode(hdr)}.${p}`;
      return `${input}.${b64uEncode(ed25519Sign(issuer.assertionKey.privateKey, Buffer.from(input, 'ascii')))}`;
    };
    const signed = (hdr: Record<string, unknown>) => signedRaw(Buffer.from(JSON.stringify(hdr)));
    const cases: Array<[string, string, RegExp]> = [
      ['another payload', `${h}.${enc({ vc: {} })}.${s}`, /signature verification failed/],
      ['another key', jwt, /signature verification failed/],
      ['alg none', `${enc({ ...header, alg: 'none' })}.${p}.`, /alg "none" is not allowed/],
      ['alg ES256', `${enc({ ...header, alg: 'ES256' })}.${p}.${s}`, /alg "ES256" is not allowed/],
      ['a critical extension', signed({ ...header, crit: ['exp'], exp: 1 }), /crit/],
      ['padding', `${h}.${p}.${s}==`, /base64url without padding/],
      ['a short signature', `${h}.${p}.${s.slice(0, 40)}`, /64 bytes/],
      // The last of 86 characters carries 2 bits and 4 unused ones: flipping an unused bit decodes to the same bytes.
      ['a signature spelled another way', `${h}.${p}.${s.slice(0, -1)}${B64U[B64U.indexOf(s.at(-1)!) ^ 1]}`, /64 bytes, base64url encoded/],
      ['four parts', `${jwt}.x`, /three parts/],
      ['a header with a dangling character', `${h}A.${p}.${s}`, /one base64url encoding/],
      ['a header in invalid UTF-8', signedRaw(Buffer.from([0x7b, 0x22, 0x61, 0x6c, 0x67, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])), /UTF-8 JSON/],
      ['an alg that would fill the log', `${enc({ ...header, alg: 'x'.repeat(100_000) })}.${p}.${s}`, /^alg "x{39} is not allowed/],
      ['a header that is no JSON object', `${b64uEncode('[1]')}.${p}.${s}`, /JSON object/],
    ];
    for (const [name, token, reason] of cases) {
      const r = await verifyVcJwtSignature(token, name === 'another key' ? holder.assertionKey.publicKey : key);
      expect(r, name).toMatchObject({ ok: false });
      expect((r as { detail: string }).detail, name).toMatch(reason);
    }
    expect(await verifyVcJwtSignature(jwt, key)).toEqual({ ok: true });
  });

  it('refuses the identity point as key with a zero signature, which verifies every message under plain RFC 8032 checks', async () => {
    const identity = new Uint8Array(32);
    identity[0] = 1; // y = 1: the neutral element
    const forged = Buffer.concat([Buffer.from(identity), Buffer.alloc(32)]); // R = identity, S = 0
    const [h, p] = (await ourJwt()).split('.');
    const r = await verifyVcJwtSignature(`${h}.${p}.${b64uEncode(forged)}`, identity);
    expect(r).toEqual({ ok: false, detail: 'signature verification failed' });
  });
});
