// The native engine against didcomm-node, the implementation we did not write: for every mode ×
// key agreement curve × content encryption × signature algorithm both support, a message packed
// by one engine unpacks with the other to the same message and the same metadata, both ways.
// Forwards, wrapInForward and from_prior likewise; and where the bytes are deterministic (a
// signed message) both engines write the same bytes.
import { describe, expect, it } from 'vitest';
import { pack, packFromPrior, parseForward, unpack, wrapInForward } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { MEDIA_TYPES, type AnoncryptEnc, type EnvelopeContext, type EnvelopeEngine, type EnvelopeMode, type PlainMessage, type UnpackMetadata } from '../../src/didcomm/types.js';
import { mapResolver } from './envelope-fixtures.js';
import { curveParty, SHARED_AGREEMENT, SHARED_SIGNING, type AgreementCurve, type SigningCurve } from './envelope-parties.js';

const ENCS: AnoncryptEnc[] = ['A256CBC-HS512', 'A256GCM', 'XC20P'];
const OTHER: Record<EnvelopeEngine, EnvelopeEngine> = { native: 'didcomm-node', 'didcomm-node': 'native' };
const DIRECTIONS: [EnvelopeEngine, EnvelopeEngine][] = [
  ['native', 'didcomm-node'],
  ['didcomm-node', 'native'],
];

interface Case {
  mode: EnvelopeMode;
  agreement: AgreementCurve;
  signing: SigningCurve;
  enc?: AnoncryptEnc;
  protectSender?: boolean;
}

const signs = (m: EnvelopeMode) => m === 'signed' || m === 'anoncrypt-signed' || m === 'authcrypt-signed';
const hasAnonLayer = (c: Case) => c.mode === 'anoncrypt' || c.mode === 'anoncrypt-signed' || c.mode === 'anoncrypt-authcrypt' || (c.mode === 'authcrypt-signed' && c.protectSender === true);

function cases(): Case[] {
  const out: Case[] = [];
  const modes: { mode: EnvelopeMode; protectSender?: boolean }[] = [
    { mode: 'signed' },
    { mode: 'anoncrypt' },
    { mode: 'authcrypt' },
    { mode: 'anoncrypt-signed' },
    { mode: 'anoncrypt-authcrypt' },
    { mode: 'authcrypt-signed' },
    // anoncrypt(authcrypt(sign(plaintext))), which §IANA Media Types forbids: both engines still agree on it.
    { mode: 'authcrypt-signed', protectSender: true },
  ];
  for (const m of modes) {
    for (const agreement of m.mode === 'signed' ? (['X25519'] as AgreementCurve[]) : SHARED_AGREEMENT) {
      for (const signing of signs(m.mode) ? SHARED_SIGNING : (['Ed25519'] as SigningCurve[])) {
        const c: Case = { ...m, agreement, signing };
        for (const enc of hasAnonLayer(c) ? ENCS : [undefined]) out.push({ ...c, ...(enc ? { enc } : {}) });
      }
    }
  }
  return out;
}

const label = (c: Case) =>
  [c.mode, c.protectSender ? 'protected' : '', c.mode === 'signed' ? '' : c.agreement, signs(c.mode) ? c.signing : '', c.enc ?? ''].filter(Boolean).join(' ');

/** Metadata as both engines must report it; notes are the native engine's own. */
function comparable(md: UnpackMetadata): UnpackMetadata {
  const { notes: _notes, ...rest } = md;
  return rest;
}

function world(c: Pick<Case, 'agreement' | 'signing'>, bobAgreement: AgreementCurve[] = [c.agreement, c.agreement]) {
  const alice = curveParty('alice', { agreement: [c.agreement], signing: [c.signing] });
  // Two keys for Bob: every JWE has several recipients.
  const bob = curveParty('bob', { agreement: bobAgreement, signing: ['Ed25519'] });
  const resolve = mapResolver([alice.doc, bob.doc]);
  const ctx = (p: { secrets: typeof alice.secrets }, engine: EnvelopeEngine): EnvelopeContext => ({ resolve, secrets: memorySecrets(p.secrets), engine });
  return { alice, bob, ctx };
}

let n = 0;
function message(from: string, to: string): PlainMessage {
  n += 1;
  return {
    id: `diff-${n}`,
    type: 'https://example.com/protocols/diff/1.0/hello',
    from,
    to: [to],
    thid: 'thread-1',
    created_time: 1_700_000_000,
    expires_time: 1_700_000_900,
    custom_header: { z: 1, a: [1, 'two', null] },
    body: { text: 'héllo ✓', nested: { b: 2, a: 1 }, list: [true, 1.5, -3] },
    attachments: [{ id: 'a1', media_type: 'application/json', data: { json: { k: 'v' } } }],
  };
}

