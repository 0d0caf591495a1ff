// Every refused message is logged with the rule and the detail that refused it: a signed or
// encrypted envelope the envelope layer refuses (its error names the rule in details.rule) is
// logged as undecryptable with that rule as a failed conformance result, the same rule `message
// check` names, and refusals after unpacking (a replay, a broken MUST) with their code and rule.
import { describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { MEDIA_TYPES, type EnvelopeContext } from '../../src/didcomm/types.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import { createRouter } from '../../src/router/router.js';
import { messageLog } from '../../src/store/messages.js';
import { openStore } from '../../src/store/store.js';
import { mapResolver } from '../didcomm/envelope-fixtures.js';
import { curveParty } from '../didcomm/envelope-parties.js';

const alice = curveParty('alice', { signing: ['Ed25519'] });
const bob = curveParty('bob');
const resolve = mapResolver([alice.doc, bob.doc]);
const ctx = (secrets: typeof alice.secrets): EnvelopeContext => ({ resolve, secrets: memorySecrets(secrets) });

async function bobRouter() {
  const store = await openStore();
  const log = messageLog(store, new ManualClock());
  const router = createRouter({ envelope: ctx(bob.secrets), clock: new ManualClock(), ids: sequentialIds('b'), myDids: [bob.did], send: async () => {}, log }).use(...basicProtocols());
  return { store, log, router };
}

const ping = (id: string) => ({ id, typ: MEDIA_TYPES.plaintext, type: TRUST_PING.ping, from: alice.did, to: [bob.did], body: { response_requested: false } });

describe('refusals are logged with their rule', () => {
  it('logs a signed envelope with a header in both the protected and the unprotected header with envelope.jws-header-disjoint', async () => {
    const { store, log, router } = await bobRouter();
    const { packed } = await pack(ping('p-1'), { mode: 'signed' }, ctx(alice.secrets));
    const jws = JSON.parse(packed);
    const sig = jws.signatures[0];
    const h = JSON.parse(Buffer.from(sig.protected, 'base64url').toString());
    const twice = JSON.stringify({ ...jws, signatures: [{ ...sig, protected: Buffer.from(JSON.stringify({ ...h, kid: sig.header.kid })).toString('base64url') }] });
    const result = await router.receive(twice);
    expect(result.status).toBe('undecryptable');
    const [rec] = await log.list();
    expect(rec).toMatchObject({ result: 'undecryptable', errorCode: 'didcomm_malformed', rule: 'envelope.jws-header-disjoint' });
    expect(rec!.conformance).toContainEqual(expect.objectContaining({ rule: 'envelope.jws-header-disjoint', ok: false, severity: 'error', detail: expect.stringContaining('both the protected and the unprotected header') }));
    await store.close();
  });

  it('logs a replay with its code and plaintext.id-replayed', async () => {
    const { store, log, router } = await bobRouter();
    const { packed } = await pack(ping('p-2'), { mode: 'signed' }, ctx(alice.secrets));
    expect((await router.receive(packed)).status).toBe('handled');
    expect((await router.receive(packed)).status).toBe('duplicate');
    const recs = await log.list({ direction: 'in' });
    expect(recs.at(-1)).toMatchObject({ result: 'duplicate', errorCode: 'duplicate_message', rule: 'plaintext.id-replayed' });
    expect(recs[0]).not.toHaveProperty('rule');
    await store.close();
  });
});
