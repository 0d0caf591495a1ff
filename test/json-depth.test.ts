// json-depth.ts: nesting is measured on the text, outside strings, without recursion.
import { describe, expect, it } from 'vitest';
import { assertJsonDepth, jsonDepth, MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBounded } from '../src/json-depth.js';
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

  it('nestsDeeperThan agrees with the scan, also when brackets inside strings make a count exceed the bound', () => {
    const brackets = '{"a":"' + '['.repeat(100) + '","b":[' + '{}'.repeat(70) + ']}';
    for (const text of [nested(3), nested(64), nested(65), brackets, '{"a":1}', '"{{{{"', nestedObjects(64) + ' ', '[' + nested(64) + ']']) {
      for (const max of [0, 1, 3, 64]) expect(nestsDeeperThan(text, max), `${text.slice(0, 20)} ${max}`).toBe(jsonDepth(text, max) > max);
    }
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

describe('JSON nesting depth inside envelopes (native engine)', () => {
  it('refuses to unpack a message whose plaintext nests deeper than the bound, as didcomm_malformed', async () => {
    const { createPeerDid } = await import('../src/did/peer.js');
    const { pack, unpack } = await import('../src/didcomm/envelope/index.js');
    const { memorySecrets } = await import('../src/didcomm/secrets.js');
    const bob = createPeerDid({});
    const ctx = { resolve: async (d: string) => (d.startsWith(bob.did) ? bob.document : null), secrets: memorySecrets(bob.secrets) };
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH + 5; i++) deep = [deep];
    const message = { id: 'deep-1', typ: 'application/didcomm-plain+json', type: 'https://example.org/x/1.0/y', to: [bob.did], body: { deep } };
    const { packed } = await pack(message as never, { mode: 'anoncrypt', to: bob.did }, ctx);
    await expect(unpack(packed, ctx)).rejects.toMatchObject({ code: 'didcomm_malformed', message: expect.stringMatching(/nests more than 64/) });
    const shallow = await pack({ ...message, id: 'ok-1', body: {} } as never, { mode: 'anoncrypt', to: bob.did }, ctx);
    expect((await unpack(shallow.packed, ctx)).message.id).toBe('ok-1');
  });
});
