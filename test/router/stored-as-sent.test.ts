// An outgoing message is stored as it was packed: its thread's last message (the durable steps)
// and its message log record hold the plaintext the engine wrote into the envelope, copied from
// the engine's text (json-text.ts), not written out again from the object. A received one is
// logged from the text the engine opened.
import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { serializePlaintext } from '../../src/didcomm/envelope/jwm.js';
import { createRouter } from '../../src/router/router.js';
import type { PackFn } from '../../src/router/types.js';
import { lightStoreText, openLightStore } from '../../src/store/light-store.js';
import type { UnpackFn } from '../../src/router/types.js';
import { MESSAGES_COLLECTION, messageLog } from '../../src/store/messages.js';
import { stubContext, stubJwe, stubPack, stubUnpack } from '../protocols/stub-envelope.js';

const ALICE = 'did:example:alice';
const BOB = 'did:example:bob';
const P = 'https://example.org/stored/1.0';

describe('an outgoing message as stored', () => {
  it('is the plaintext as packed, in the step record and in the message log', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    const wire: string[] = [];
    // The stub engine reports the plaintext it "wrote", as the native engine does (native-pack.ts).
    const pack: PackFn = async (message, options, ctx) => {
      const plaintext = serializePlaintext(message);
      wire.push(plaintext);
      return { ...(await stubPack(message, options, ctx)), plaintext };
    };
    const router = createRouter({
      envelope: stubContext, pack, unpack: stubUnpack, clock, ids: sequentialIds('b'), myDids: [BOB], send: async () => {},
      log: messageLog(store, clock),
      steps: { store, collections: { states: 'steps', outs: 'steps-out' }, kind: () => 'retry' },
    });
    // Members given out of the wire's order (the wire sorts a body's members, and puts id first).
    await router.send({ type: `${P}/note`, thid: 't-1', body: { z: 1, a: { y: 2, b: 3 } } }, { to: ALICE });
    expect(wire).toHaveLength(1);

    const [step] = await store.collection<{ message: unknown }>('steps-out').list();
    const [logged] = await store.collection<{ message: unknown }>(MESSAGES_COLLECTION).list();
    for (const stored of [step!.value.message, logged!.value.message]) {
      // Read back member for member in the wire's order: the engine's text, not the object's.
      expect(JSON.stringify(stored)).toBe(wire[0]);
    }
    // And a resend packs the stored copy to the same bytes.
    expect(serializePlaintext(step!.value.message as never)).toBe(wire[0]);
  });

  it('is logged on arrival as the text the engine opened', async () => {
    const store = openLightStore();
    const clock = new ManualClock();
    // What the engine decrypted, spaced as no JSON.stringify writes it.
    const text = `{"id": "in-1", "type": "${P}/note", "from": "${ALICE}", "to": ["${BOB}"], "body": {"z": 1, "a": 2}}`;
    const unpack: UnpackFn = async (packed, ctx, parsed) => {
      const result = await stubUnpack(packed, ctx, parsed);
      return Object.defineProperty(result, 'plaintext', { value: text });
    };
    const router = createRouter({
      envelope: stubContext, pack: stubPack, unpack, clock, ids: sequentialIds('b'), myDids: [BOB], send: async () => {},
      log: messageLog(store, clock),
    });
    await router.receive(stubJwe(JSON.parse(text), `${BOB}#key-2`, `${ALICE}#key-2`));
    const [[, entries]] = lightStoreText(store, [MESSAGES_COLLECTION])!;
    expect(entries).toHaveLength(1);
    expect(entries[0]![1]).toContain(`"message":${text}`);
  });
});
