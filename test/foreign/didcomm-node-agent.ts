// A plain DIDComm v2 agent on didcomm-node 0.4.1 (SICPA's didcomm-rust compiled to WASM for Node,
// sicpa-dlab/didcomm-rust, Apache-2.0): a did:peer:2 (E, V and one DIDCommMessaging service, keys
// from node:crypto, the DID read per the DIF method spec by dif-peer2.ts), an HTTP server on
// 127.0.0.1 (port 0) whose POSTs go to Message.unpack, and answers packed with pack_encrypted in
// authcrypt (the library's defaults: ECDH-1PU+A256KW / A256CBC-HS512) and POSTed to the sender's
// DIDCommMessaging endpoint. It answers trust-ping 2.0 (a ping-response unless response_requested
// is false) and discover-features 2.0 (a disclose of what matches the queries among the two
// protocols it speaks); everything else it opens is accepted (202) and left alone, and what it
// cannot open gets HTTP 400 with the library's error. No return_route (an extension v2.1 does not
// define).
//
// Facts the verdict tests lean on (didcomm-node.test.ts; docs/conformance.md has the evidence).
// Sources: sicpa-dlab/didcomm-rust at tag v0.4.1.
// - its envelopes are the spec's: apu = base64url(skid) and apv from the recipient kids in
//   `protected`, and the content tag fed to the ECDH-1PU KDF (src/jwe/encrypt.rs encrypt).
// - a signed message must be a general-form JWS with its kid in the unprotected header
//   (src/jws/envelope.rs: `JWS { signatures }`, `Signature { header: Header { kid } }`): a
//   flattened JWS, which v2.1 §Message Signing says recipients "MUST be able to process", or a
//   kid only in the protected header, is "not a valid JWE, JWS or JWM" (jws-forms.test.ts).
// - it never refuses a replayed id: v2.1 §Message Headers binds `id` uniqueness to the sender.
// - Message::unpack needs `body` in a plaintext (src/message/message.rs: `pub body: Value`, not an
//   Option), where v2.1 §Message Headers makes it OPTIONAL: a body-less message is "not a valid
//   JWE, JWS or JWM" to it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomUUID, type JsonWebKey } from 'node:crypto';
import { Message } from 'didcomm-node';
import { b64uDecode } from '../../src/encoding.js';
import { encodePeer2, resolvePeer2, type NodeDidDoc } from './dif-peer2.js';
import type { ForeignAgent } from './veramo-agent.js';

export const PROTOCOLS = { trustPing: 'https://didcomm.org/trust-ping/2.0', discoverFeatures: 'https://didcomm.org/discover-features/2.0' } as const;
const DISCLOSED = [
  { 'feature-type': 'protocol', id: PROTOCOLS.trustPing, roles: ['receiver'] },
  { 'feature-type': 'protocol', id: PROTOCOLS.discoverFeatures, roles: ['responder'] },
];

export interface DidcommNodeHandle extends ForeignAgent {
  /** Plaintexts of what it opened, in order, with the library's unpack metadata. */
  received: { message: Record<string, unknown>; metadata: Record<string, unknown> }[];
  answers: { status: number; body: string }[];
  /** Packs `message` from this agent in authcrypt and POSTs it to `to` (for tests that need the agent to start). */
  send(message: Record<string, unknown>, to: string): Promise<number>;
}

/** §Discover Features 2.0: `match` is an exact id or a prefix ending in the `*` wildcard. */
function disclosuresFor(queries: unknown): typeof DISCLOSED {
  if (!Array.isArray(queries)) return [];
  return DISCLOSED.filter((d) => queries.some((q) => {
    const { 'feature-type': type, match } = (q ?? {}) as { 'feature-type'?: unknown; match?: unknown };
    if (type !== d['feature-type'] || typeof match !== 'string') return false;
    return match.endsWith('*') ? d.id.startsWith(match.slice(0, -1)) : d.id === match;
  }));
}

