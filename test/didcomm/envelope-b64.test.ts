// b64Member (src/didcomm/envelope/refusal.ts): a JOSE member is unpadded base64url (RFC 7515 §2);
// padding and the standard alphabet are tolerated; anything else is refused as malformed. The
// fast path (decoded length) must agree with that definition on every text, valid or not.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { b64Member } from '../../src/didcomm/envelope/refusal.js';

/** The definition: the tolerated alphabet and padding, then decoded; null when refused. */
function reference(value: string): Buffer | null {
  if (!/^[A-Za-z0-9_\-+/]*={0,2}$/.test(value)) return null;
  return Buffer.from(value.replace(/=+$/, ''), value.includes('+') || value.includes('/') ? 'base64' : 'base64url');
}

function decoded(value: string): Buffer | null {
  try {
    return b64Member(value, 'x', 'rule');
  } catch (err) {
    expect((err as { code?: string }).code).toBe('didcomm_malformed');
    return null;
  }
}

describe('b64Member', () => {
  it('decodes canonical base64url and refuses what is not base64', () => {
    expect(decoded('aGVsbG8')).toEqual(Buffer.from('hello'));
    expect(decoded('')).toEqual(Buffer.alloc(0));
    for (const bad of ['aGVs bG8', 'aGVsbG8!', 'aG=VsbG8', 'aGVsbG8===', 'aGVsbG8\n', 'aGVsé', 'a\u0000bc']) expect(decoded(bad)).toBeNull();
    expect(decoded('aGVsbG8=')).toEqual(Buffer.from('hello'));
    expect(decoded('+/+/')).toEqual(Buffer.from('-_-_', 'base64url'));
  });
  it('agrees with the definition on mutated random texts', () => {
    const chars = [...Array(128).keys()].map((c) => String.fromCharCode(c)).concat(['é', '€', '\u{1F600}', '\uD800']);
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let t = 0; t < 4000; t++) {
      let v = randomBytes(rand(200)).toString('base64url');
      for (let j = rand(3); j > 0; j--) {
        const at = rand(v.length + 1);
        v = v.slice(0, at) + chars[rand(chars.length)] + v.slice(at + rand(2));
      }
      const want = reference(v);
      const got = decoded(v);
      if (want === null) expect(got, JSON.stringify(v)).toBeNull();
      else expect(got?.equals(want), JSON.stringify(v)).toBe(true);
    }
  });
});
