// A handler's send is stored as the answer to the message it handles, also when handlers nest and
// end out of order: the delivery of one answer can carry the peer's next message in (an HTTP POST
// whose handling sends back over a new POST), and the outer handler may end before the inner one
// sends. The answer must name the inner message, or a replay of it after a crash finds no answer.
import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { createRouter, type HandlerContext } from '../../src/router/router.js';
import { openLightStore } from '../../src/store/light-store.js';
import { stubContext, stubJwe, stubPack, stubUnpack } from '../protocols/stub-envelope.js';

const ALICE = 'did:example:alice';
const BOB = 'did:example:bob';
const P = 'https://example.org/steps/1.0';
const fromAlice = (id: string, name: string) => stubJwe({ id, type: `${P}/${name}`, thid: 't-1', from: ALICE, to: [BOB], body: {} }, `${BOB}#key-2`, `${ALICE}#key-2`);

describe('nested handling', () => {
  it('stores the inner answer as answering the inner message, though the outer handler ended first', async () => {
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let inner: Promise<unknown> | undefined;
    const router = createRouter({
      envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock: new ManualClock(), ids: sequentialIds('b'), myDids: [BOB], send: async () => {},
      steps: { store: openLightStore(), collections: { states: 'steps', outs: 'steps-out' }, kind: () => 'retry' },
    }).use({
      piuri: P,
      handlers: {
        // The outer message's handling brings the inner one in, and ends before it is answered.
        outer: async () => {
          inner = router.receive(fromAlice('in-2', 'inner'));
        },
        inner: async (ctx: HandlerContext) => {
          await gate;
          await ctx.send({ type: `${P}/answer`, thid: 't-1', body: {} }, { to: ALICE });
        },
      },
    });
    expect((await router.receive(fromAlice('in-1', 'outer'))).status).toBe('handled');
    release();
    await inner;
    const record = await router.steps()!.get('t-1');
    expect(record?.out?.after).toBe('in-2');
    expect((await router.steps()!.answerFor({ id: 'in-2', type: `${P}/inner`, thid: 't-1', body: {} }))?.message.type).toBe(`${P}/answer`);
  });
});
