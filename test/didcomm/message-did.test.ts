// didOf and sameDid (src/didcomm/message.ts): the DID of a DID URL ends at the first '#', '?' or
// '/'; two DID URLs name the same DID when their DIDs are equal, ion long and short forms alike.
import { describe, expect, it } from 'vitest';
import { createIonDid } from '../../src/did/ion.js';
import { ionShortForm } from '../../src/did/ion-form.js';
import { didOf, sameDid } from '../../src/didcomm/message.js';

describe('didOf', () => {
  it('cuts at the first of #, ? and /, in any order', () => {
    expect(didOf('did:example:123')).toBe('did:example:123');
    expect(didOf('did:example:123#key-1')).toBe('did:example:123');
    expect(didOf('did:example:123?versionId=1#key-1')).toBe('did:example:123');
    expect(didOf('did:example:123/path?q#f')).toBe('did:example:123');
    expect(didOf('did:example:123#a/b?c')).toBe('did:example:123');
    expect(didOf('did:example:123?a#b/c')).toBe('did:example:123');
    expect(didOf('#key-1')).toBe('');
  });
  it('agrees with a search for [#?/] on random strings', () => {
    const alphabet = 'ab:#?/';
    for (let n = 0; n < 500; n++) {
      let s = '';
      for (let i = 0; i < 8; i++) s += alphabet[(n * 7 + i * 13 + ((n >> i) & 5)) % alphabet.length];
      const end = s.search(/[#?/]/);
      expect(didOf(s)).toBe(end === -1 ? s : s.slice(0, end));
    }
  });
});

describe('sameDid', () => {
  const ion = createIonDid({ endpoint: 'https://wallet.example/didcomm' });
  const short = ionShortForm(ion.did);
  it('matches a key id of the DID, in the long or the short form', () => {
    expect(short).not.toBe(ion.did);
    expect(sameDid(`${ion.did}#key-1`, ion.did)).toBe(true);
    expect(sameDid(`${short}#key-1`, ion.did)).toBe(true);
    expect(sameDid(`${ion.did}#key-1`, short)).toBe(true);
  });
  it('refuses another DID, and empty or missing values', () => {
    const other = createIonDid({ endpoint: 'https://other.example/didcomm' });
    expect(sameDid(`${other.did}#key-1`, ion.did)).toBe(false);
    expect(sameDid('did:example:1#k', 'did:example:12')).toBe(false);
    expect(sameDid(undefined, ion.did)).toBe(false);
    expect(sameDid('', '')).toBe(false);
  });
});