export async function startDidcommNodeAgent(options: { resolveOther?: (did: string) => Promise<NodeDidDoc | null> } = {}): Promise<DidcommNodeHandle> {
  // Asked for as JWK by generateKeyPairSync itself (test/didcomm/keygen-export.test.ts says why).
  const jwk = { publicKeyEncoding: { format: 'jwk' }, privateKeyEncoding: { format: 'jwk' } } as const;
  const agreement = generateKeyPairSync('x25519', jwk).privateKey as unknown as JsonWebKey;
  const authentication = generateKeyPairSync('ed25519', jwk).privateKey as unknown as JsonWebKey;
  const received: DidcommNodeHandle['received'] = [];
  const answers: DidcommNodeHandle['answers'] = [];
  let did = '';
  let doc: NodeDidDoc;

  const resolver = {
    async resolve(id: string): Promise<NodeDidDoc | null> {
      if (id === did) return doc;
      if (options.resolveOther) return options.resolveOther(id);
      try {
        return resolvePeer2(id);
      } catch {
        return null;
      }
    },
  };
  const secrets = {
    async get_secret(id: string) {
      const jwk = id === `${did}#key-1` ? agreement : id === `${did}#key-2` ? authentication : undefined;
      return jwk ? { id, type: 'JsonWebKey2020', privateKeyJwk: jwk } : null;
    },
    async find_secrets(ids: string[]) {
      return ids.filter((id) => id === `${did}#key-1` || id === `${did}#key-2`);
    },
  };

  async function send(message: Record<string, unknown>, to: string): Promise<number> {
    const msg = new Message({ id: randomUUID(), typ: 'application/didcomm-plain+json', from: did, to: [to], created_time: Math.floor(Date.now() / 1000), body: {}, ...message } as never);
    try {
      const [packed] = await msg.pack_encrypted(to, did, null, resolver as never, secrets as never, {});
      const target = (await resolver.resolve(to))?.service.find((s) => s.type === 'DIDCommMessaging')?.serviceEndpoint.uri;
      if (!target) throw new Error(`${to} names no DIDCommMessaging endpoint`);
      const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/didcomm-encrypted+json' }, body: packed as string });
      await res.arrayBuffer();
      return res.status;
    } finally {
      msg.free();
    }
  }

  async function handle(text: string): Promise<{ status: number; body: string }> {
    let plain: Record<string, unknown>;
    try {
      const [msg, metadata] = await Message.unpack(text, resolver as never, secrets as never, {});
      plain = msg.as_value() as Record<string, unknown>;
      msg.free();
      received.push({ message: plain, metadata: metadata as Record<string, unknown> });
    } catch (err) {
      return { status: 400, body: `${(err as Error).name ?? 'Error'}: ${(err as Error).message ?? String(err)}` };
    }
    const from = typeof plain.from === 'string' ? plain.from : undefined;
    const body = (plain.body ?? {}) as Record<string, unknown>;
    // Answers go on their own POST once this one is acknowledged (v2.1 §HTTPS: 202 for a receipt).
    if (from && plain.type === `${PROTOCOLS.trustPing}/ping` && body.response_requested !== false) {
      setImmediate(() => void send({ type: `${PROTOCOLS.trustPing}/ping-response`, thid: plain.id }, from).catch(() => undefined));
    } else if (from && plain.type === `${PROTOCOLS.discoverFeatures}/queries`) {
      const disclosures = disclosuresFor(body.queries);
      setImmediate(() => void send({ type: `${PROTOCOLS.discoverFeatures}/disclose`, thid: plain.id, body: { disclosures } }, from).catch(() => undefined));
    }
    return { status: 202, body: '' };
  }

  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void handle(Buffer.concat(chunks).toString('utf8')).then((answer) => {
        answers.push(answer);
        res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/didcomm`;
  did = encodePeer2(b64uDecode(agreement.x!), b64uDecode(authentication.x!), endpoint);
  doc = resolvePeer2(did);
  return {
    did,
    endpoint,
    received,
    answers,
    send,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