describe('native ↔ didcomm-node, every mode × curve × content encryption × signature both support', () => {
  for (const c of cases()) {
    for (const [packer, unpacker] of DIRECTIONS) {
      it(`${label(c)}: packed by ${packer}, unpacked by ${unpacker}`, async () => {
        const { alice, bob, ctx } = world(c);
        const m = message(alice.did, bob.did);
        const p = await pack(m, { mode: c.mode, protectSender: c.protectSender, encAlgAnon: c.enc }, ctx(alice, packer));
        const theirs = await unpack(p.packed, ctx(bob, unpacker));
        const ours = await unpack(p.packed, ctx(bob, packer));
        expect(theirs.message).toEqual({ ...m, typ: MEDIA_TYPES.plaintext });
        expect(comparable(theirs.metadata)).toEqual(comparable(ours.metadata));
        expect(theirs.metadata.mode).toBe(c.mode);
        if (c.mode !== 'signed') expect(theirs.metadata.encryptedToKids).toEqual(bob.agreementKids);
        if (c.enc) expect(theirs.metadata.encAlgAnon).toBe(`ECDH-ES+A256KW/${c.enc}`);
      });
    }
  }
});

describe('the same choices and the same bytes', () => {
  it('an EdDSA-signed message is byte for byte the same from both engines', async () => {
    // EdDSA is deterministic (RFC 8032); ECDSA signatures are randomised, so EdDSA compares bytes.
    const { alice, bob, ctx } = world({ agreement: 'X25519', signing: 'Ed25519' });
    const m = message(alice.did, bob.did);
    const a = await pack(m, { mode: 'signed' }, ctx(alice, 'native'));
    const b = await pack(m, { mode: 'signed' }, ctx(alice, 'didcomm-node'));
    expect(a.packed).toBe(b.packed);
    // The native engine also gives the plaintext it wrote: the signed payload, byte for byte.
    const { plaintext, ...rest } = a;
    expect(rest).toEqual(b);
    expect(b.plaintext).toBeUndefined();
    expect(plaintext).toBe(Buffer.from(JSON.parse(a.packed).payload, 'base64url').toString('utf8'));
  });

  it('both pick the same keys from documents with keys on several curves, and report the same pack result', async () => {
    const alice = curveParty('alice', { agreement: ['P-256', 'X25519'], signing: ['secp256k1', 'Ed25519'] });
    const bob = curveParty('bob', { agreement: ['X25519', 'P-256', 'X25519'] });
    const resolve = mapResolver([alice.doc, bob.doc]);
    for (const mode of ['anoncrypt', 'authcrypt', 'authcrypt-signed', 'anoncrypt-signed', 'signed'] as EnvelopeMode[]) {
      const results = await Promise.all(
        (['native', 'didcomm-node'] as const).map(async (engine) => {
          // `plaintext`: what the native engine wrote itself (the test above).
          const { packed: _packed, plaintext: _plaintext, ...rest } = await pack(message(alice.did, bob.did), { mode }, { resolve, secrets: memorySecrets(alice.secrets), engine });
          return rest;
        }),
      );
      expect(results[0], mode).toEqual(results[1]);
    }
  });

  it('a message for keys on two curves is refused alike when no sender key shares a curve', async () => {
    const alice = curveParty('alice', { agreement: ['X25519'] });
    const bob = curveParty('bob', { agreement: ['P-256'] });
    const resolve = mapResolver([alice.doc, bob.doc]);
    for (const engine of ['native', 'didcomm-node'] as const) {
      await expect(pack(message(alice.did, bob.did), { mode: 'authcrypt' }, { resolve, secrets: memorySecrets(alice.secrets), engine })).rejects.toMatchObject({
        code: 'didcomm_unsupported',
      });
    }
  });
});

