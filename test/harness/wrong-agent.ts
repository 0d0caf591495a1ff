// A small DIDComm v2 agent written for these tests straight on didcomm-node (not idsync's router,
// protocols or envelope engines), with a did:peer:2 and an HTTP endpoint on 127.0.0.1. Without
// faults it behaves; each fault makes it wrong in one way the conformance harness must catch:
//   ping-thid          its ping-responses carry a made-up thid
//   disclose-refuse    it discloses basicmessage 2.0, then refuses basicmessage messages as unsupported
//   disclose-refuse-400 it discloses issue-credential 3.0 as issuer, then answers its messages
//                      HTTP 400 "unsupported message type"
//   junk-5xx           it answers a body that is not a DIDComm message with HTTP 500
//   plaintext-reply    it answers authenticated requests in plaintext
//   authcrypt-400      it answers every authcrypted message (ECDH-1PU) with HTTP 400
//   authcrypt-500      it answers every authcrypted message (ECDH-1PU) with HTTP 500
//   authcrypt-unsupported it answers every authcrypted message HTTP 400 "Unsupported message type"
//                      (text/html), naming no type, as Veramo's MessagingRouter does
//   no-trust-ping      it answers every ping HTTP 400 "Unsupported message type" (text/html)
//   no-flattened       it refuses a flattened JWS, as didcomm-node does by itself (HTTP 400)
//   no-disclose        it takes discover-features queries (HTTP 202) and never answers them
//   one-layer          it takes a nested envelope (anoncrypt or authcrypt around another layer) with
//                      HTTP 200 {} and acts on nothing in it, as Veramo 7 does (it opens one layer)
//   broken-reply       its ping-responses carry created_time as a string (breaks a MUST)
//   tampered-reply     its ping-responses arrive with a changed ciphertext (nobody can open them)
//   reuse-id           every message it sends carries one and the same id
//   json-200           it answers every POST with HTTP 200 and a JSON body that is no DIDComm message
//   propose-400        as a WACI issuer it answers a propose-credential HTTP 400 "invitation already used"
//   silent             it takes every message (HTTP 202) and never answers one
//   no-problem-reports it refuses silently: where it would send a problem report, it sends nothing
//   pickup-json-receipt it discloses messagepickup 3.0 as mediator and answers a status-request
//                      (return_route all) with HTTP 200 and a JSON receipt that is no DIDComm message
//   pickup-return-route it discloses messagepickup 3.0 as mediator and answers a status-request on
//                      the POST's own HTTP answer (return route) with a status whose message_count is -1
//   offer-mismatch     as a WACI streamlined-vc issuer, it issues a credential whose claims are not
//                      the ones its offer's preview announced
//   wrong-challenge    as a streamlined-vp prover, it signs its presentation for another challenge
//   anoncrypt-propose  as a streamlined-vp prover, it anoncrypts its propose-presentation
//   other-subject      as a WACI streamlined-vc issuer, it issues the credential to itself, not the holder
//   plaintext-propose  as a streamlined-vp prover, it sends its propose-presentation as plaintext
//   no-redirects       it does not follow a redirect of its own POSTs (fetch's redirect: 'manual');
//                      without it, fetch follows a 307 with the same method and body
// Without no-flattened it turns a flattened JWS into the general form before didcomm-node reads it
// (didcomm-node 0.4 refuses the flattened form, which DIDComm v2.1 §DIDComm Signed Messages says
// recipients "MUST be able to process"). It resolves did:peer:2 and did:peer:4 (long form) with
// idsync's did/ (only the DID document format) and did:web over HTTP; its credentials are signed with idsync's
// credentials/issue.ts (the VC proof, not the protocol).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Message } from 'didcomm-node';
import { systemClock } from '../../src/clock.js';
import { issueCredential } from '../../src/credentials/issue.js';
import { signPresentation } from '../../src/credentials/presentation.js';
import { didcommService, secretFor } from '../../src/did/document.js';
import { encodePeerDid2, resolvePeerDid } from '../../src/did/peer.js';
import { peer4LongDocument } from '../../src/did/peer4.js';
import type { DIDDocument, Secret } from '../../src/did/types.js';
import { b64uEncode } from '../../src/encoding.js';
import { fromMultikey, generateKeyPair, publicJwk, toMultikey, type KeyPair } from '../../src/keys.js';

