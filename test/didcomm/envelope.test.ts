import { describe, expect, it } from 'vitest';
import { checkEnvelope } from '../../src/conformance/envelope.js';
import { refusedByRule } from '../../src/router/records.js';
import { b64uDecodeText, b64uEncode } from '../../src/encoding.js';
import { IdsyncError } from '../../src/errors.js';
import { FORWARD_TYPE, pack, packFromPrior, parseForward, unpack, wrapInForward } from '../../src/didcomm/envelope/index.js';
import { forwardedKids } from '../../src/didcomm/envelope/forward.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { MEDIA_TYPES, type EnvelopeContext, type EnvelopeMode, type PlainMessage } from '../../src/didcomm/types.js';
import { sign } from '../../src/keys.js';
import { contextFor, makeParty, mapResolver, message } from './envelope-fixtures.js';

const alice = makeParty('alice');
const bob = makeParty('bob', { endpoint: 'https://bob.example/didcomm' });
const carol = makeParty('carol');
const resolve = mapResolver([alice.doc, bob.doc, carol.doc]);
const ctxA = contextFor(alice, resolve);
const ctxB = contextFor(bob, resolve);
const ctxC = contextFor(carol, resolve);

async function rejects(p: Promise<unknown>): Promise<IdsyncError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(IdsyncError);
    return err as IdsyncError;
  }
  throw new Error('expected a rejection');
}

function header(packed: string): Record<string, unknown> {
  return JSON.parse(b64uDecodeText(JSON.parse(packed).protected as string));
}

const EXPECTED: Record<EnvelopeMode, { mediaType: string; encrypted: boolean; authenticated: boolean; nonRepudiation: boolean; anonymousSender: boolean }> = {
  plaintext: { mediaType: MEDIA_TYPES.plaintext, encrypted: false, authenticated: false, nonRepudiation: false, anonymousSender: false },
  signed: { mediaType: MEDIA_TYPES.signed, encrypted: false, authenticated: true, nonRepudiation: true, anonymousSender: false },
  anoncrypt: { mediaType: MEDIA_TYPES.encrypted, encrypted: true, authenticated: false, nonRepudiation: false, anonymousSender: true },
  'anoncrypt-signed': { mediaType: MEDIA_TYPES.encrypted, encrypted: true, authenticated: true, nonRepudiation: true, anonymousSender: true },
  authcrypt: { mediaType: MEDIA_TYPES.encrypted, encrypted: true, authenticated: true, nonRepudiation: false, anonymousSender: false },
  'anoncrypt-authcrypt': { mediaType: MEDIA_TYPES.encrypted, encrypted: true, authenticated: true, nonRepudiation: false, anonymousSender: true },
  'authcrypt-signed': { mediaType: MEDIA_TYPES.encrypted, encrypted: true, authenticated: true, nonRepudiation: true, anonymousSender: false },
};

