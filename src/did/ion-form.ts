// did:ion long form ↔ short form on DIDs and key ids, without parsing the encoded suffix data.
// Long form: did:ion:<suffix>:<base64url(JCS({suffixData, delta}))>; short form: did:ion:<suffix>.
const LONG = /^(did:ion:(?:[a-z0-9]+:)?[A-Za-z0-9_-]{46}):[A-Za-z0-9_-]+(#.*)?$/;

/** The short form of an ion long-form DID or key id; anything else is returned unchanged. */
export function ionShortForm(didOrKid: string): string {
  const m = LONG.exec(didOrKid);
  return m ? m[1] + (m[2] ?? '') : didOrKid;
}

export function isIonLongForm(did: string): boolean {
  return LONG.test(did);
}
