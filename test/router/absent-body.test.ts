// DIDComm v2.1 §Plaintext Message Structure: "body - OPTIONAL". A message without one is accepted
// (plaintext.body-present is advice) and read by its protocol as having an empty body: each
// message type idsync handles, sent authenticated without a body, is handled or refused with a
// coded error and a rule, never failed as internal_error, and no body rule crashes on it.
import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { createMediator } from '../../src/mediator/mediator.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { mediationClientProtocol } from '../../src/protocols/coordinate-mediation.js';
import { DATA_PIPE, dataPipeProtocol } from '../../src/protocols/data-pipe.js';
import { ISSUE_CREDENTIAL, issueCredentialProtocol } from '../../src/protocols/issue-credential.js';
import { MESSAGE_PICKUP, messagePickupProtocol } from '../../src/protocols/message-pickup.js';
import { PRESENT_PROOF, presentProofProtocol } from '../../src/protocols/present-proof.js';
import { createRouter, type ProtocolModule } from '../../src/router/router.js';
import { openStore } from '../../src/store/store.js';
import { stubContext, stubJwe, stubPack, stubUnpack } from '../protocols/stub-envelope.js';

const ALICE = 'did:example:alice';
const BOB = 'did:example:bob';

/** No-op handlers for every message of a protocol: its parser (and so its body rules) still runs first. */
const noop = (types: Record<string, string>) => Object.fromEntries(Object.values(types).map((t) => [t.split('/').pop()!, async () => undefined]));

/** Two routers between them holding every protocol module idsync has: a mediator's, and its clients' and the twin's. */
async function routers() {
  const store = await openStore();
  const clock = new ManualClock();
  const ids = sequentialIds('m');
  const make = (...modules: ProtocolModule[]) =>
    createRouter({ envelope: stubContext, pack: stubPack, unpack: stubUnpack, clock, ids, myDids: [BOB], send: async () => undefined }).use(...basicProtocols(), ...modules);
  const mediator = createMediator({ store, clock, ids, did: () => BOB });
  return {
    store,
    all: [
      make(...mediator.protocols),
      make(
        mediationClientProtocol('2.0'),
        mediationClientProtocol('3.0'),
        messagePickupProtocol(noop(MESSAGE_PICKUP) as never, ['recipient']),
        dataPipeProtocol(noop(DATA_PIPE) as never),
        issueCredentialProtocol(noop(ISSUE_CREDENTIAL) as never),
        presentProofProtocol(noop(PRESENT_PROOF) as never),
      ),
    ],
  };
}

describe('a message without a body', () => {
  it('is handled or refused coded by every protocol, and no body rule crashes on it', async () => {
    const { all, store } = await routers();
    const outcomes: string[] = [];
    let n = 0;
    let count = 0;
    for (const router of all) for (const type of new Set(router.protocols().flatMap((p) => p.messageTypes))) {
      count++;
      const message = { id: `no-body-${n++}`, type, from: ALICE, to: [BOB], thid: 'some-thread', created_time: 1 };
      const r = await router.receive(stubJwe(message, `${BOB}#key-2`, `${ALICE}#key-2`));
      const crashed = (r.conformance ?? []).filter((c) => c.rule === 'conformance.rule-crashed');
      if (r.code === 'internal_error' || crashed.length) outcomes.push(`${type}: ${r.status} ${r.code} ${crashed.map((c) => c.detail).join('; ')}`);
      // The message stays as it came: the advice that it has no body is recorded.
      expect((r.conformance ?? []).some((c) => c.rule === 'plaintext.body-present' && !c.ok)).toBe(true);
    }
    expect(outcomes).toEqual([]);
    expect(count).toBeGreaterThan(40);
    await store.close();
  });
});