describe('pack and unpack', () => {
  for (const mode of Object.keys(EXPECTED) as EnvelopeMode[]) {
    it(`round-trips ${mode} and detects the mode on unpack`, async () => {
      const m = { ...message(alice, bob), thid: 'thread-1', pthid: 'parent-1', custom_header: { x: 1 } };
      const packed = await pack(m, { mode }, ctxA);
      const { mediaType, ...flags } = EXPECTED[mode];
      expect(packed.mode).toBe(mode);
      expect(packed.mediaType).toBe(mediaType);
      expect(packed.serviceEndpoint).toBe('https://bob.example/didcomm');
      const { message: got, metadata } = await unpack(packed.packed, ctxB);
      expect(got).toEqual({ ...m, typ: MEDIA_TYPES.plaintext });
      expect(metadata).toMatchObject({ mode, ...flags, reWrappedInForward: false });
    });
  }

  it('hands the outer JWE or JWS back as parsed and unchanged, for the envelope rules, without showing it', async () => {
    for (const mode of ['signed', 'authcrypt', 'anoncrypt-authcrypt'] as EnvelopeMode[]) {
      const p = await pack(message(alice, bob), { mode }, ctxA);
      const result = await unpack(p.packed, ctxB);
      expect(result.outer).toEqual(JSON.parse(p.packed));
      expect(Object.keys(result)).toEqual(['message', 'metadata']);
      expect(checkEnvelope(p.packed, result.outer)).toEqual(checkEnvelope(p.packed));
    }
    expect((await unpack((await pack(message(alice, bob), { mode: 'plaintext' }, ctxA)).packed, ctxB)).outer).toBeUndefined();
  });

  it('reports the keys used on both sides', async () => {
    // Every layer there is: the signature, authcrypt, and the outer anoncrypt asked for explicitly.
    const p = await pack(message(alice, bob), { mode: 'authcrypt-signed', protectSender: true }, ctxA);
    expect(p).toMatchObject({ fromKid: `${alice.did}#key-2`, signByKid: `${alice.did}#key-1`, toKids: [`${bob.did}#key-2`] });
    const { metadata } = await unpack(p.packed, ctxB);
    expect(metadata).toMatchObject({
      encryptedFromKid: `${alice.did}#key-2`,
      encryptedToKids: [`${bob.did}#key-2`],
      signFrom: `${alice.did}#key-1`,
      signAlg: 'EdDSA',
      encAlgAuth: 'ECDH-1PU+A256KW/A256CBC-HS512',
      encAlgAnon: 'ECDH-ES+A256KW/XC20P',
    });
  });

  it('hides the sender from the outer layer in the protected modes (anoncrypt around authcrypt)', async () => {
    for (const [mode, protectSender] of [['anoncrypt-authcrypt', undefined], ['authcrypt-signed', true]] as const) {
      const { packed } = await pack(message(alice, bob), { mode, protectSender }, ctxA);
      const h = header(packed);
      expect(h.alg).toBe('ECDH-ES+A256KW');
      expect(h).not.toHaveProperty('skid');
      expect(packed).not.toContain(alice.did);
    }
    const { packed } = await pack(message(alice, bob), { mode: 'authcrypt' }, ctxA);
    expect(header(packed)).toMatchObject({ alg: 'ECDH-1PU+A256KW', skid: `${alice.did}#key-2` });
  });

  it('packs authcrypt-signed as authcrypt(sign(plaintext)) unless protectSender: true asks for the outer anoncrypt', async () => {
    // §IANA Media Types: "envelope combinations other than the ones above MUST NOT be used. In
    // particular, it makes no sense to use anoncrypt(authcrypt(sign(plaintext)))".
    for (const options of [{}, { protectSender: false }]) {
      const p = await pack(message(alice, bob), { mode: 'authcrypt-signed', ...options }, ctxA);
      expect(header(p.packed)).toMatchObject({ alg: 'ECDH-1PU+A256KW', skid: `${alice.did}#key-2` });
      const { metadata } = await unpack(p.packed, ctxB);
      expect(metadata).toMatchObject({ mode: 'authcrypt-signed', anonymousSender: false, nonRepudiation: true });
      expect(metadata.notes ?? []).toEqual([]);
    }
    const p = await pack(message(alice, bob), { mode: 'authcrypt-signed', protectSender: true }, ctxA);
    expect(header(p.packed)).toMatchObject({ alg: 'ECDH-ES+A256KW' });
    const { metadata } = await unpack(p.packed, ctxB);
    expect(metadata).toMatchObject({ mode: 'authcrypt-signed', anonymousSender: true, nonRepudiation: true });
    expect(metadata.notes).toContainEqual(expect.objectContaining({ rule: 'envelope.nesting-protected-signed', broken: true }));
  });

  it('keeps attachments', async () => {
    const m: PlainMessage = {
      ...message(alice, bob),
      attachments: [
        { id: 'a1', media_type: 'application/json', data: { json: { hello: [1, 2, 3] } } },
        { id: 'a2', data: { base64: b64uEncode('bytes') } },
      ],
    };
    const { packed } = await pack(m, { mode: 'authcrypt' }, ctxA);
    expect((await unpack(packed, ctxB)).message.attachments).toEqual(m.attachments);
  });

  it('uses options.to, options.from and options.signBy as key ids', async () => {
    const p = await pack(message(alice, bob), { mode: 'authcrypt-signed', to: `${bob.did}#key-2`, from: `${alice.did}#key-2`, signBy: `${alice.did}#key-1` }, ctxA);
    expect(p.toKids).toEqual([`${bob.did}#key-2`]);
    expect((await unpack(p.packed, ctxB)).metadata.mode).toBe('authcrypt-signed');
  });
});