export type WrongAgentFault =
  | 'ping-thid' | 'disclose-refuse' | 'disclose-refuse-400' | 'junk-5xx' | 'plaintext-reply' | 'authcrypt-400' | 'authcrypt-500' | 'authcrypt-unsupported' | 'no-trust-ping' | 'no-flattened' | 'no-disclose' | 'one-layer' | 'broken-reply'
  | 'tampered-reply' | 'reuse-id' | 'json-200' | 'propose-400' | 'silent' | 'no-problem-reports' | 'pickup-return-route' | 'pickup-json-receipt' | 'offer-mismatch' | 'wrong-challenge' | 'no-redirects'
  | 'anoncrypt-propose' | 'plaintext-propose' | 'other-subject';

export interface WrongAgent {
  did: string;
  document: DIDDocument;
  /** A new out-of-band invitation (goal_code streamlined-vc) to receive a credential from it, or (streamlined-vp) to present to it. */
  invitationUrl(goal?: 'streamlined-vc' | 'streamlined-vp'): string;
  /** As a prover: accepts a streamlined-vp invitation URL (sends propose-presentation). */
  acceptInvitation(url: string): Promise<void>;
  close(): Promise<void>;
}

const PING = 'https://didcomm.org/trust-ping/2.0/ping';
const PING_RESPONSE = 'https://didcomm.org/trust-ping/2.0/ping-response';
const PICKUP = 'https://didcomm.org/messagepickup/3.0';
const PROBLEM = 'https://didcomm.org/report-problem/2.0/problem-report';
const QUERIES = 'https://didcomm.org/discover-features/2.0/queries';
const BASIC = 'https://didcomm.org/basicmessage/2.0/message';
const IC = 'https://didcomm.org/issue-credential/3.0';
const PP = 'https://didcomm.org/present-proof/3.0';
const PREVIEW = { firstName: 'Alan', lastName: 'Turing', birthDate: '1912-06-23' };

/** A did:peer:2 whose Ed25519 key authenticates and issues (V and A) and whose X25519 key agrees (E). */
function issuerDid(endpoint: string): { did: string; document: DIDDocument; secrets: Secret[]; signing: KeyPair } {
  const signing = generateKeyPair('Ed25519');
  const agree = generateKeyPair('X25519');
  const did = encodePeerDid2({
    keys: [{ purpose: 'V', publicKeyMultibase: toMultikey(signing) }, { purpose: 'A', publicKeyMultibase: toMultikey(signing) }, { purpose: 'E', publicKeyMultibase: toMultikey(agree) }],
    services: [didcommService('#didcomm', endpoint) as unknown as Record<string, unknown>],
  });
  return { did, document: resolvePeerDid(did), secrets: [secretFor(`${did}#key-1`, signing), secretFor(`${did}#key-3`, agree)], signing };
}

/** The didcomm-node form of a did:peer:2 document: JWK verification methods, service endpoint object. */
function libDoc(did: string): unknown {
  const doc = peerDoc(did);
  const vms = (doc.verificationMethod ?? []).map((vm) => ({
    id: vm.id,
    type: 'JsonWebKey2020',
    controller: vm.controller,
    publicKeyJwk: publicJwk(fromMultikey(vm.publicKeyMultibase!)),
  }));
  const ids = (list: unknown[] | undefined) => (list ?? []).map((x) => (typeof x === 'string' ? x : (x as { id: string }).id));
  const service = (doc.service ?? []).map((s) => ({
    id: s.id.startsWith('#') ? `${did}${s.id}` : s.id,
    type: 'DIDCommMessaging',
    serviceEndpoint: { uri: (s.serviceEndpoint as { uri: string }).uri, accept: ['didcomm/v2'], routing_keys: [] },
  }));
  return { id: did, keyAgreement: ids(doc.keyAgreement), authentication: ids(doc.authentication), verificationMethod: vms, service };
}

