// The plaintext's wire layout (jwm.ts) is written directly for JSON data and built from sorted
// copies for anything else; both must give the same text for every message, or a peer would
// see the bytes change with the shape of a body.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutPlaintext, serializePlaintext } from '../../src/didcomm/envelope/jwm.js';
import type { PlainMessage } from '../../src/didcomm/types.js';

const HEADERS = ['id', 'typ', 'type', 'body', 'from', 'to', 'thid', 'pthid', 'created_time', 'expires_time', 'from_prior', 'ext', 'zz', '__proto__', '10', 'é'];

describe('plaintext layout', () => {
  it('the direct writer gives the layout of the sorted copies, for any values under any headers', () => {
    const value = fc.oneof(
      fc.jsonValue(),
      fc.anything({ withBoxedValues: true, withDate: true, withMap: true, withNullPrototype: true, withObjectString: true, withSparseArray: true, withTypedArray: true, maxDepth: 3 }),
      fc.constant(undefined),
      fc.constant(null),
      fc.constant(() => 1),
    );
    // Attachments as senders make them (data first among known members), and with odd members and values.
    const data = fc.oneof(fc.dictionary(fc.constantFrom('base64', 'json', 'links', 'hash', 'jws', 'z', '__proto__', '7'), value, { maxKeys: 4 }), value);
    const attachment = fc.oneof(
      fc.dictionary(fc.constantFrom('data', 'id', 'description', 'filename', 'media_type', 'format', 'lastmod_time', 'byte_count', 'x', 'é', '__proto__', '1'), fc.oneof(data, value), { maxKeys: 6 }),
      fc.record({ id: fc.string(), media_type: fc.constant('application/json'), data: fc.record({ json: fc.jsonValue() }) }),
      value,
    );
    const message = fc.oneof(
      fc.dictionary(fc.constantFrom(...HEADERS), value, { maxKeys: 10 }),
      fc.tuple(fc.dictionary(fc.constantFrom(...HEADERS), value, { maxKeys: 8 }), fc.oneof(fc.array(attachment, { maxLength: 3 }), value)).map(([m, attachments]) => ({ ...m, attachments })),
    );
    fc.assert(
      fc.property(message, (m) => {
        const input = m as unknown as PlainMessage;
        let expected: string | Error;
        try {
          expected = layoutPlaintext(input);
        } catch (err) {
          expected = err as Error;
        }
        if (expected instanceof Error) expect(() => serializePlaintext(input)).toThrow(expected.constructor as ErrorConstructor);
        else expect(serializePlaintext(input)).toBe(expected);
      }),
      { numRuns: 1500 },
    );
  });

  it('the usual message, and the cases that leave the direct path (typ null, attachments, toJSON, functions)', () => {
    const base = { id: 'm-1', type: 'https://didcomm.org/basicmessage/2.0/message', from: 'did:example:a', to: ['did:example:b'], created_time: 1, body: { z: 1, a: [{ y: 2, b: null }], é: 'x' } };
    const cases: Record<string, unknown>[] = [
      base,
      { ...base, typ: null },
      { ...base, attachments: [{ id: 'a', data: { json: { b: 1, a: 2 } } }] },
      { ...base, attachments: [{ format: 'f', zz: [1, { b: 2, a: 1 }], id: 'a', media_type: 'application/json', data: { links: ['x'], json: { b: 1, a: 2 }, q: 1 } }, { id: 'b', data: 'x' }] },
      { ...base, attachments: [{ id: 'a', data: { json: new Date(0) } }] },
      { ...base, attachments: [{ id: 'a', data: new Date(0) }] },
      { ...base, attachments: [new Date(0)] },
      { ...base, attachments: [{ id: 'a', data: { json: 1 }, f: () => 1 }] },
      { ...base, attachments: { id: 'a' } },
      { ...base, attachments: null },
      { ...base, body: { when: new Date(0) } },
      { ...base, ext: () => 1 },
      { ...base, created_time: { b: 1, a: 2 } },
    ];
    expect(serializePlaintext(base as PlainMessage)).toBe(
      '{"id":"m-1","typ":"application/didcomm-plain+json","type":"https://didcomm.org/basicmessage/2.0/message","body":{"a":[{"b":null,"y":2}],"z":1,"é":"x"},"from":"did:example:a","to":["did:example:b"],"created_time":1}',
    );
    for (const m of cases) expect(serializePlaintext(m as PlainMessage)).toBe(layoutPlaintext(m as PlainMessage));
  });
});
