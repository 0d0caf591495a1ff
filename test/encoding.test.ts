// jcs() against the `canonicalize` package (RFC 8785, an implementation we did not write): the
// same text for any JSON value, and the same refusals. Fixed fast-check seed (FUZZ_SEED for others).
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { b64uDecode, b64uDecodeText, b64uEncode, base58btcDecode, base58btcEncode, jcs, jsonPrefix } from '../src/encoding.js';
import { isIdsyncError } from '../src/errors.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const reference = canonicalize as unknown as (value: unknown) => string | undefined;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isIdsyncError(err) ? err.code : 'not-idsync';
  }
  return undefined;
}

// Any JSON value, with full Unicode in keys and strings (well-formed), doubles of every
// magnitude (-0 too), and members that are undefined (JSON leaves them out).
const key = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }));
const leaf = fc.oneof(
  fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(-0),
  fc.constant(1e21), fc.constant(1e-7), fc.constant(Number.MAX_SAFE_INTEGER + 2),
  fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(key, fc.oneof(tie('value'), fc.constant(undefined)), { maxKeys: 6 }),
}));

describe('jcs (RFC 8785)', () => {
  it('writes what the canonicalize package writes, for any JSON value', () => {
    fc.assert(fc.property(value, (v) => {
      expect(jcs(v)).toBe(reference(v));
    }), { seed: SEED, numRuns: 2000 });
  });

  it('sorts members by UTF-16 code units and writes numbers as ECMAScript does (RFC 8785 §3.2.2, §3.2.3)', () => {
    expect(jcs({ b: [1e21, 1e-7, -0, 0.1], a: { '\u20ac': 1, '\ud83d\ude00': 2, '\u00e9': 3 }, c: undefined })).toBe('{"a":{"é":3,"€":1,"😀":2},"b":[1e+21,1e-7,0,0.1]}');
    expect(jcs([undefined, 'x'])).toBe('[null,"x"]');
    expect(jcs({ d: new Date(0) })).toBe(reference({ d: new Date(0) }));
  });

  it('refuses NaN, Infinity, lone surrogates (in values and keys), cycles and non-JSON with invalid_json', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const bad of [NaN, Infinity, { x: -Infinity }, 'a\ud800', { ['\udc00']: 1 }, cycle, undefined, () => 1, 10n]) {
      expect(codeOf(() => jcs(bad))).toBe('invalid_json');
    }
  });
});

describe('b64uDecode', () => {
  // What b64uDecode accepted before its fast path: standard base64 (+/, padding) too.
  const liberal = (s: string): Uint8Array | string => {
    const normal = s.replace(/\+/g, '-').replace(/\//g, '_');
    if (!/^[A-Za-z0-9_-]*={0,2}$/.test(normal)) return 'invalid_encoding';
    return new Uint8Array(Buffer.from(normal.replace(/=+$/, ''), 'base64url'));
  };
  const decoded = (s: string): Uint8Array | string => {
    try {
      return b64uDecode(s);
    } catch (err) {
      return isIdsyncError(err) ? err.code : 'not-idsync';
    }
  };

  it('decodes base64url and standard base64 (padded or not) as before, and refuses anything else', () => {
    const chars = fc.constantFrom(...'AZaz09-_+/=.~ \n'.split(''));
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('base64url')), fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('base64')), fc.string({ unit: chars, maxLength: 12 })), (s) => {
        expect(decoded(s)).toEqual(liberal(s));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('gives a copy of its own, and text as UTF-8', () => {
    const bytes = b64uDecode('aGVsbG8');
    expect(bytes.buffer.byteLength).toBe(5);
    expect(b64uDecodeText('aMOpbGxv')).toBe('héllo');
    expect(b64uDecodeText(b64uEncode('did:example:é#k'))).toBe('did:example:é#k');
  });
});

describe('base58btc', () => {
  // The base conversion spelled out with BigInt, one digit at a time: slow and plainly right.
  const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  const reference = (bytes: Uint8Array): string => {
    let zeros = 0;
    while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
    let n = 0n;
    for (const b of bytes) n = n * 256n + BigInt(b);
    let digits = '';
    for (; n > 0n; n /= 58n) digits = ALPHABET[Number(n % 58n)] + digits;
    return '1'.repeat(zeros) + digits;
  };

  // draft-msporny-base58-03 §5 (Test Vectors).
  it('writes the draft specification vectors', () => {
    expect(base58btcEncode(new TextEncoder().encode('Hello World!'))).toBe('2NEpo7TZRRrLZSi2U');
    expect(base58btcEncode(new TextEncoder().encode('The quick brown fox jumps over the lazy dog.'))).toBe('USm3fpXnKG5EUBx2ndxBDMPVciP5hGey2Jh4NDv6gmeo1LkMeiKrLJUUBk6Z');
    expect(base58btcEncode(Uint8Array.of(0, 0, 0x28, 0x7f, 0xb4, 0xcd))).toBe('11233QC4');
    expect(Buffer.from(base58btcDecode('11233QC4')).toString('hex')).toBe('0000287fb4cd');
  });

  it('encodes as the digit-by-digit conversion does and decodes back, for any bytes (leading zeros, odd lengths, 64-byte signatures)', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 80 }),
      fc.tuple(fc.integer({ min: 0, max: 4 }), fc.uint8Array({ maxLength: 70 })).map(([z, b]) => Uint8Array.from([...new Array<number>(z).fill(0), ...b])),
      fc.uint8Array({ minLength: 64, maxLength: 64 }),
      fc.constantFrom(new Uint8Array(64).fill(255), Uint8Array.of(1), Uint8Array.of(255, 255), new Uint8Array(0)),
    );
    fc.assert(
      fc.property(bytes, (b) => {
        const text = base58btcEncode(b);
        expect(text).toBe(reference(b));
        expect(Buffer.from(base58btcDecode(text))).toEqual(Buffer.from(b));
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it('refuses a character outside the alphabet (0, O, I, l) with invalid_encoding', () => {
    for (const s of ['0', 'O1', '1I', 'abl', '2NEpo7TZRRrLZSi2U ']) expect(codeOf(() => base58btcDecode(s))).toBe('invalid_encoding');
  });
});

describe('jsonPrefix', () => {
  const cases: unknown[] = [
    { id: '1', type: 'https://didcomm.org/routing/2.0/forward', to: ['did:example:alice'], body: { next: 'did:example:bob' }, attachments: [{ id: 'a', data: { json: { ciphertext: 'x'.repeat(3000) } } }] },
    { skipped: undefined, fn: () => 1, id: 'é"\\\u2028', n: 1.5, nested: { deep: [1, null, 'two'] } },
    { a: 'x'.repeat(199) },
    { a: 'x'.repeat(194) },
    {},
    { only: undefined },
    [1, 2, { three: 3 }],
    'a string',
    null,
    { toJSON: () => ({ replaced: true }) },
    { when: new Date(0), big: 'y'.repeat(500) },
  ];
  it('is JSON.stringify(value) cut to the length asked for', () => {
    for (const value of cases) {
      for (const chars of [0, 1, 10, 200, 10_000]) {
        expect(jsonPrefix(value, chars)).toBe((JSON.stringify(value) ?? '').slice(0, chars));
      }
    }
  });

  it('agrees with JSON.stringify on any JSON object and length', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(400), (value, chars) => jsonPrefix(value, chars) === JSON.stringify(value).slice(0, chars)));
  });
});
