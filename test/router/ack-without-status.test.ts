// WACI-DIDComm §Ack: "The `body` property of an `Acknowledgement` message MUST contain a `status`
// property." WACI's own present-proof vector acks with `body: {}`. A router (strict, as idsync's
// agents run) judges such an ack as breaking that MUST and still hands it to its handler, which
// reads it as OK; an ack whose status is a word outside OK/PENDING/FAIL is refused.
import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { PRESENT_PROOF, presentProofProtocol } from '../../src/protocols/present-proof.js';
import type { ParsedAck } from '../../src/protocols/ack.js';
import { createRouter } from '../../src/router/router.js';
import { stubContext, stubJwe, stubPack, stubUnpack } from '../protocols/stub-envelope.js';

const ALICE = 'did:example:alice';
const BOB = 'did:example:bob';

function verifierSide() {
  const acks: ParsedAck[] = [];
  const router = createRouter({ envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock: new ManualClock(), ids: sequentialIds('m'), myDids: [BOB], send: async () => undefined })
    .use(presentProofProtocol({ ack: async (_h: unknown, ack: ParsedAck) => void acks.push(ack) } as never));
  return { router, acks };
}

const ack = (id: string, body: Record<string, unknown>) => stubJwe({ id, type: PRESENT_PROOF.ack, from: ALICE, to: [BOB], thid: 'presentation-1', created_time: 1, body }, `${BOB}#key-2`, `${ALICE}#key-2`);

describe('an ack without status', () => {
  it('is handled as OK, with the broken MUST in its verdicts', async () => {
    const { router, acks } = verifierSide();
    const r = await router.receive(ack('a-1', {}));
    expect(r.status).toBe('handled');
    expect(acks).toEqual([{ thid: 'presentation-1', status: 'OK' }]);
    expect((r.conformance ?? []).filter((c) => !c.ok).map((c) => `${c.severity}:${c.rule}`)).toContain('error:present-proof.ack.status-present');
  });

  it('is refused when its status is not one of OK, PENDING, FAIL', async () => {
    const { router, acks } = verifierSide();
    const r = await router.receive(ack('a-2', { status: 'DONE' }));
    expect(r.status).toBe('rejected');
    expect(acks).toEqual([]);
  });
});
