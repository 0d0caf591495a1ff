// Fuzzing the message checker (`idsync message check`, checkMessageText): what a conformance engineer
// pastes is another agent's message, often broken. Starting from the DIDComm v2 spec vectors
// (fixtures/didcomm-v2-spec, Apache-2.0: JWE and JWS, X25519, P-256, secp256k1), members are
// removed, replaced or retyped, in the envelope and inside its protected header, and characters of
// the text are changed, with a seeded generator. Every check resolves with results (never throws),
// and no rule crashes on what it reads (conformance.rule-crashed).
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import type { EnvelopeContext } from '../../src/didcomm/types.js';
import { b64uDecodeText, b64uEncode } from '../../src/encoding.js';
import { checkMessageText } from '../../src/harness/check.js';
import { mapResolver, readVector, vectorDocs, vectorSecrets } from '../didcomm/envelope-fixtures.js';
import { draw } from '../fuzz-kit.js';

const bob: EnvelopeContext = { resolve: mapResolver(vectorDocs()), secrets: memorySecrets(vectorSecrets('secrets-bob.json')) };
const vectors = readdirSync(new URL('../../fixtures/didcomm-v2-spec/', import.meta.url))
  .filter((f) => f.endsWith('.json') && !/^(diddocs|secrets)/.test(f))
  .map((f) => readVector(f));

describe('fuzzing the message checker with broken spec vectors', () => {
  // Four draws (seed 1 once found a JWE header whose epk kty was "constructor"); FUZZ_SEED one other.
  const seeds = process.env.FUZZ_SEED ? [Number(process.env.FUZZ_SEED)] : [20261129, 1, 2, 3];
  it.each(seeds)('judges every one without throwing, and no rule crashes (seed %i)', async (seed) => {
    const { rnd, int, pick, value } = draw(seed, () => ['did:example:alice#key-1', 'did:example:bob#key-x25519-1', 'ECDH-1PU+A256KW', 'A256GCM', 'EdDSA', 'application/didcomm-encrypted+json']);
    /** One member of `o` (an object) removed, replaced by anything, or retyped. */
    function mutateObject(o: Record<string, unknown>): void {
      const keys = Object.keys(o);
      const k = rnd() < 0.85 && keys.length ? pick(keys) : pick(['typ', 'cty', 'skid', 'epk', 'apu', 'apv', 'kid', 'x']);
      const how = rnd();
      if (how < 0.3) delete o[k];
      else if (how < 0.5 && typeof o[k] === 'string') o[k] = `${o[k] as string}${pick(['', '=', '.', 'A', '%'])}`.slice(0, int(((o[k] as string).length || 1) * 2));
      else o[k] = value(1);
    }
    function mutate(text: string): string {
      const how = rnd();
      if (how < 0.15) {
        // Characters: flipped, cut, doubled.
        const at = int(text.length);
        return pick([`${text.slice(0, at)}${pick(['"', '{', '}', ',', 'A', '\\u0000', ''])}${text.slice(at + 1)}`, text.slice(0, at), text + text.slice(at)]);
      }
      let o: Record<string, unknown>;
      try {
        o = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return text;
      }
      // Inside the protected header (JWE) or a signature's (JWS), or a recipient's header.
      if (how < 0.55 && typeof o.protected === 'string') {
        let header: Record<string, unknown>;
        try {
          header = JSON.parse(b64uDecodeText(o.protected)) as Record<string, unknown>;
        } catch {
          return text;
        }
        mutateObject(header);
        if (rnd() < 0.3 && typeof header.epk === 'object' && header.epk !== null) mutateObject(header.epk as Record<string, unknown>);
        o.protected = b64uEncode(JSON.stringify(header));
      } else if (how < 0.7 && Array.isArray(o.recipients) && o.recipients.length) {
        const r = pick(o.recipients) as Record<string, unknown>;
        if (typeof r === 'object' && r !== null) {
          if (typeof r.header === 'object' && r.header !== null && rnd() < 0.6) mutateObject(r.header as Record<string, unknown>);
          else mutateObject(r);
        }
      } else if (how < 0.8 && Array.isArray(o.signatures) && o.signatures.length) {
        const s = pick(o.signatures) as Record<string, unknown>;
        if (typeof s === 'object' && s !== null) mutateObject(s);
      } else mutateObject(o);
      return JSON.stringify(o);
    }

    const crashes: string[] = [];
    for (let i = 0; i < 250; i++) {
      let text = pick(vectors);
      for (let n = 1 + int(3); n > 0; n--) text = mutate(text);
      const result = await checkMessageText(text, bob).catch((err: unknown) => {
        crashes.push(`threw ${String(err)} for ${text.slice(0, 300)}`);
        return undefined;
      });
      if (!result) continue;
      expect(Array.isArray(result.results)).toBe(true);
      for (const r of result.results) if (r.rule === 'conformance.rule-crashed') crashes.push(`${r.detail} for ${text.slice(0, 300)}`);
    }
    expect(crashes).toEqual([]);
  });
});