describe('routing and rotation across engines', () => {
  const alice = curveParty('alice');
  const mediator = curveParty('mediator', { endpoint: 'https://mediator.example/didcomm' });
  const dave = curveParty('dave', { endpoint: 'https://mediator.example/didcomm', routingKeys: [`did:example:mediator#ka-1`] });
  const resolve = mapResolver([alice.doc, mediator.doc, dave.doc]);
  const ctx = (p: { secrets: typeof alice.secrets }, engine: EnvelopeEngine): EnvelopeContext => ({ resolve, secrets: memorySecrets(p.secrets), engine });

  for (const [packer, unpacker] of DIRECTIONS) {
    it(`forwards through routing keys: packed by ${packer}, read by a ${unpacker} mediator and recipient`, async () => {
      const m = message(alice.did, dave.did);
      const p = await pack(m, { mode: 'authcrypt' }, ctx(alice, packer));
      expect(p.serviceEndpoint).toBe('https://mediator.example/didcomm');
      const atMediator = await unpack(p.packed, ctx(mediator, unpacker));
      const fwd = parseForward(atMediator.message)!;
      expect(fwd.next).toBe(dave.did);
      const atDave = await unpack(fwd.attachment, ctx(dave, unpacker));
      expect(atDave.message).toMatchObject({ id: m.id, body: m.body });
      expect(atDave.metadata.encryptedFromKid).toBe(alice.agreementKids[0]);
    });

    it(`wrapInForward by ${packer} is read by ${unpacker}`, async () => {
      const inner = await pack(message(alice.did, dave.did), { mode: 'anoncrypt', forward: false }, ctx(alice, packer));
      const outer = await wrapInForward(inner.packed, { to: dave.did, routingKeys: [mediator.agreementKids[0]!], headers: { note: 'x' } }, ctx(alice, packer));
      const fwd = await unpack(outer, ctx(mediator, unpacker));
      expect(fwd.message.note).toBe('x');
      expect((await unpack(parseForward(fwd.message)!.attachment, ctx(dave, unpacker))).metadata.mode).toBe('anoncrypt');
    });

    it(`a from_prior signed by ${packer} verifies with ${unpacker}`, async () => {
      const prior = curveParty('alice-prior', { signing: ['P-256'] });
      const r = mapResolver([alice.doc, dave.doc, prior.doc]);
      const both = { resolve: r, secrets: memorySecrets([...alice.secrets, ...prior.secrets]) };
      const { jwt, issuerKid } = await packFromPrior({ iss: prior.did, sub: alice.did, iat: 1_700_000_000 }, undefined, { ...both, engine: packer });
      expect(issuerKid).toBe(prior.signingKids[0]);
      const { packed } = await pack({ ...message(alice.did, dave.did), from_prior: jwt }, { mode: 'authcrypt', forward: false }, { ...both, engine: unpacker });
      const { metadata } = await unpack(packed, { resolve: r, secrets: memorySecrets(dave.secrets), engine: OTHER[unpacker] });
      expect(metadata.fromPrior).toEqual({ iss: prior.did, sub: alice.did, iat: 1_700_000_000 });
      expect(metadata.fromPriorIssuerKid).toBe(issuerKid);
    });
  }
});

describe('the plaintext text an unpack reports', () => {
  it('is the text the native engine parsed the message from, in every mode, not enumerable', async () => {
    const { alice, bob, ctx } = world({ agreement: 'X25519', signing: 'Ed25519' });
    for (const mode of ['plaintext', 'signed', 'anoncrypt', 'authcrypt', 'authcrypt-signed', 'anoncrypt-signed'] as EnvelopeMode[]) {
      const packed = await pack(message(alice.did, bob.did), { mode }, ctx(alice, 'native'));
      const opened = await unpack(packed.packed, ctx(bob, 'native'));
      expect(opened.plaintext, mode).toBe(packed.plaintext);
      expect(JSON.parse(opened.plaintext!), mode).toEqual(opened.message);
      expect(Object.keys(opened), mode).toEqual(['message', 'metadata']);
    }
  });

  it('is left out when the engine changed the message: a body or typ it supplied', async () => {
    const { alice, bob, ctx } = world({ agreement: 'X25519', signing: 'Ed25519' });
    const noBody = JSON.stringify({ id: 'nb', typ: MEDIA_TYPES.plaintext, type: 'https://example.com/p/1.0/x' });
    const noTyp = JSON.stringify({ id: 'nt', type: 'https://example.com/p/1.0/x', body: {} });
    for (const text of [noBody, noTyp]) {
      const opened = await unpack(text, ctx(bob, 'native'));
      expect(opened.plaintext).toBeUndefined();
      expect(opened.message.body).toEqual({});
    }
    const whole = JSON.stringify({ id: 'w', typ: MEDIA_TYPES.plaintext, type: 'https://example.com/p/1.0/x', body: { a: 1 } });
    expect((await unpack(whole, ctx(alice, 'native'))).plaintext).toBe(whole);
    // didcomm-node does not report it.
    expect((await unpack(whole, ctx(alice, 'didcomm-node'))).plaintext).toBeUndefined();
  });
});
