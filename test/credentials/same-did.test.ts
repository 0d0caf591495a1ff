// An issuer's DID and its keys' controller compared in either form: did:ion and did:peer:4 each
// have a long form (carrying the document) and a short form, and a credential or a key id may
// name either (DID Peer §Method 4: peers use the short form after the first message).
import { describe, expect, it } from 'vitest';
import { sameDid } from '../../src/credentials/issuer-key.js';
import { createIonDid } from '../../src/did/ion.js';
import { createPeerDid4 } from '../../src/did/peer4.js';

describe('issuer DIDs compared through their short forms', () => {
  it.each([
    ['did:ion', () => createIonDid()],
    ['did:peer:4', () => createPeerDid4()],
  ] as const)('%s: the long form, the short form and key ids on either are one DID', (_name, make) => {
    const { did: long, shortDid } = make();
    const short = shortDid!;
    expect(long).not.toBe(short);
    expect(sameDid(long, short)).toBe(true);
    expect(sameDid(`${long}#key-2`, `${short}#key-2`)).toBe(true);
    expect(sameDid(`${long}#key-2`, `${short}#key-1`)).toBe(false);
    expect(sameDid(long, make().shortDid!)).toBe(false);
  });
});
