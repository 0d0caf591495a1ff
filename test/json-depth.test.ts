// json-depth.ts: nesting is measured on the text, outside strings, without recursion.
import { describe, expect, it } from 'vitest';
import { assertJsonDepth, jsonDepth, MAX_JSON_DEPTH, parseJsonBounded } from '../src/json-depth.js';
import { resolveWeb } from '../src/did/web.js';

const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
const nestedObjects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

describe('JSON nesting depth', () => {
  it('counts arrays and objects, not brackets inside strings or after escapes', () => {
    expect(jsonDepth('1')).toBe(0);
    expect(jsonDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonDepth('{"a":"[[[[{{{{"}')).toBe(1);
    expect(jsonDepth('["\\"[[[", ["x"]]')).toBe(2);
    expect(jsonDepth('["\\\\", [[1]]]')).toBe(3);
  });

  it('allows MAX_JSON_DEPTH levels and refuses one more with json_too_deep (status 400)', () => {
    expect(() => assertJsonDepth(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => assertJsonDepth(nested(MAX_JSON_DEPTH + 1))).toThrow(expect.objectContaining({ code: 'json_too_deep', details: { maxDepth: MAX_JSON_DEPTH, status: 400 } }));
  });

  it('refuses 5,000 and 1,000,000 levels before parsing, without overflowing the stack', () => {
    expect(() => parseJsonBounded(nestedObjects(5000))).toThrow(expect.objectContaining({ code: 'json_too_deep' }));
    expect(() => parseJsonBounded(nested(1_000_000))).toThrow(expect.objectContaining({ code: 'json_too_deep' }));
    expect(parseJsonBounded('{"a":[1]}')).toEqual({ a: [1] });
  });

  it('a did:web document nested too deeply is a notFound result, not a throw', async () => {
    const fetch = (async () => new Response(nestedObjects(5000), { status: 200 })) as typeof globalThis.fetch;
    const result = await resolveWeb('did:web:example.com', { fetch });
    expect(result.didResolutionMetadata.error).toBe('notFound');
    expect(String(result.didResolutionMetadata.message)).toMatch(/nest/);
  });
});
