// A Hyperledger Identus 7 responder (@hyperledger/identus-sdk 7.0.0, hyperledger-identus/sdk-ts,
// Apache-2.0) built on the SDK's building blocks as its edge agent wires them: Apollo (keys), Castor
// (did:peer:2 created and resolved by the SDK), Pluto (over an in-memory store) and Mercury with the
// SDK's DIDCommWrapper (a fork of SICPA's didcomm-rust compiled to WASM and bundled in the SDK) for
// packing, unpacking and sending. An HTTP server on 127.0.0.1 (port 0) hands each POSTed message to
// Mercury. The SDK ships no trust-ping handler, so a few lines here answer a ping whose
// response_requested is not false, through Mercury.sendMessage (a new POST to the sender's
// DIDCommMessaging endpoint, authcrypt). Everything it opens is stored in Pluto, as the SDK's agent
// stores basic messages and problem reports; nothing else is answered.
//
// Facts the verdict tests lean on (identus.test.ts, peer-dids.test.ts; docs/conformance.md has the
// evidence). Sources: hyperledger-identus/sdk-ts at tag v7.0.0.
// - authcrypt is ECDH-1PU+A256KW / A256CBC-HS512, anoncrypt ECDH-ES+A256KW / XC20P
//   (src/mercury/didcomm/Wrapper.ts packEncrypted: enc_alg_auth A256cbcHs512Ecdh1puA256kw,
//   enc_alg_anon Xc20pEcdhEsA256kw), packed (and unpacked, Message.unpack) by a WASM build of a
//   fork of SICPA's didcomm-rust, elribonazo/didcomm-rust 5f844ef: v0.4.1 plus an exported JWE
//   package, its src/jws and src/message v0.4.1's. apu and apv set, the
//   content tag fed to the KDF (src/jwe/encrypt.rs), as v2.1 requires.
// - a signed message must be a general-form JWS with its kid in the unprotected header
//   (didcomm-rust src/jws/envelope.rs): a flattened JWS, which v2.1 §Message Signing says
//   recipients "MUST be able to process", is refused (jws-forms.test.ts).
// - Mercury keeps no record of ids received and never refuses a replay: right, since v2.1
//   §Message Headers binds `id` uniqueness to the sender.
// - its did:peer:2 puts E before V (src/peer-did/PeerDIDCreate.ts createPeerDID) and writes its
//   services as one JSON list, `.SW10` when there is none (encodeService of []), which DIF
//   did:peer §Method 2 forbids; Castor names services `#DIDCommMessaging-<n>` (not the DIF
//   `#service`) and reads only an object endpoint's `uri` (src/castor/resolver/PeerDIDResolver.ts).
// - a message it cannot open is answered here with HTTP 400 and the SDK's error text; the SDK
//   has no problem-report sender for that.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import SDK from '@hyperledger/identus-sdk';
import { memoryPlutoStore } from './identus-store.js';
import type { ForeignAgent } from './veramo-agent.js';

export const PING = 'https://didcomm.org/trust-ping/2.0/ping';
export const PING_RESPONSE = 'https://didcomm.org/trust-ping/2.0/ping-response';

export interface IdentusHandle extends ForeignAgent {
  castor: InstanceType<typeof SDK.Castor>;
  mercury: InstanceType<typeof SDK.Mercury>;
  /** Messages Mercury opened, in order (as the SDK's Domain.Message). */
  received: InstanceType<typeof SDK.Domain.Message>[];
  /** Every HTTP answer the responder gave. */
  answers: { status: number; body: string }[];
}

/** A did:peer:2 made by the SDK's Castor from fresh Apollo keys, stored in Pluto, as its CreatePeerDID task does. */
export async function identusPeerDid(parts: { apollo: InstanceType<typeof SDK.Apollo>; castor: InstanceType<typeof SDK.Castor>; pluto?: InstanceType<typeof SDK.Pluto> }, endpoint?: string) {
  const { Domain } = SDK;
  const agreement = parts.apollo.createPrivateKey({ type: Domain.KeyTypes.Curve25519, curve: Domain.Curve.X25519 });
  const authentication = parts.apollo.createPrivateKey({ type: Domain.KeyTypes.EC, curve: Domain.Curve.ED25519 });
  const services = endpoint ? [new Domain.DIDDocument.Service('#didcomm-1', ['DIDCommMessaging'], new Domain.DIDDocument.ServiceEndpoint(endpoint, ['didcomm/v2']))] : [];
  const did = await parts.castor.createPeerDID([agreement.publicKey(), authentication.publicKey()], services);
  await parts.pluto?.storeDID(did, [agreement, authentication]);
  return did;
}

export async function startIdentusAgent(): Promise<IdentusHandle> {
  const { Domain } = SDK;
  const apollo = new SDK.Apollo();
  const castor = new SDK.Castor(apollo);
  const pluto = new SDK.Pluto(memoryPlutoStore(), apollo);
  await pluto.start();
  const mercury = new SDK.Mercury(castor, new SDK.DIDCommWrapper(apollo, castor, pluto), new SDK.ApiImpl());
  const received: IdentusHandle['received'] = [];
  const answers: IdentusHandle['answers'] = [];
  let me: InstanceType<typeof Domain.DID>;

  async function handle(text: string): Promise<{ status: number; body: string }> {
    let message: InstanceType<typeof Domain.Message>;
    try {
      message = await mercury.unpackMessage(text);
    } catch (err) {
      return { status: 400, body: err instanceof Error ? err.message : String(err) };
    }
    received.push(message);
    // Kept in Pluto as the SDK's agent keeps what it receives (basic messages, problem reports, …).
    await pluto.storeMessage(message);
    if (message.piuri === PING && message.body.response_requested !== false && message.from) {
      const response = new Domain.Message({}, randomUUID(), PING_RESPONSE, me, message.from, [], message.id);
      // Sent on its own POST; a failure to deliver it is the sender's endpoint's, not this answer's.
      void mercury.sendMessage(response).catch(() => undefined);
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
  me = await identusPeerDid({ apollo, castor, pluto }, endpoint);
  return {
    did: me.toString(),
    endpoint,
    castor,
    mercury,
    received,
    answers,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await pluto.stop();
    },
  };
}