describe('unpack failures', () => {
  it('rejects a tampered ciphertext', async () => {
    const { packed } = await pack(message(alice, bob), { mode: 'authcrypt' }, ctxA);
    const jwe = JSON.parse(packed);
    jwe.ciphertext = (jwe.ciphertext[0] === 'A' ? 'B' : 'A') + jwe.ciphertext.slice(1);
    expect((await rejects(unpack(JSON.stringify(jwe), ctxB))).code).toBe('didcomm_malformed');
  });

  it('rejects a tampered tag and a tampered encrypted key', async () => {
    const { packed } = await pack(message(alice, bob), { mode: 'anoncrypt' }, ctxA);
    const a = JSON.parse(packed);
    a.tag = (a.tag[0] === 'A' ? 'B' : 'A') + a.tag.slice(1);
    expect((await rejects(unpack(JSON.stringify(a), ctxB))).code).toBe('didcomm_malformed');
    const b = JSON.parse(packed);
    b.recipients[0].encrypted_key = 'AAAA' + b.recipients[0].encrypted_key.slice(4);
    expect((await rejects(unpack(JSON.stringify(b), ctxB))).code).toBe('didcomm_malformed');
  });

  it('rejects a signed message whose payload was changed', async () => {
    const { packed } = await pack(message(alice, bob), { mode: 'signed' }, ctxA);
    const jws = JSON.parse(packed);
    const payload = JSON.parse(b64uDecodeText(jws.payload));
    jws.payload = b64uEncode(JSON.stringify({ ...payload, body: { hello: 'mallory' } }));
    expect((await rejects(unpack(JSON.stringify(jws), ctxB))).code).toBe('didcomm_malformed');
  });

  it('fails with secret_not_found for a message encrypted to someone else', async () => {
    for (const mode of ['anoncrypt', 'authcrypt', 'anoncrypt-authcrypt'] as const) {
      const { packed } = await pack(message(alice, bob), { mode }, ctxA);
      expect((await rejects(unpack(packed, ctxC))).code).toBe('secret_not_found');
    }
  });

  it('fails with did_not_resolved when the sender cannot be resolved', async () => {
    const { packed } = await pack(message(alice, bob), { mode: 'authcrypt' }, ctxA);
    const blind: EnvelopeContext = { resolve: mapResolver([bob.doc]), secrets: ctxB.secrets };
    expect((await rejects(unpack(packed, blind))).code).toBe('did_not_resolved');
  });

  it('rejects a signature by someone other than the from DID', async () => {
    // didcomm-node accepts this; DIDComm v2 "Message Signing" says the key must be the sender's.
    const plaintext = { id: 'spoof', typ: MEDIA_TYPES.plaintext, type: 'https://example.com/t', from: alice.did, to: [bob.did], body: {} };
    const protectedHeader = b64uEncode(JSON.stringify({ typ: MEDIA_TYPES.signed, alg: 'EdDSA' }));
    const payload = b64uEncode(JSON.stringify(plaintext));
    const signature = b64uEncode(sign(carol.signing.privateKey, new TextEncoder().encode(`${protectedHeader}.${payload}`)));
    const jws = JSON.stringify({ payload, signatures: [{ protected: protectedHeader, signature, header: { kid: `${carol.did}#key-1` } }] });
    const err = await rejects(unpack(jws, ctxB));
    expect(err.code).toBe('sender_mismatch');
    expect(err.message).toContain('does not belong to the sender');
    const lax = await unpack(jws, ctxB, { checkSender: false });
    expect(lax.metadata).toMatchObject({ mode: 'signed', signFrom: `${carol.did}#key-1` });
  });

  it('never crashes on junk: every non-message is didcomm_malformed', async () => {
    const junk: unknown[] = [
      '',
      '   ',
      'null',
      '[]',
      '42',
      '{}',
      '{ garbage',
      '{"protected":1}',
      '{"payload":"x","signatures":[]}',
      '{"protected":"abc","recipients":[],"ciphertext":"","iv":"","tag":""}',
      'x'.repeat(2_000_000),
      '{' + 'x'.repeat(2_000_000),
      String.fromCharCode(...Array.from({ length: 50_000 }, (_, i) => (i * 7919) % 65_000)),
      undefined,
      null,
      42,
      { id: 'object, not string' },
    ];
    for (const input of junk) {
      const err = await rejects(unpack(input as string, ctxB));
      expect(err.code, String(input).slice(0, 30)).toBe('didcomm_malformed');
    }
  });
});

