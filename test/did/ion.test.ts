import { IonDid } from '@decentralized-identity/ion-sdk';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { b64uDecodeText, b64uEncode, jcs } from '../../src/encoding.js';
import { isIdsyncError } from '../../src/errors.js';
import {
  createIonDid, createIonLongForm, generateSecp256k1Jwk, ionDocumentModel, parseIonDid, resolveIonLongForm,
  secp256k1PublicJwk, verifyIonLongForm,
} from '../../src/did/ion.js';
import { ionShortForm } from '../../src/did/ion-form.js';
import { generateKeyPair, keyPairFromJwk } from '../../src/keys.js';

const seed = (n: number) => new Uint8Array(32).fill(n);

function fixedKeys() {
  return {
    authenticationKey: generateKeyPair('Ed25519', seed(1)),
    keyAgreementKey: generateKeyPair('X25519', seed(2)),
    recoveryKey: generateSecp256k1Jwk(seed(3)),
    updateKey: generateSecp256k1Jwk(seed(4)),
  };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isIdsyncError(err) ? `${err.code}/${String(err.details?.reason)}` : 'not-idsync';
  }
  return undefined;
}

/** Rebuilds a long form with a changed state (keeping the original suffix). */
function tamper(did: string, change: (state: any) => void): string {
  const parsed = parseIonDid(did);
  const state = structuredClone(parsed.initialState!);
  change(state);
  return `${parsed.shortDid}:${b64uEncode(jcs(state))}`;
}

describe('secp256k1 control keys', () => {
  it('derive the public key @noble/curves derives, for given and random secrets (d always 32 bytes)', () => {
    const small = new Uint8Array(32);
    small[31] = 7; // a scalar with leading zero bytes
    for (const secret of [seed(3), seed(4), small]) {
      const jwk = generateSecp256k1Jwk(secret);
      const pub = secp256k1.getPublicKey(secret, false);
      expect(jwk).toEqual({ kty: 'EC', crv: 'secp256k1', x: b64uEncode(pub.slice(1, 33)), y: b64uEncode(pub.slice(33, 65)), d: b64uEncode(secret) });
    }
    for (let i = 0; i < 20; i++) {
      const jwk = generateSecp256k1Jwk();
      const d = Buffer.from(jwk.d, 'base64url');
      expect(d).toHaveLength(32);
      const pub = secp256k1.getPublicKey(d, false);
      expect([jwk.x, jwk.y]).toEqual([b64uEncode(pub.slice(1, 33)), b64uEncode(pub.slice(33, 65))]);
    }
  });

  it('refuses a secret that is no secp256k1 scalar with invalid_key', () => {
    for (const bad of [new Uint8Array(32), new Uint8Array(31).fill(1), new Uint8Array(32).fill(0xff)]) {
      expect(codeOf(() => generateSecp256k1Jwk(bad))?.split('/')[0]).toBe('invalid_key');
    }
  });
});

