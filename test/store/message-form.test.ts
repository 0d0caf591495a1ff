// The message log's stored form (src/store/message-form.ts): smaller than a record, and read back
// as the very record that was written, through every read of the log, in memory and on disk.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { fail, note, pass } from '../../src/conformance/types.js';
import { createIonDid } from '../../src/did/ion.js';
import { MESSAGES_COLLECTION, MESSAGES_OUTCOME_COLLECTION, messageLog, type MessageRecord } from '../../src/store/messages.js';
import { openStore, type Store } from '../../src/store/store.js';

const holder = createIonDid({ endpoint: 'memory://holder' }).did;
const SERVICE = 'did:web:service.example';

/** An inbound record as the router makes it: headers from the plaintext, results as conformance makes them. */
function inbound(id = 'm-1'): Omit<MessageRecord, 'at'> {
  const message = { id, type: 'https://didcomm.org/present-proof/3.0/presentation', thid: 't-1', pthid: 'p-1', from: holder, to: [SERVICE], body: { x: 1 } };
  return {
    id, direction: 'in', type: message.type, thid: message.thid, pthid: message.pthid, from: message.from, to: message.to, mode: 'authcrypt', size: 4_000,
    result: 'received', transport: 'http', message,
    conformance: [
      pass('envelope', 'envelope.alg'), pass('plaintext', 'plaintext.id'), pass('protocol', 'present-proof.presentation.thid'),
      note('envelope', 'envelope.jws-form', 'flattened JWS accepted'), fail('oob', 'oob.url-scheme', 'invitation URLs should use https'),
      pass('plaintext', 'plaintext.created_time'),
    ],
  };
}

const stores: { name: string; open: () => Promise<{ store: Store; close: () => Promise<void> }> }[] = [
  { name: 'memory', open: async () => { const store = await openStore(); return { store, close: () => store.close() }; } },
  {
    name: 'leveldb',
    open: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'idsync-form-'));
      const store = await openStore({ path: dir });
      return { store, close: async () => { await store.close(); await rm(dir, { recursive: true, force: true }); } };
    },
  },
];

for (const s of stores) {
  describe(`message log stored form (${s.name})`, () => {
    let close: (() => Promise<void>) | undefined;
    afterEach(async () => {
      await close?.();
      close = undefined;
    });
    const open = async () => {
      const o = await s.open();
      close = o.close;
      return o.store;
    };

    it('stores the DID once and passed results in short, and reads back the record written, key order included', async () => {
      const store = await open();
      const log = messageLog(store, new ManualClock());
      const written = await log.record(inbound());
      const raw = (await store.collection<Record<string, unknown>>(MESSAGES_COLLECTION).get(written.seq))!;
      expect(raw).toMatchObject({ from: 0, to: 0, type: 0, pthid: 0, thid: 't-1', id: 'm-1' });
      expect(raw.conformance).toEqual([
        'Ee:envelope.alg', 'Ep:plaintext.id', expect.any(String), note('envelope', 'envelope.jws-form', 'flattened JWS accepted'),
        fail('oob', 'oob.url-scheme', 'invitation URLs should use https'), 'Ap:plaintext.created_time',
      ]);
      const text = JSON.stringify(raw);
      expect(text.split(holder).length - 1).toBe(1);
      expect(text.length).toBeLessThan(JSON.stringify({ ...inbound(), at: written.at }).length - holder.length - 200);

      // A second log over the store remembers nothing: every read decodes.
      const reader = messageLog(store, new ManualClock());
      const want = JSON.stringify(written);
      expect(JSON.stringify(await reader.get(written.seq))).toBe(want);
      expect((await reader.list()).map((r) => JSON.stringify(r))).toEqual([want]);
      expect((await reader.list({ thid: 't-1' })).map((r) => JSON.stringify(r))).toEqual([want]);
      expect((await reader.list({ direction: 'in', reverse: true })).map((r) => JSON.stringify(r))).toEqual([want]);
    });

    it('stores the results an update adds in short too, and merges them back on read', async () => {
      const store = await open();
      const log = messageLog(store, new ManualClock());
      const written = await log.record(inbound());
      const added = [pass('protocol', 'present-proof.presentation.challenge'), fail('protocol', 'present-proof.presentation.domain', 'no domain')];
      const done = await log.update(written.seq, { result: 'accepted', conformance: [...written.conformance!, ...added] });
      const outcome = await store.collection<Record<string, unknown>>(MESSAGES_OUTCOME_COLLECTION).get(written.seq);
      expect(outcome).toEqual({ result: 'accepted', conformanceAdded: ['Er:present-proof.presentation.challenge', added[1]] });
      const reader = messageLog(store, new ManualClock());
      expect(await reader.get(written.seq)).toEqual(done);
      expect(await reader.list()).toEqual([done]);
      // A rewrite (the plaintext changed) stores the whole record in the same form.
      const rewritten = await reader.update(written.seq, { message: { ...written.message, body: {} } });
      expect(await messageLog(store, new ManualClock()).get(written.seq)).toEqual(rewritten);
      expect((await store.collection<Record<string, unknown>>(MESSAGES_COLLECTION).get(written.seq))!.from).toBe(0);
    });

    it('keeps whole what is not a plain passed result, and headers that are not the plaintext\'s', async () => {
      const store = await open();
      const log = messageLog(store, new ManualClock());
      const odd = [
        { rule: 'plaintext.id', ok: true },
        { rule: 'plaintext.id', ok: true, severity: 'error' as const, layer: 'transport' },
        { rule: 'plaintext.id', ok: true, severity: 'fatal' as never, layer: 'plaintext' },
      ];
      const rec = { ...inbound('m-2'), from: 'did:example:other', to: [SERVICE, 'did:example:b'], conformance: odd };
      const written = await log.record(rec);
      const raw = (await store.collection<Record<string, unknown>>(MESSAGES_COLLECTION).get(written.seq))!;
      expect(raw).toMatchObject({ from: 'did:example:other', to: [SERVICE, 'did:example:b'], type: 0, conformance: odd });
      expect(await messageLog(store, new ManualClock()).get(written.seq)).toEqual(written);
    });

    it('reads records stored before the short form as they were written', async () => {
      const store = await open();
      const whole = { ...inbound('m-3'), at: '2026-01-01T00:00:00.000Z' };
      await store.batch([
        { type: 'put', collection: MESSAGES_COLLECTION, key: '001700000000000-000000', value: whole },
        { type: 'put', collection: 'messages-by-thread', key: 't-1\u0000001700000000000-000000', value: '001700000000000-000000' },
        { type: 'put', collection: MESSAGES_OUTCOME_COLLECTION, key: '001700000000000-000000', value: { result: 'accepted', conformanceAdded: [pass('protocol', 'x.y')] } },
      ]);
      const log = messageLog(store, new ManualClock());
      const want = { ...whole, result: 'accepted', conformance: [...whole.conformance!, pass('protocol', 'x.y')], seq: '001700000000000-000000' };
      expect(await log.get('001700000000000-000000')).toEqual(want);
      expect(await log.list({ thid: 't-1' })).toEqual([want]);
    });

    it('gives a reader its own `to` list, not the plaintext\'s', async () => {
      const store = await open();
      const written = await messageLog(store, new ManualClock()).record(inbound('m-4'));
      const read = (await messageLog(store, new ManualClock()).get(written.seq))!;
      read.to!.push('did:example:changed');
      expect(read.message.to).toEqual([SERVICE]);
    });
  });
}
