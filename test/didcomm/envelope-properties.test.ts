// Properties of the envelope engines over random bodies, recipient sets, key types and modes
// (fast-check): what one engine packs the other unpacks to the same message and metadata, or
// both refuse it with the same code; the native engine round-trips on every curve; and no
// mangling of a packed message makes the native engine throw anything but a coded IdsyncError.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIdsyncError } from '../../src/errors.js';
import { pack, unpack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import type { AnoncryptEnc, EnvelopeContext, EnvelopeEngine, EnvelopeMode, PlainMessage, UnpackMetadata } from '../../src/didcomm/types.js';
import { mapResolver } from './envelope-fixtures.js';
import { ALL_AGREEMENT, curveParty, SHARED_AGREEMENT, SHARED_SIGNING, type AgreementCurve, type SigningCurve } from './envelope-parties.js';

const MODES: EnvelopeMode[] = ['signed', 'anoncrypt', 'authcrypt', 'anoncrypt-signed', 'anoncrypt-authcrypt', 'authcrypt-signed'];
const ENCS: AnoncryptEnc[] = ['A256CBC-HS512', 'A256GCM', 'XC20P'];

// JSON as it survives a round trip through any JSON implementation: -0 becomes 0.
const normal = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

// didcomm-node reads JSON numbers with serde_json's fast float parser, which can be one unit in
// the last place off for long mantissas with large exponents (-7.772306976377484e+223 came back
// as …483e+223): the oracle itself changes such a body. So bodies keep to numbers every parser
// reads exactly; the native engine keeps any double (JSON.parse/stringify round-trip).
const key = fc.string({ unit: 'grapheme', maxLength: 12 });
const leaf = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 24 }),
  fc.integer(),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((x) => Math.round(x * 1000) / 1000),
  fc.boolean(),
  fc.constant(null),
);
const body = fc.dictionary(key, fc.oneof(leaf, fc.array(leaf, { maxLength: 4 }), fc.dictionary(key, fc.oneof(leaf, fc.array(leaf, { maxLength: 3 })), { maxKeys: 4 })), { maxKeys: 6 });

function scenario(agreement: readonly AgreementCurve[]) {
  return fc.record({
    body,
    mode: fc.constantFrom(...MODES),
    enc: fc.constantFrom(...ENCS),
    sender: fc.array(fc.constantFrom(...agreement), { minLength: 1, maxLength: 2 }),
    recipients: fc.array(fc.constantFrom(...agreement), { minLength: 1, maxLength: 4 }),
    signing: fc.constantFrom(...SHARED_SIGNING),
  });
}

function setup(s: { sender: AgreementCurve[]; recipients: AgreementCurve[]; signing: SigningCurve }) {
  const alice = curveParty('alice', { agreement: s.sender, signing: [s.signing] });
  const bob = curveParty('bob', { agreement: s.recipients });
  const resolve = mapResolver([alice.doc, bob.doc]);
  const ctx = (p: { secrets: typeof alice.secrets }, engine: EnvelopeEngine): EnvelopeContext => ({ resolve, secrets: memorySecrets(p.secrets), engine });
  return { alice, bob, ctx };
}

let n = 0;
function message(from: string, to: string, b: Record<string, unknown>): PlainMessage {
  n += 1;
  return { id: `prop-${n}`, type: 'https://example.com/protocols/prop/1.0/x', from, to: [to], body: b };
}

const withoutNotes = ({ notes: _notes, ...rest }: UnpackMetadata) => rest;

async function outcome<T>(p: Promise<T>): Promise<{ ok: T } | { code: string }> {
  try {
    return { ok: await p };
  } catch (err) {
    if (!isIdsyncError(err)) throw err;
    return { code: err.code };
  }
}

// A fixed seed keeps `npm test` reproducible; FUZZ_SEED picks another for longer hunts. (A
// full-suite run once hung in this file: not a seed but a Node 20 deadlock in exporting generated
// keys, which the parties' key generation now avoids — see envelope-parties.ts jwkPair.)
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);

