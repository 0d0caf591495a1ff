// What idsync packs by default passes its own conformance check, in every mode and with both
// engines: no MUST of the envelope rules fails on its own outgoing messages. DIDComm v2.1 §IANA
// Media Types: "However, in the set of envelopes that targets a single hop, envelope combinations
// other than the ones above MUST NOT be used. In particular, it makes no sense to use
// anoncrypt(authcrypt(sign(plaintext))); use anoncrypt(sign(plaintext)) instead." Only an explicit
// protectSender: true packs that combination, and the check then fails it.
import { describe, expect, it } from 'vitest';
import { checkMessage } from '../../src/conformance/registry.js';
import { errorsOf } from '../../src/conformance/types.js';
import { ManualClock } from '../../src/clock.js';
import { pack, unpack } from '../../src/didcomm/envelope/index.js';
import { createRouter } from '../../src/router/router.js';
import { ENVELOPE_ENGINES, type EnvelopeMode } from '../../src/didcomm/types.js';
import { contextFor, makeParty, mapResolver, message } from '../didcomm/envelope-fixtures.js';

const alice = makeParty('alice');
const bob = makeParty('bob');
const resolve = mapResolver([alice.doc, bob.doc]);
const MODES: EnvelopeMode[] = ['plaintext', 'signed', 'anoncrypt', 'anoncrypt-signed', 'authcrypt', 'anoncrypt-authcrypt', 'authcrypt-signed'];
/** Modes that authenticate no sender carry no `from` (§Message Layer Addressing Consistency). */
const anonymous = (mode: EnvelopeMode) => mode === 'plaintext' || mode === 'anoncrypt';

async function errorsOfOwn(mode: EnvelopeMode, engine: (typeof ENVELOPE_ENGINES)[number], protectSender?: boolean): Promise<string[]> {
  const m = message(anonymous(mode) ? undefined : alice, bob);
  const { packed } = await pack(m, { mode, to: bob.did, ...(protectSender === undefined ? {} : { protectSender }) }, { ...contextFor(alice, resolve), engine });
  const { message: got, metadata } = await unpack(packed, { ...contextFor(bob, resolve), engine: 'native' });
  return errorsOf(checkMessage(got, metadata, { packed })).map((r) => r.rule);
}

describe("idsync's own outgoing envelopes against its conformance check", () => {
  for (const engine of ENVELOPE_ENGINES) {
    it(`${engine}: every mode packed with its defaults breaks no MUST`, async () => {
      for (const mode of MODES) expect(await errorsOfOwn(mode, engine), mode).toEqual([]);
    });

    it(`${engine}: authcrypt-signed with protectSender: true is anoncrypt(authcrypt(sign(plaintext))), which fails envelope.nesting-protected-signed`, async () => {
      expect(await errorsOfOwn('authcrypt-signed', engine, true)).toEqual(['envelope.nesting-protected-signed']);
      expect(await errorsOfOwn('authcrypt-signed', engine, false)).toEqual([]);
    });
  }

  it('an agent in strict mode refuses anoncrypt(authcrypt(sign(plaintext))) as it does any broken MUST; a liberal one reads it and logs the rule', async () => {
    const { packed } = await pack(message(alice, bob), { mode: 'authcrypt-signed', protectSender: true }, contextFor(alice, resolve));
    const receive = (strict: boolean) => createRouter({ envelope: contextFor(bob, resolve), clock: new ManualClock(Date.parse('2024-01-01T00:00:00Z')), strict }).receive(packed);
    const strict = await receive(true);
    expect(strict).toMatchObject({ status: 'rejected', code: 'envelope_nonconformant' });
    const liberal = await receive(false);
    expect(liberal.status).not.toBe('rejected');
    expect(liberal.message?.id).toBeDefined();
    for (const r of [strict, liberal]) expect(errorsOf(r.conformance).map((x) => x.rule)).toEqual(['envelope.nesting-protected-signed']);
  });
});
