import { describe, expect, it } from 'vitest';
import { jsonWithKeptText, keepJsonText, keptJsonText } from '../src/json-text.js';
import { openStore } from '../src/store/store.js';

describe('JSON text kept for an object', () => {
  it('is copied for a member, the other members written as JSON.stringify writes them', () => {
    const message = { id: 'm1', type: 't', body: { b: 1, a: 2 } };
    const text = '{"id":"m1","type":"t","body":{"a":2,"b":1}}';
    keepJsonText(message, text);
    expect(keptJsonText(message)).toBe(text);
    const record = { seq: 1, skip: undefined, fn: () => 1, message, to: ['x'], at: new Date(0), nested: { message } };
    const out = jsonWithKeptText(record)!;
    expect(out).toContain(`"message":${text}`);
    // Only direct members are looked up; deeper ones are written out as JSON does.
    expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(record)));
    // The other members in their order, the kept one after them.
    expect(Object.keys(JSON.parse(out))).toEqual(['seq', 'to', 'at', 'nested', 'message']);
    // Only kept members: nothing else to write.
    expect(jsonWithKeptText({ message })).toBe(`{"message":${text}}`);
  });

  it('writes a member named __proto__ as a member', () => {
    const m = { id: 'p' };
    keepJsonText(m, '{"id":"p"}');
    const value = JSON.parse('{"__proto__":{"x":1},"a":1}') as Record<string, unknown>;
    value.m = m;
    expect(JSON.parse(jsonWithKeptText(value)!)).toEqual(JSON.parse(JSON.stringify(value)));
    expect(jsonWithKeptText(value)).toContain('"__proto__":{"x":1}');
  });

  it('leaves to JSON.stringify what has no member with kept text', () => {
    expect(jsonWithKeptText({ a: { b: 1 } })).toBeUndefined();
    expect(jsonWithKeptText([{ a: 1 }])).toBeUndefined();
    expect(jsonWithKeptText('s')).toBeUndefined();
    expect(jsonWithKeptText(null)).toBeUndefined();
    const m = { id: 'x' };
    keepJsonText(m, '{"id":"x"}');
    expect(jsonWithKeptText({ toJSON: () => 1, m })).toBeUndefined();
  });

  it('is what the light store writes: a stored record reads back with the text as kept', async () => {
    const store = await openStore();
    const message = { id: 'm2', body: {} as Record<string, unknown> };
    keepJsonText(message, '{"id":"m2","body":{"sent":true}}');
    // Changed after its text was kept (what the router never does): the store writes the kept text.
    message.body.changed = true;
    await store.collection('c').put('k', { message, n: 1 });
    await store.batch([{ type: 'put', collection: 'c', key: 'k2', value: { message } }]);
    expect(await store.collection('c').get('k')).toEqual({ message: { id: 'm2', body: { sent: true } }, n: 1 });
    expect(await store.collection('c').get('k2')).toEqual({ message: { id: 'm2', body: { sent: true } } });
    await store.close();
  });
});