describe('engine properties (fast-check)', () => {
  it('what one engine packs the other unpacks to the same message and metadata, or both refuse alike', async () => {
    await fc.assert(
      fc.asyncProperty(scenario(SHARED_AGREEMENT), fc.boolean(), async (s, nativePacks) => {
        const [packer, unpacker]: EnvelopeEngine[] = nativePacks ? ['native', 'didcomm-node'] : ['didcomm-node', 'native'];
        const { alice, bob, ctx } = setup(s);
        const m = message(alice.did, bob.did, s.body);
        const packed = await outcome(pack(m, { mode: s.mode, encAlgAnon: s.enc }, ctx(alice, packer)));
        const other = await outcome(pack(m, { mode: s.mode, encAlgAnon: s.enc }, ctx(alice, unpacker)));
        if (!('ok' in packed)) {
          // e.g. no sender key shares a curve with a recipient key: both engines refuse, same code.
          expect(other).toEqual(packed);
          return;
        }
        expect('ok' in other).toBe(true);
        const theirs = await unpack(packed.ok.packed, ctx(bob, unpacker));
        const ours = await unpack(packed.ok.packed, ctx(bob, packer));
        expect(normal(theirs.message.body)).toEqual(normal(s.body));
        expect(theirs.message.id).toBe(m.id);
        expect(withoutNotes(theirs.metadata)).toEqual(withoutNotes(ours.metadata));
      }),
      { numRuns: 60, seed: SEED },
    );
  });

  it('the native engine round-trips on every DIDComm curve, P-384 and P-521 included', async () => {
    await fc.assert(
      fc.asyncProperty(scenario(ALL_AGREEMENT), async (s) => {
        const { alice, bob, ctx } = setup(s);
        const m = message(alice.did, bob.did, s.body);
        const packed = await outcome(pack(m, { mode: s.mode, encAlgAnon: s.enc }, ctx(alice, 'native')));
        if (!('ok' in packed)) {
          // Only when no sender key agrees on a curve with a recipient key.
          expect(packed.code).toBe('didcomm_unsupported');
          expect(s.mode.includes('authcrypt') && !s.sender.some((c) => s.recipients.includes(c))).toBe(true);
          return;
        }
        const { message: got, metadata } = await unpack(packed.ok.packed, ctx(bob, 'native'));
        expect(normal(got.body)).toEqual(normal(s.body));
        expect(metadata.mode).toBe(s.mode);
        // Recipients are every key of Bob's on the curve chosen: the first usable one (anoncrypt) or
        // the sender's first that Bob also has (authcrypt).
        if (s.mode !== 'signed') {
          const curve = s.mode.includes('authcrypt') ? s.sender.find((c) => s.recipients.includes(c)) : s.recipients[0];
          expect(metadata.encryptedToKids).toEqual(bob.agreementKids.filter((_, i) => s.recipients[i] === curve));
        }
      }),
      { numRuns: 40, seed: SEED },
    );
  });

  it('no change to a packed message makes the native engine throw anything but a coded error', async () => {
    const { alice, bob, ctx } = setup({ sender: ['X25519'], recipients: ['X25519', 'P-256'], signing: 'Ed25519' });
    const samples = await Promise.all(
      MODES.map(async (mode) => (await pack(message(alice.did, bob.did, { a: 1 }), { mode }, ctx(alice, 'native'))).packed),
    );
    const CODES = new Set(['didcomm_malformed', 'didcomm_unsupported', 'did_not_resolved', 'secret_not_found', 'sender_mismatch']);
    const mutation = fc.record({
      sample: fc.nat({ max: samples.length - 1 }),
      at: fc.nat(),
      kind: fc.constantFrom('flip', 'delete', 'insert', 'member'),
      junk: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string()),
    });
    await fc.assert(
      fc.asyncProperty(mutation, async ({ sample, at, kind, junk }) => {
        const base = samples[sample]!;
        let mangled: string;
        if (kind === 'member') {
          // Replace one member (at any depth of the outer JSON) with junk.
          const v = JSON.parse(base) as Record<string, unknown>;
          const keys = Object.keys(v);
          v[keys[at % keys.length]!] = junk;
          mangled = JSON.stringify(v);
        } else {
          const i = at % base.length;
          const c = base[i]!;
          const swapped = c === 'A' ? 'B' : c === '"' ? "'" : 'A';
          mangled = kind === 'flip' ? base.slice(0, i) + swapped + base.slice(i + 1) : kind === 'delete' ? base.slice(0, i) + base.slice(i + 1) : base.slice(0, i) + JSON.stringify(junk) + base.slice(i);
        }
        const got = await outcome(unpack(mangled, ctx(bob, 'native')));
        if ('code' in got) expect(CODES, got.code).toContain(got.code);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300), seed: SEED },
    );
  });
});
