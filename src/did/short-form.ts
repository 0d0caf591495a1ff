// One DID in either of its forms: did:ion and did:peer:4 have a long form (carrying the document)
// and a short form (its hash), and a key id may use either. Comparing DIDs and looking up keys go
// through the short form.
import { ionShortForm } from './ion-form.js';
import { peer4ShortForm } from './peer4.js';

/** The short form of a did:ion or did:peer:4 long form, or of a DID URL on it; anything else unchanged. */
export function shortForm(didOrKid: string): string {
  return didOrKid.startsWith('did:peer:4') ? peer4ShortForm(didOrKid) : ionShortForm(didOrKid);
}
