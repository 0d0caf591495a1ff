// The DID and DID URL patterns the rules use are W3C DID Core §3.1 rewritten for speed; they must
// accept exactly what the grammar's own form accepts.
import { describe, expect, it } from 'vitest';
import { DID, KEY_ID, isDidOrDidUrlWithoutFragment } from '../../src/conformance/plaintext.js';

const IDCHAR = String.raw`(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})`;
// §3.1 as written: method-specific-id = *( *idchar ":" ) 1*idchar.
const GRAMMAR_ID = String.raw`(?:${IDCHAR}*:)*${IDCHAR}+`;
const GRAMMAR_DID = new RegExp(String.raw`^did:[a-z0-9]+:${GRAMMAR_ID}$`);
const GRAMMAR_NO_FRAGMENT = new RegExp(String.raw`^did:[a-z0-9]+:${GRAMMAR_ID}(?:/[^#?]*)?(?:\?[^#]*)?$`);
const GRAMMAR_KEY_ID = new RegExp(String.raw`^did:[a-z0-9]+:${GRAMMAR_ID}(?:/[^#?]*)?(?:\?[^#]*)?#.+$`);

describe('DID syntax (DID Core §3.1)', () => {
  it('accepts what the grammar accepts and nothing else, on generated DIDs and near-DIDs', () => {
    const alphabet = ['a', 'Z', '9', '.', '_', '-', ':', '%', '4', 'f', 'G', '/', '?', '#', ' ', '\n', '\u2028', 'é', 'key-1', '%2F', '%4'];
    const prefixes = ['did:ion:', 'did:web:', 'did:a1:', 'did:', 'did:ION:', 'did:ion', 'dod:x:', ''];
    let seed = 11;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      let s = prefixes[next(prefixes.length)]!;
      const len = next(12);
      for (let j = 0; j < len; j++) s += alphabet[next(alphabet.length)]!;
      expect([DID.test(s), isDidOrDidUrlWithoutFragment(s), KEY_ID.test(s)], s).toEqual([GRAMMAR_DID.test(s), GRAMMAR_NO_FRAGMENT.test(s), GRAMMAR_KEY_ID.test(s)]);
      if (GRAMMAR_NO_FRAGMENT.test(s) || GRAMMAR_KEY_ID.test(s)) accepted++;
    }
    expect(accepted).toBeGreaterThan(1000);
  });

  it('accepts a did:ion long form and its key ids, and refuses them broken', () => {
    const long = `did:ion:EiBTzW_GLUJItqvG59E9WTXRYMI5ad1429TtJXkn_bqWXA:${'eyJkZWx0YSI6'.repeat(90)}`;
    expect(DID.test(long)).toBe(true);
    expect(isDidOrDidUrlWithoutFragment(long)).toBe(true);
    expect(KEY_ID.test(`${long}#key-2`)).toBe(true);
    expect(KEY_ID.test(long)).toBe(false);
    expect(DID.test(`${long}:`)).toBe(false);
    expect(isDidOrDidUrlWithoutFragment(`${long}#key-2`)).toBe(false);
    expect(KEY_ID.test(`${long} #key-2`)).toBe(false);
    expect(DID.test(`${long}%2`)).toBe(false);
  });
});