describe('pack failures', () => {
  it('refuses a signer who is not the sender', async () => {
    const err = await rejects(pack(message(alice, bob), { mode: 'signed', signBy: carol.did }, contextFor({ secrets: [...alice.secrets, ...carol.secrets] }, resolve)));
    expect(err.code).toBe('didcomm_invalid_argument');
  });

  it('refuses messages and options it cannot pack', async () => {
    const cases: [PlainMessage, EnvelopeMode][] = [
      [message(alice, undefined), 'anoncrypt'], // no recipient
      [message(undefined, bob), 'authcrypt'], // no sender
      [message(undefined, bob), 'signed'], // no signer
      [{ ...message(alice, bob), body: undefined as unknown as Record<string, unknown> }, 'plaintext'],
      [{ ...message(alice, bob), id: '' }, 'plaintext'],
      [message(alice, bob), 'sealed' as EnvelopeMode],
      // Headers of the wrong type: refused with a code, not a TypeError from deep inside.
      [{ ...message(alice, bob), to: [5] as unknown as string[] }, 'authcrypt'],
      [{ ...message(alice, bob), to: bob.did as unknown as string[] }, 'anoncrypt'],
      [{ ...message(alice, bob), from: 5 as unknown as string }, 'signed'],
    ];
    for (const [m, mode] of cases) expect((await rejects(pack(m, { mode }, ctxA))).code, mode).toBe('didcomm_invalid_argument');
  });

  it('refuses protectSender with a mode it does not apply to, rather than dropping it', async () => {
    for (const mode of ['authcrypt', 'anoncrypt', 'anoncrypt-authcrypt'] as EnvelopeMode[]) {
      expect((await rejects(pack(message(alice, bob), { mode, protectSender: true }, ctxA))).code, mode).toBe('didcomm_invalid_argument');
    }
    expect((await pack(message(alice, bob), { mode: 'authcrypt', protectSender: false }, ctxA)).packed).toBeTypeOf('string');
  });

  it('maps library argument errors: a recipient not in message.to', async () => {
    expect((await rejects(pack(message(alice, bob), { mode: 'authcrypt', to: carol.did }, ctxA))).code).toBe('didcomm_invalid_argument');
  });

  it('fails with did_not_resolved for an unknown recipient', async () => {
    const nobody = makeParty('nobody');
    expect((await rejects(pack(message(alice, nobody), { mode: 'anoncrypt' }, ctxA))).code).toBe('did_not_resolved');
  });

  it('fails with secret_not_found when the sender key is not held', async () => {
    expect((await rejects(pack(message(alice, bob), { mode: 'authcrypt' }, ctxB))).code).toBe('secret_not_found');
    expect((await rejects(pack(message(alice, bob), { mode: 'signed' }, ctxB))).code).toBe('secret_not_found');
  });

  it("passes on the resolver's and the secrets source's own coded errors", async () => {
    const failing: EnvelopeContext = {
      resolve: async () => {
        throw new IdsyncError('transport_unreachable', 'network down');
      },
      secrets: ctxA.secrets,
    };
    expect((await rejects(pack(message(alice, bob), { mode: 'authcrypt' }, failing))).code).toBe('transport_unreachable');
    const thrown: EnvelopeContext = {
      resolve: async () => {
        throw new TypeError('bug');
      },
      secrets: ctxA.secrets,
    };
    const err = await rejects(pack(message(alice, bob), { mode: 'anoncrypt' }, thrown));
    expect(err.code).toBe('did_not_resolved');
    expect(err.cause).toBeInstanceOf(TypeError);
    const store: EnvelopeContext = {
      resolve,
      secrets: {
        get: async () => {
          throw new IdsyncError('store_error', 'could not read secret');
        },
        find: async (kids) => kids,
      },
    };
    expect((await rejects(pack(message(alice, bob), { mode: 'authcrypt' }, store))).code).toBe('store_error');
  });

  it('never puts private key material in an error', async () => {
    const err = await rejects(pack(message(alice, bob), { mode: 'signed', signBy: carol.did }, ctxA));
    const text = JSON.stringify({ m: err.message, d: err.details });
    for (const s of alice.secrets) expect(text).not.toContain(s.privateKeyJwk.d);
  });
});

