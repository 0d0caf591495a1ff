// With the project's own DID methods (src/did): did:key and did:ion issuers, an ion holder
// whose credential names the long form while the verifier expects the short form.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { issueCredential } from '../../src/credentials/issue.js';
import type { CredentialFormat, JwtCredential } from '../../src/credentials/types.js';
import { verifyCredential } from '../../src/credentials/verify.js';
import { createIonDid } from '../../src/did/ion.js';
import { createKeyDid } from '../../src/did/key.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import type { CreatedDid } from '../../src/did/types.js';
import { keyPairFromJwk } from '../../src/keys.js';

const resolve = documentResolver(createResolver());

function issuerKey(created: CreatedDid) {
  const secret = created.secrets[0];
  return { did: created.did, kid: secret.id, privateKey: keyPairFromJwk(secret.privateKeyJwk).privateKey };
}

describe.each([
  ['did:key', () => createKeyDid()],
  ['did:ion', () => createIonDid()],
] as const)('issuer %s', (_name, makeIssuer) => {
  it.each(['ldp', 'jwt'] as CredentialFormat[])('%s credential to an ion holder verifies against the short form', async (format) => {
    const issuer = makeIssuer();
    const holder = createIonDid();
    const clock = new ManualClock();
    const claims = { firstName: 'Ada', residentialAddress: { country: 'GB' } };
    const issued = await issueCredential({ format, issuer: issuerKey(issuer), subjectDid: holder.did, claims, clock });
    const input = format === 'jwt' ? (issued.credential as JwtCredential).jwt : issued.credential;
    const r = await verifyCredential(input, {
      resolve,
      clock,
      expectedSubject: holder.shortDid ?? holder.did,
      expectedIssuer: issuer.shortDid ?? issuer.did,
      expectedClaims: claims,
    });
    expect(r.checks.filter((c) => !c.ok)).toEqual([]);
    expect(r.verified).toBe(true);
  });
});
