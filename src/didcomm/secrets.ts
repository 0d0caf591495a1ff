// An in-memory SecretsSource (tests, short-lived agents). A kid is looked up by its canonical
// form, the short form of a did:ion or did:peer:4, so a key held under the long-form kid is found
// by the short one and vice versa (every key id of a long form repeats the whole encoded document).
import { shortForm } from '../did/short-form.js';
import type { Secret } from '../did/types.js';
import type { SecretsSource } from './types.js';

export function memorySecrets(secrets: Secret[]): SecretsSource {
  const byKid = new Map<string, Secret>();
  for (const s of secrets) byKid.set(shortForm(s.id), s);
  return {
    async get(kid) {
      const s = byKid.get(shortForm(kid));
      // didcomm-node needs the secret id to equal the kid it asked for, whichever form that was.
      return s ? { id: kid, type: s.type, privateKeyJwk: s.privateKeyJwk } : undefined;
    },
    async find(kids) {
      return kids.filter((kid) => byKid.has(shortForm(kid)));
    },
  };
}