describe('did:ion long form', () => {
  it('equals what @decentralized-identity/ion-sdk makes for the same keys and document', async () => {
    const keys = fixedKeys();
    for (const endpoint of [undefined, 'https://agent.example/didcomm']) {
      const created = createIonDid({ ...keys, endpoint, routingKeys: endpoint ? ['did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp#z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW'] : undefined });
      const document = ionDocumentModel({ ...keys, endpoint, routingKeys: endpoint ? ['did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp#z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW'] : undefined });
      const fromSdk = await IonDid.createLongFormDid({
        recoveryKey: secp256k1PublicJwk(keys.recoveryKey),
        updateKey: secp256k1PublicJwk(keys.updateKey),
        document: structuredClone(document) as any,
      });
      expect(created.did).toBe(fromSdk);
      expect(created.shortDid).toBe(fromSdk.split(':').slice(0, 3).join(':'));
    }
  });

  it('matches ion-sdk with random control keys too', async () => {
    const recoveryKey = secp256k1PublicJwk(generateSecp256k1Jwk());
    const updateKey = secp256k1PublicJwk(generateSecp256k1Jwk());
    const document = ionDocumentModel({ authenticationKey: generateKeyPair('Ed25519'), keyAgreementKey: generateKeyPair('X25519'), endpoint: 'http://127.0.0.1:9000' });
    const ours = createIonLongForm({ recoveryKey, updateKey, document });
    expect(ours.did).toBe(await IonDid.createLongFormDid({ recoveryKey, updateKey, document: structuredClone(document) as any }));
  });

  it('resolves offline to a W3C document with absolute key ids and the DIDComm service', () => {
    const created = createIonDid({ ...fixedKeys(), endpoint: 'https://agent.example/didcomm' });
    const doc = resolveIonLongForm(created.did);
    expect(doc).toEqual(created.document);
    expect(doc.id).toBe(created.did);
    expect(doc['@context']).toContain('https://www.w3.org/ns/did/v1');
    expect(doc.verificationMethod?.map((m) => [m.id, m.type, m.controller, m.publicKeyJwk?.crv])).toEqual([
      [`${created.did}#key-1`, 'JsonWebKey2020', created.did, 'Ed25519'],
      [`${created.did}#key-2`, 'JsonWebKey2020', created.did, 'X25519'],
    ]);
    expect(doc.authentication).toEqual([`${created.did}#key-1`]);
    expect(doc.assertionMethod).toEqual([`${created.did}#key-1`]);
    expect(doc.keyAgreement).toEqual([`${created.did}#key-2`]);
    expect(doc.service).toEqual([{
      id: `${created.did}#didcomm`,
      type: 'DIDCommMessaging',
      serviceEndpoint: { uri: 'https://agent.example/didcomm', accept: ['didcomm/v2'], routingKeys: [] },
    }]);
  });

  it('has an empty service list when no endpoint is given', () => {
    expect(createIonDid().document.service).toEqual([]);
  });

  it('returns secrets whose ids are the long-form key ids and whose JWKs hold a matching kid', () => {
    const created = createIonDid();
    const ids = created.document.verificationMethod!.map((m) => m.id);
    expect(created.secrets.map((s) => s.id)).toEqual(ids);
    for (const s of created.secrets) {
      expect(s.type).toBe('JsonWebKey2020');
      expect(s.privateKeyJwk.kid).toBe(s.id);
      expect(keyPairFromJwk(s.privateKeyJwk)).toBeTruthy();
      expect(ionShortForm(s.id)).toBe(`${created.shortDid}#${s.id.split('#')[1]}`);
    }
    expect(created.controlKeys?.recovery).toMatchObject({ kty: 'EC', crv: 'secp256k1' });
  });

  it('gives the document its long form resolves to, without resolving it', () => {
    for (const o of [{}, { endpoint: 'https://agent.example/didcomm' }, { endpoint: 'did:peer:2.Ez6LSexample', routingKeys: ['did:example:mediator#key-2'] }]) {
      const created = createIonDid(o);
      const resolved = resolveIonLongForm(created.did);
      expect(created.document).toStrictEqual(resolved);
      expect(JSON.stringify(created.document)).toBe(JSON.stringify(resolved));
    }
  });

  it('gives the same short forms when long forms come back after many others (the bounded memo)', () => {
    const first = createIonDid();
    const expected = ionShortForm(first.did);
    expect(expected).toBe(first.shortDid);
    // More long forms than the memo holds, each with a key id: the first is long gone from it.
    for (let i = 0; i < 1200; i++) {
      const other = `did:ion:${String(i).padStart(46, 'A')}:${'B'.repeat(900)}${i}`;
      expect(ionShortForm(other)).toBe(`did:ion:${String(i).padStart(46, 'A')}`);
      expect(ionShortForm(`${other}#key-1`)).toBe(`did:ion:${String(i).padStart(46, 'A')}#key-1`);
    }
    expect(ionShortForm(first.did)).toBe(expected);
    expect(ionShortForm(`${first.did}#key-2`)).toBe(`${expected}#key-2`);
    // Longer than any long form may be: matched, not kept, the same answer each time.
    const huge = `did:ion:${'C'.repeat(46)}:${'D'.repeat(20_000)}#key-1`;
    expect(ionShortForm(huge)).toBe(`did:ion:${'C'.repeat(46)}#key-1`);
    expect(ionShortForm(huge)).toBe(`did:ion:${'C'.repeat(46)}#key-1`);
    // Not long forms: unchanged, whatever came before.
    for (const x of [first.shortDid!, 'did:ion:short', `did:ion:${'A'.repeat(46)}:bad chars!`, 'did:peer:2.Ez6Lx', '']) expect(ionShortForm(x)).toBe(x);
  });

  it('parses short and long forms, with and without a network segment', () => {
    const { did, shortDid } = createIonDid();
    const suffix = shortDid!.slice('did:ion:'.length);
    expect(parseIonDid(did)).toMatchObject({ shortDid, suffix });
    expect(parseIonDid(shortDid!)).toEqual({ did: shortDid, shortDid, suffix });
    expect(parseIonDid(`did:ion:test:${suffix}`)).toMatchObject({ network: 'test', shortDid: `did:ion:test:${suffix}` });
    expect(parseIonDid(`${did}#key-1`).did).toBe(did);
  });

  it('rejects a changed delta with invalid_did/delta_hash_mismatch', () => {
    const { did } = createIonDid({ endpoint: 'https://good.example' });
    const bad = tamper(did, (s) => { s.delta.patches[0].document.services[0].serviceEndpoint.uri = 'https://evil.example'; });
    expect(codeOf(() => verifyIonLongForm(bad))).toBe('invalid_did/delta_hash_mismatch');
    expect(codeOf(() => resolveIonLongForm(bad))).toBe('invalid_did/delta_hash_mismatch');
  });

  it('rejects changed suffix data (a different recovery commitment) with invalid_did/suffix_mismatch', () => {
    const { did } = createIonDid();
    const other = createIonDid();
    const bad = tamper(did, (s) => { s.suffixData.recoveryCommitment = parseIonDid(other.did).initialState!.suffixData.recoveryCommitment; });
    expect(codeOf(() => verifyIonLongForm(bad))).toBe('invalid_did/suffix_mismatch');
  });

  it('rejects a long form whose state is valid JSON but not base64url JCS', () => {
    const { did } = createIonDid();
    const parsed = parseIonDid(did);
    const pretty = `${parsed.shortDid}:${b64uEncode(JSON.stringify(parsed.initialState, null, 1))}`;
    expect(codeOf(() => verifyIonLongForm(pretty))).toBe('invalid_did/not_canonical');
    const padded = `${did.replace(/:([^:]+)$/, (_, enc: string) => `:${Buffer.from(b64uDecodeText(enc)).toString('base64')}`)}`;
    if (padded !== did) expect(codeOf(() => verifyIonLongForm(padded))).toBe('invalid_did/not_canonical');
  });

  it('rejects malformed DIDs with invalid_did', () => {
    const { did, shortDid } = createIonDid();
    for (const bad of ['did:ion:', 'did:ion:abc', 'did:key:z6Mk', `${shortDid}:%%%`, `${shortDid}:${b64uEncode('{"a":1}')}`, `did:ion:a:b:c:d`]) {
      expect(codeOf(() => verifyIonLongForm(bad)), bad).toMatch(/^invalid_did\//);
    }
    expect(codeOf(() => verifyIonLongForm(shortDid!))).toBe('invalid_did/not_long_form');
    // The long-form payload is base64url JCS of {delta, suffixData} (Sidetree §Long-Form DID URIs).
    expect(Object.keys(JSON.parse(b64uDecodeText(did.split(':')[3])))).toEqual(['delta', 'suffixData']);
  });

  it('refuses to create a DID whose delta exceeds the ION size limit', () => {
    const routingKeys = Array.from({ length: 20 }, (_, i) => `did:example:${'x'.repeat(40)}#key-${i}`);
    expect(() => createIonDid({ endpoint: 'https://a.example', routingKeys })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('never puts private key material in the DID or the document', () => {
    const created = createIonDid({ endpoint: 'https://a.example' });
    const json = JSON.stringify({ did: created.did, doc: created.document });
    for (const s of created.secrets) expect(json).not.toContain(s.privateKeyJwk.d);
    expect(json).not.toContain((created.controlKeys!.recovery as { d: string }).d);
    expect(json).not.toContain('"d"');
  });
});