/** A did:peer:2, or a did:peer:4 in its long form, read with idsync's did/ (the document format only). */
const peerDoc = (did: string): DIDDocument => (did.startsWith('did:peer:4') ? peer4LongDocument(did) : resolvePeerDid(did));

/** A did:web document fetched over HTTP (the harness serves its own at 127.0.0.1), in didcomm-node's shape. */
async function webDoc(did: string): Promise<unknown> {
  const host = decodeURIComponent(did.slice('did:web:'.length).split(':')[0]!);
  const res = await fetch(`http://${host}/.well-known/did.json`);
  if (!res.ok) return null;
  const doc = (await res.json()) as DIDDocument;
  const ids = (list: unknown[] | undefined) => (list ?? []).map((x) => (typeof x === 'string' ? x : (x as { id: string }).id));
  const service = (doc.service ?? []).map((s) => ({ id: s.id, type: 'DIDCommMessaging', serviceEndpoint: { uri: (s.serviceEndpoint as { uri: string }).uri, accept: ['didcomm/v2'], routing_keys: [] } }));
  return { id: did, keyAgreement: ids(doc.keyAgreement), authentication: ids(doc.authentication), verificationMethod: doc.verificationMethod, service };
}

async function endpointOf(did: string): Promise<string | undefined> {
  const doc = did.startsWith('did:web:') ? ((await webDoc(did)) as DIDDocument | null) : peerDoc(did);
  const s = doc?.service?.[0];
  return (s?.serviceEndpoint as { uri?: string } | undefined)?.uri;
}

type Answer = number | { status: number; body?: string; type?: string };

