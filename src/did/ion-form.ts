// did:ion long form ↔ short form on DIDs and key ids, without parsing the encoded suffix data.
// Long form: did:ion:<suffix>:<base64url(JCS({suffixData, delta}))>; short form: did:ion:<suffix>.
import { memoBounded } from '../bounded.js';

const LONG = /^(did:ion:(?:[a-z0-9]+:)?[A-Za-z0-9_-]{46}):[A-Za-z0-9_-]+(#.*)?$/;

/**
 * Short forms of the long forms seen last. A message's DIDs and key ids are compared and looked
 * up by their short form many times on its way (its sender, its recipients, the keys of a
 * keylist, a queue's prefix), and each time the pattern ran over the whole long form (about 1 KB).
 * Bounded in entries and in length (a long form holds at most a 1,000-byte delta, well under
 * the 4,096 characters kept; longer strings are matched each time and not kept): DIDs come from outside.
 */
const shortOfLong = memoBounded(
  (didOrKid) => {
    const m = LONG.exec(didOrKid);
    return m ? m[1] + (m[2] ?? '') : didOrKid;
  },
  1024,
  4096,
);

/** The short form of an ion long-form DID or key id; anything else is returned unchanged. */
export function ionShortForm(didOrKid: string): string {
  return didOrKid.startsWith('did:ion:') ? shortOfLong(didOrKid) : didOrKid;
}

export function isIonLongForm(did: string): boolean {
  return LONG.test(did);
}