describe('routing (Routing Protocol 2.0)', () => {
  const mediator = makeParty('mediator', { endpoint: 'https://mediator.example/didcomm' });
  const dave = makeParty('dave', { endpoint: 'https://mediator.example/didcomm', routingKeys: [`did:example:mediator#key-2`] });
  const r = mapResolver([alice.doc, mediator.doc, dave.doc]);
  const sender = contextFor(alice, r);
  const ctxM = contextFor(mediator, r);
  const ctxD = contextFor(dave, r);

  it("wraps in a forward when the recipient's service names routing keys", async () => {
    const m = message(alice, dave);
    const p = await pack(m, { mode: 'authcrypt' }, sender);
    expect(p.serviceEndpoint).toBe('https://mediator.example/didcomm');
    expect(JSON.parse(p.packed).recipients.map((x: { header: { kid: string } }) => x.header.kid)).toEqual([`${mediator.did}#key-2`]);
    expect(p.toKids).toEqual([`${dave.did}#key-2`]);

    const atMediator = await unpack(p.packed, ctxM);
    expect(atMediator.message.type).toBe(FORWARD_TYPE);
    expect(atMediator.metadata.mode).toBe('anoncrypt');
    const fwd = parseForward(atMediator.message)!;
    expect(fwd.next).toBe(dave.did);

    const atDave = await unpack(fwd.attachment, ctxD);
    expect(atDave.message).toMatchObject({ id: m.id, from: alice.did, body: m.body });
    expect(atDave.metadata.mode).toBe('authcrypt');
    await expect(unpack(fwd.attachment, ctxM)).rejects.toMatchObject({ code: 'secret_not_found' });
  });

  it('does not wrap with forward: false', async () => {
    const p = await pack(message(alice, dave), { mode: 'authcrypt', forward: false }, sender);
    expect(JSON.parse(p.packed).recipients[0].header.kid).toBe(`${dave.did}#key-2`);
    expect((await unpack(p.packed, ctxD)).metadata.mode).toBe('authcrypt');
  });

  it('wrapInForward wraps an already packed message for a mediator', async () => {
    const inner = await pack(message(alice, dave), { mode: 'anoncrypt', forward: false }, sender);
    const outer = await wrapInForward(inner.packed, { to: dave.did, routingKeys: [`${mediator.did}#key-2`] }, sender);
    const fwd = parseForward((await unpack(outer, ctxM)).message)!;
    expect(fwd.next).toBe(dave.did);
    expect((await unpack(fwd.attachment, ctxD)).metadata.mode).toBe('anoncrypt');
    expect((await rejects(wrapInForward(inner.packed, { to: dave.did, routingKeys: [] }, sender))).code).toBe('didcomm_invalid_argument');
  });

  it('unwraps a forward re-wrapped to the recipient itself and keeps the inner metadata', async () => {
    const self = makeParty('erin');
    self.doc.service = [{ id: `${self.did}#didcomm`, type: 'DIDCommMessaging', serviceEndpoint: { uri: 'https://erin.example', routingKeys: [`${self.did}#key-2`] } }];
    r.docs.set(self.did, self.doc);
    const p = await pack(message(alice, self), { mode: 'authcrypt' }, sender);
    const ctxE = contextFor(self, r);
    const got = await unpack(p.packed, ctxE);
    expect(got.message.from).toBe(alice.did);
    expect(got.metadata).toMatchObject({ mode: 'authcrypt', reWrappedInForward: true, anonymousSender: false });
    expect((await unpack(p.packed, ctxE, { unwrapReWrappingForward: false })).message.type).toBe(FORWARD_TYPE);
  });

  it('parseForward reads json and base64 attachments and refuses broken forwards', () => {
    const jwe = { protected: 'e30', recipients: [], ciphertext: 'x', iv: 'y', tag: 'z' };
    const base = { id: 'f', type: FORWARD_TYPE, body: { next: dave.did } };
    expect(parseForward({ ...base, attachments: [{ data: { json: jwe } }] })).toEqual({ next: dave.did, attachment: JSON.stringify(jwe) });
    expect(parseForward({ ...base, attachments: [{ data: { base64: Buffer.from(JSON.stringify(jwe)).toString('base64') } }] })!.attachment).toBe(JSON.stringify(jwe));
    expect(parseForward({ ...message(alice, dave) })).toBeNull();
    for (const broken of [
      { ...base },
      { ...base, attachments: [{ data: { links: ['https://x'] } }] },
      { ...base, body: {}, attachments: [{ data: { json: jwe } }] },
    ]) {
      expect(() => parseForward(broken as PlainMessage)).toThrow(expect.objectContaining({ code: 'didcomm_malformed' }));
    }
  });
});