function jsonOf(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The alg of a JWE's protected header. */
function outerAlg(text: string): string | undefined {
  const p = jsonOf(text)?.protected;
  if (typeof p !== 'string') return undefined;
  return (jsonOf(Buffer.from(p, 'base64url').toString('utf8'))?.alg as string | undefined) ?? undefined;
}

const isFlattenedJws = (text: string) => {
  const v = jsonOf(text);
  return v !== undefined && typeof v.payload === 'string' && typeof v.signature === 'string' && !('signatures' in v);
};

/** A flattened JWS in the general form (RFC 7515 §7.2.1), the only one didcomm-node reads. */
function generalJws(text: string): string {
  const { payload, protected: p, header, signature } = jsonOf(text)!;
  return JSON.stringify({ payload, signatures: [{ ...(p ? { protected: p } : {}), ...(header ? { header } : {}), signature }] });
}

function flipCiphertext(packed: string): string {
  const jwe = JSON.parse(packed) as Record<string, string>;
  const v = jwe.ciphertext!;
  const i = Math.floor(v.length / 2);
  jwe.ciphertext = v.slice(0, i) + (v[i] === 'A' ? 'B' : 'A') + v.slice(i + 1);
  return JSON.stringify(jwe);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function looksLikeDidcomm(text: string): boolean {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    return typeof v === 'object' && v !== null && ('ciphertext' in v || 'payload' in v || ('id' in v && 'type' in v));
  } catch {
    return false;
  }
}

export async function startWrongAgent(faults: WrongAgentFault[] = []): Promise<WrongAgent> {
  const has = (f: WrongAgentFault) => faults.includes(f);
  const seen = new Set<string>();
  let me!: ReturnType<typeof issuerDid>;
  const invitations = new Set<string>();
  const offers = new Map<string, { challenge: string }>();
  const proposals = new Set<string>();
  const resolver = { resolve: async (did: string) => (/^did:peer:[24]/.test(did) ? libDoc(did) : did.startsWith('did:web:') ? webDoc(did) : null) };
  const fixedId = randomUUID();
  const secrets = {
    get_secret: async (id: string) => me.secrets.find((s) => s.id === id) ?? null,
    find_secrets: async (ids: string[]) => ids.filter((id) => me.secrets.some((s) => s.id === id)),
  };

  async function pack(to: string, message: Record<string, unknown>, authenticated: boolean): Promise<string> {
    const msg = new Message({ id: has('reuse-id') ? fixedId : randomUUID(), typ: 'application/didcomm-plain+json', from: me.did, to: [to], created_time: Math.floor(Date.now() / 1000), ...message } as never);
    const propose = message.type === `${PP}/propose-presentation`;
    try {
      const packed = (has('plaintext-reply') && authenticated) || (has('plaintext-propose') && propose)
        ? await msg.pack_plaintext(resolver as never)
        : has('anoncrypt-propose') && propose
        ? (await msg.pack_encrypted(to, null, null, resolver as never, secrets as never, { forward: false, protect_sender: false } as never))[0]
        : (await msg.pack_encrypted(to, me.did, null, resolver as never, secrets as never, { forward: false, protect_sender: false } as never))[0];
      return has('tampered-reply') && message.type === PING_RESPONSE ? flipCiphertext(packed) : packed;
    } finally {
      msg.free();
    }
  }

  async function send(to: string, message: Record<string, unknown>, authenticated: boolean): Promise<void> {
    if (has('silent') || (has('no-problem-reports') && message.type === PROBLEM)) return;
    const packed = await pack(to, message, authenticated);
    const endpoint = await endpointOf(to);
    if (endpoint) await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/didcomm-encrypted+json' }, body: packed, ...(has('no-redirects') ? { redirect: 'manual' as const } : {}) });
  }

  const problem = (pthid: string, code: string, comment: string) => ({ type: PROBLEM, pthid, body: { code, comment } });

  async function handle(text: string): Promise<Answer> {
    if (!looksLikeDidcomm(text)) return has('junk-5xx') ? 500 : 400;
    if (has('authcrypt-400') && outerAlg(text)?.startsWith('ECDH-1PU')) return { status: 400, body: 'this agent does not decrypt ECDH-1PU', type: 'text/plain' };
    if (has('authcrypt-500') && outerAlg(text)?.startsWith('ECDH-1PU')) return { status: 500, body: '{"error":"Internal Server Error"}', type: 'application/json' };
    if (has('authcrypt-unsupported') && outerAlg(text)?.startsWith('ECDH-1PU')) return { status: 400, body: 'Unsupported message type', type: 'text/html' };
    const flat = isFlattenedJws(text);
    if (flat && has('no-flattened')) return { status: 400, body: 'Malformed: Message is not a valid JWE, JWS or JWM', type: 'text/plain' };
    let value: Record<string, unknown>;
    let meta: { authenticated: boolean; non_repudiation: boolean };
    try {
      const [msg, m] = await Message.unpack(flat ? generalJws(text) : text, resolver as never, secrets as never, {} as never);
      value = msg.as_value() as Record<string, unknown>;
      msg.free();
      meta = m as never;
    } catch {
      return 400;
    }
    const nested = meta as { encrypted?: boolean; anonymous_sender?: boolean };
    if (has('one-layer') && ((nested.encrypted && meta.non_repudiation) || (nested.anonymous_sender && meta.authenticated))) return { status: 200, body: '{}', type: 'application/json' };
    const from = typeof value.from === 'string' ? value.from : undefined;
    // Answers go only to a sender the envelope proved.
    if (!from || !(meta.authenticated || meta.non_repudiation)) return 400;
    const id = String(value.id);
    const thread = typeof value.thid === 'string' ? value.thid : id;
    const reply = (m: Record<string, unknown>) => void send(from, m, true).catch(() => {});
    if (seen.has(id)) return reply(problem(thread, 'e.p.msg.duplicate', 'already received')), 202;
    seen.add(id);
    if (typeof value.expires_time === 'number' && value.expires_time * 1000 < Date.now()) return reply(problem(thread, 'e.m.req.time.expired', 'expired')), 202;
    const body = (value.body ?? {}) as Record<string, unknown>;
    if (has('no-trust-ping') && value.type === PING) return { status: 400, body: 'Unsupported message type', type: 'text/html' };
    if (has('disclose-refuse-400') && String(value.type).startsWith(IC)) return { status: 400, body: `unsupported message type ${String(value.type)}`, type: 'text/plain' };
    switch (value.type) {
      case PING:
        // broken-reply: DIDComm v2.1 §Message Headers, body: "If present, it MUST be a JSON object".
        if (body.response_requested !== false) reply({ type: PING_RESPONSE, thid: has('ping-thid') ? randomUUID() : id, body: has('broken-reply') ? 'pong' : {} });
        return 202;
      case QUERIES: {
        if (has('no-disclose')) return 202;
        const disclosures = [
          { 'feature-type': 'protocol', id: 'https://didcomm.org/trust-ping/2.0', roles: ['sender', 'receiver'] },
          { 'feature-type': 'protocol', id: 'https://didcomm.org/discover-features/2.0', roles: ['responder'] },
          ...(has('disclose-refuse') ? [{ 'feature-type': 'protocol', id: 'https://didcomm.org/basicmessage/2.0' }] : []),
          ...(has('disclose-refuse-400') ? [{ 'feature-type': 'protocol', id: IC, roles: ['issuer'] }] : []),
          ...(has('pickup-return-route') || has('pickup-json-receipt') ? [{ 'feature-type': 'protocol', id: PICKUP, roles: ['mediator'] }] : []),
        ];
        reply({ type: 'https://didcomm.org/discover-features/2.0/disclose', thid: id, body: { disclosures } });
        return 202;
      }
      case `${PICKUP}/status-request`: {
        if (has('pickup-json-receipt')) return { status: 200, body: JSON.stringify({ received: true, id }), type: 'application/json' };
        if (!has('pickup-return-route') || value.return_route !== 'all') return reply(problem(thread, 'e.p.msg.unsupported', 'not a mediator')), 202;
        const status = await pack(from, { type: `${PICKUP}/status`, thid: id, body: { message_count: -1 } }, true);
        return { status: 200, body: status, type: 'application/didcomm-encrypted+json' };
      }
      case `${IC}/propose-credential`: {
        if (has('propose-400')) return { status: 400, body: 'invitation already used', type: 'text/plain' };
        if (typeof value.pthid !== 'string' || !invitations.has(value.pthid)) return reply(problem(thread, 'e.p.msg.invalid-invitation', 'unknown invitation')), 202;
        const challenge = randomUUID();
        offers.set(id, { challenge });
        const attributes = Object.entries(PREVIEW).map(([name, v]) => ({ name, value: v }));
        const manifest = { id: randomUUID(), issuer: { id: me.did }, output_descriptors: [{ id: 'kyc', schema: 'https://example.com/kyc' }] };
        reply({
          type: `${IC}/offer-credential`, thid: id, pthid: value.pthid,
          body: { goal_code: 'streamlined-vc', credential_preview: { type: `${IC}/credential-preview`, attributes } },
          attachments: [{ id: randomUUID(), media_type: 'application/json', format: 'dif/credential-manifest/manifest@v1.0', data: { json: { options: { challenge, domain: me.did }, credential_manifest: manifest } } }],
        });
        return 202;
      }
      case `${IC}/request-credential`: {
        if (!offers.has(thread)) return reply(problem(thread, 'e.p.msg.unknown-thread', 'no such offer')), 202;
        const claims = has('offer-mismatch') ? { ...PREVIEW, firstName: 'Grace' } : PREVIEW;
        const { credential } = await issueCredential({ format: 'ldp', subjectDid: has('other-subject') ? me.did : from, claims, clock: systemClock, issuer: { did: me.did, kid: `${me.did}#key-2`, privateKey: me.signing.privateKey } });
        const fulfillment = {
          '@context': ['https://www.w3.org/2018/credentials/v1', 'https://identity.foundation/credential-manifest/fulfillment/v1'],
          type: ['VerifiablePresentation', 'CredentialFulfillment'],
          credential_fulfillment: { id: randomUUID(), manifest_id: 'm', descriptor_map: [{ id: 'kyc', format: 'ldp_vc', path: '$.verifiableCredential[0]' }] },
          verifiableCredential: [credential],
        };
        reply({ type: `${IC}/issue-credential`, thid: thread, body: {}, attachments: [{ id: randomUUID(), media_type: 'application/json', format: 'dif/credential-manifest/fulfillment@v1.0', data: { json: fulfillment } }] });
        return 202;
      }
      case `${IC}/ack`:
      case `${PP}/ack`:
        return 202;
      case `${PP}/propose-presentation`: {
        if (typeof value.pthid !== 'string' || !invitations.has(value.pthid)) return reply(problem(thread, 'e.p.msg.invalid-invitation', 'unknown invitation')), 202;
        offers.set(id, { challenge: randomUUID() });
        const options = { challenge: offers.get(id)!.challenge, domain: me.did };
        reply({
          type: `${PP}/request-presentation`, thid: id, body: { goal_code: 'streamlined-vp', will_confirm: true },
          attachments: [{ id: randomUUID(), media_type: 'application/json', format: 'dif/presentation-exchange/definitions@v1.0', data: { json: { options, presentation_definition: { id: randomUUID(), input_descriptors: [] } } } }],
        });
        return 202;
      }
      case `${PP}/request-presentation`: {
        if (!proposals.has(thread)) return reply(problem(thread, 'e.p.msg.unknown-thread', 'no such proposal')), 202;
        const att = (value.attachments as Array<{ data: { json: { options: { challenge: string; domain: string }; presentation_definition: { id: string } } } }>)[0]!.data.json;
        const vp = signPresentation(
          { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiablePresentation'], holder: me.did, presentation_submission: { id: randomUUID(), definition_id: att.presentation_definition.id, descriptor_map: [] } },
          { kid: `${me.did}#key-1`, privateKey: me.signing.privateKey, challenge: has('wrong-challenge') ? randomUUID() : att.options.challenge, domain: att.options.domain },
        );
        reply({ type: `${PP}/presentation`, thid: thread, body: {}, attachments: [{ id: randomUUID(), media_type: 'application/json', format: 'dif/presentation-exchange/submission@v1.0', data: { json: vp } }] });
        return 202;
      }
      case `${PP}/presentation`:
        if (!offers.has(thread)) return reply(problem(thread, 'e.p.msg.unknown-thread', 'no such request')), 202;
        reply({ type: `${PP}/ack`, thid: thread, body: { status: 'OK' } });
        return 202;
      case BASIC:
      default:
        reply(problem(thread, 'e.p.msg.unsupported', `${String(value.type)} is not supported`));
        return 202;
    }
  }

  const server = http.createServer((req, res) => {
    void readBody(req).then(async (text) => {
      const answer = await handle(text).catch((): Answer => 500);
      const a = typeof answer === 'number' ? { status: answer } : answer;
      if (has('json-200') && a.status === 202) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      res.writeHead(a.status, a.type ? { 'content-type': a.type } : {}).end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  me = issuerDid(`http://127.0.0.1:${port}/didcomm`);
  return {
    did: me.did,
    document: me.document,
    async acceptInvitation(url: string) {
      const invitation = JSON.parse(Buffer.from(new URL(url).searchParams.get('_oob')!, 'base64url').toString('utf8')) as { id: string; from: string };
      const id = randomUUID();
      proposals.add(id);
      await send(invitation.from, { id, type: `${PP}/propose-presentation`, thid: id, pthid: invitation.id, body: {} }, true);
    },
    invitationUrl(goal = 'streamlined-vc') {
      const invitation = { type: 'https://didcomm.org/out-of-band/2.0/invitation', id: randomUUID(), from: me.did, body: { goal_code: goal, accept: ['didcomm/v2'] } };
      invitations.add(invitation.id);
      return `http://127.0.0.1:${port}/invite?_oob=${b64uEncode(JSON.stringify(invitation))}`;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