describe('forwardedKids: whom the message inside a forward is for', () => {
  const jwe = { protected: 'e30', recipients: [{ header: { kid: 'did:example:d#k1' } }, { header: {} }, { header: { kid: 'did:example:d#k2' } }], ciphertext: 'x', iv: 'y', tag: 'z' };
  const base = { id: 'f', type: FORWARD_TYPE, body: { next: 'did:example:d' } };

  it('reads the key ids from a json attachment as it stands, and from a base64 one', () => {
    expect(forwardedKids({ ...base, attachments: [{ data: { json: jwe } }] })).toEqual(['did:example:d#k1', 'did:example:d#k2']);
    const b64 = Buffer.from(JSON.stringify(jwe)).toString('base64');
    expect(forwardedKids({ ...base, attachments: [{ data: { base64: b64 } }] })).toEqual(['did:example:d#k1', 'did:example:d#k2']);
  });

  it('gives nothing for what parseForward refuses, and for an attachment that is no JWE', () => {
    for (const m of [
      { ...base, body: {}, attachments: [{ data: { json: jwe } }] },
      { ...base, attachments: [{ data: { json: [jwe] } }] },
      { ...base, attachments: [{ data: { base64: Buffer.from('[1]').toString('base64') } }] },
      { ...base, attachments: [{ data: { base64: Buffer.from('{not json').toString('base64') } }] },
      { ...base, attachments: [{ data: { json: { ciphertext: 'x' } } }] },
      { ...base },
      { ...base, type: 'https://didcomm.org/basicmessage/2.0/message' },
    ]) {
      expect(forwardedKids(m as PlainMessage)).toBeUndefined();
    }
  });

  it('a forward to us holding a base64 attachment is opened through, as a json one is', async () => {
    const self = makeParty('frank');
    const r = mapResolver([alice.doc, self.doc]);
    const inner = await pack(message(alice, self), { mode: 'authcrypt', forward: false }, contextFor(alice, r));
    const forward: PlainMessage = { id: 'fw-1', type: FORWARD_TYPE, to: [self.did], body: { next: self.did }, attachments: [{ data: { base64: Buffer.from(inner.packed).toString('base64') } }] };
    const outer = await pack(forward, { mode: 'anoncrypt', to: self.did, forward: false }, contextFor(alice, r));
    const got = await unpack(outer.packed, contextFor(self, r));
    expect(got.message.from).toBe(alice.did);
    expect(got.metadata).toMatchObject({ mode: 'authcrypt', reWrappedInForward: true });
  });
});

describe('DID rotation (from_prior)', () => {
  it('packs a from_prior JWT and reports its verified claims on unpack', async () => {
    const prior = makeParty('alice-prior');
    const r = mapResolver([alice.doc, bob.doc, prior.doc]);
    const ctx = { resolve: r, secrets: memorySecrets([...alice.secrets, ...prior.secrets]) };
    const { jwt, issuerKid } = await packFromPrior({ iss: prior.did, sub: alice.did, iat: 1_700_000_000 }, undefined, ctx);
    expect(issuerKid).toBe(`${prior.did}#key-1`);
    const { packed } = await pack({ ...message(alice, bob), from_prior: jwt }, { mode: 'authcrypt' }, ctx);
    const { metadata } = await unpack(packed, contextFor(bob, r));
    expect(metadata.fromPrior).toEqual({ iss: prior.did, sub: alice.did, iat: 1_700_000_000 });
    expect(metadata.fromPriorIssuerKid).toBe(issuerKid);
    const tampered = jwt.slice(0, -4) + (jwt.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await rejects(pack({ ...message(alice, bob), from_prior: tampered }, { mode: 'authcrypt' }, ctx))).code).toBe('didcomm_malformed');
  });

  it('an alg idsync does not verify is refused as advice (v2.1 names none for from_prior); an alg that does not fit the key breaks RFC 7515 §5.2', async () => {
    const prior = makeParty('alice-prior');
    const r = mapResolver([alice.doc, bob.doc, prior.doc]);
    const ctx = { resolve: r, secrets: memorySecrets([...alice.secrets, ...prior.secrets]) };
    const { jwt, issuerKid } = await packFromPrior({ iss: prior.did, sub: alice.did }, undefined, ctx);
    const [, payload, signature] = jwt.split('.');
    const withAlg = (alg: string) => `${b64uEncode(JSON.stringify({ typ: 'JWT', alg, kid: issuerKid }))}.${payload}.${signature}`;
    const other = await rejects(pack({ ...message(alice, bob), from_prior: withAlg('PS256') }, { mode: 'authcrypt' }, ctx));
    expect(other).toMatchObject({ code: 'didcomm_unsupported', details: { rule: 'from_prior.alg' } });
    expect(refusedByRule(other)).toMatchObject({ rule: 'from_prior.alg', severity: 'advice' });
    const misfit = await rejects(pack({ ...message(alice, bob), from_prior: withAlg('ES256') }, { mode: 'authcrypt' }, ctx));
    expect(misfit).toMatchObject({ code: 'didcomm_malformed', details: { rule: 'from_prior.alg-key' } });
    expect(refusedByRule(misfit)).toMatchObject({ rule: 'from_prior.alg-key', severity: 'error' });
  });
});
