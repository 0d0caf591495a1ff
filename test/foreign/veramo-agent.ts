// A Veramo 7 agent (@veramo/* 7.0.1, decentralized-identity/veramo, Apache-2.0) deployed the way
// Veramo deploys one: its own MessagingRouter (@veramo/remote-server) on express behind
// RequestWithAgentRouter, the message-handler chain DIDCommMessageHandler → TrustPingMessageHandler,
// in-memory key, DID and message stores (MemoryKeyStore, MemoryDIDStore, DataStoreJson), a did:peer:2
// from Veramo's PeerDIDProvider (num_algo 2) whose DIDCommMessaging service names the router on
// 127.0.0.1 (port 0), and Veramo's did:peer resolver (@aviarytech/did-peer) to read idsync's DIDs.
// Veramo ships no DIDComm v2 handler beyond these two for a plain peer (its coordinate-mediation,
// routing and pickup handlers are a mediator's).
//
// What it does that DIDComm Messaging v2.1 forbids or requires differently (veramo.test.ts shows
// each; docs/conformance.md has the evidence and the spec sentence):
// - authcrypt derives its KEK with the ECDH-1PU draft-03 KDF, no content tag (did-jwt 8
//   src/encryption/X25519-ECDH-1PU.ts computeX25519Ecdh1PUv3Kek, src/Digest.ts concatKDF;
//   veramo#1375), so it cannot open draft-04 authcrypt, which v2.1 requires, and what it sends
//   opens with draft-03 only.
// - authcrypt carries no apu/apv, anoncrypt no apv (@veramo/did-comm src/didcomm.ts
//   packDIDCommMessageJWE passes only {kid} to its encrypters).
// - authcrypt defaults to enc A256GCM (packDIDCommMessageJWE `defaults`); v2.1 lists A256GCM for
//   anoncrypt only.
// - a JWS kid is read from the protected header only (unpackDIDCommMessageJWS), so the signed
//   form of v2.1 Appendix C.2 (kid in the unprotected header) is refused.
// - whatever it cannot open is HTTP 400 "Unsupported message type" (DIDCommMessageHandler swallows
//   the unpack error; MessagingRouter answers e.message with 400).
// - a ping is answered whatever its response_requested, by a new POST in authcrypt, with id
//   `<ping id>-response`; a return-routed answer is a JSON string inside the 200 body
//   (MessagingRouter res.json on an already packed string).
// - its DID's DIDCommMessaging serviceEndpoint is the v2.0 string form (as Veramo's own tests
//   write it); v2.1 §Service Endpoint wants an object.
//
// With `mediator: true` the same agent is deployed as Veramo deploys a mediator (its own tests in
// @veramo/did-comm src/__tests__/coordinate-mediation-v3-message-handler.test.ts and
// messagepickup-message-handler.test.ts): the MediationManagerPlugin (@veramo/mediation-manager,
// grant-all by default) over three KeyValueStores in memory (policies, mediation responses,
// recipient DIDs), DataStoreJson as the message queue (forwards are saved there and picked up
// from there), and the chain DIDCommMessageHandler → TrustPingMessageHandler →
// CoordinateMediationV3MediatorMessageHandler (3.0) → CoordinateMediationMediatorMessageHandler
// (its 2.0 mediate-request only) → RoutingMessageHandler → PickupMediatorMessageHandler. Answers
// travel on the return route (MessagingRouter reads the handlers' ReturnRouteResponse metadata).
// veramo-mediator-verdicts.test.ts holds what the mediator suite finds.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAgent, type IDIDManager, type IKeyManager, type IMessageHandler, type IResolver, type IDataStore, type IDataStoreORM, type TAgent } from '@veramo/core';
import {
  CoordinateMediationMediatorMessageHandler, CoordinateMediationV3MediatorMessageHandler, DIDComm, DIDCommMessageHandler, PickupMediatorMessageHandler, RoutingMessageHandler, TrustPingMessageHandler, type IDIDComm,
} from '@veramo/did-comm';
import { DataStoreJson } from '@veramo/data-store-json';
import { DIDManager, MemoryDIDStore } from '@veramo/did-manager';
import { getResolver as peerResolver, PeerDIDProvider } from '@veramo/did-provider-peer';
import { DIDResolverPlugin } from '@veramo/did-resolver';
import { KeyManager, MemoryKeyStore, MemoryPrivateKeyStore } from '@veramo/key-manager';
import { KeyManagementSystem } from '@veramo/kms-local';
import { KeyValueStore, type ValueStoreType } from '@veramo/kv-store';
import { MediationManagerPlugin, type IMediationManager, type MediationResponse, type PreMediationRequestPolicy, type RequesterDid } from '@veramo/mediation-manager';
import { MessageHandler } from '@veramo/message-handler';
import { MessagingRouter, RequestWithAgentRouter } from '@veramo/remote-server';
import express from 'express';

export type VeramoAgent = TAgent<IResolver & IKeyManager & IDIDManager & IDIDComm & IMessageHandler & IDataStore & IDataStoreORM>;
/** The agent deployed as a mediator: with its mediation manager's policies, grants and recipient DIDs. */
export type VeramoMediatorAgent = TAgent<IResolver & IKeyManager & IDIDManager & IDIDComm & IMessageHandler & IDataStore & IDataStoreORM & IMediationManager>;

export interface ForeignAgent {
  did: string;
  /** The HTTP endpoint its DID names. */
  endpoint: string;
  close(): Promise<void>;
}

export interface VeramoOptions {
  /** Deploy it as a mediator: Veramo's mediation manager and its coordinate-mediation, routing and pickup handlers. */
  mediator?: boolean;
}

export interface VeramoHandle extends ForeignAgent {
  agent: VeramoAgent;
  /** Every HTTP answer the router gave: status and body (Veramo answers what it cannot handle with 400). */
  answers: { status: number; body: string }[];
}

const KMS = 'local';
const PATH = '/messaging';

/** A KeyValueStore over a Map, as Veramo's kv-store offers for memory. */
const memoryKv = <T extends ValueStoreType>(namespace: string) => new KeyValueStore<T>({ namespace, store: new Map<string, T>() });

function mediatorParts() {
  return {
    // isMediateDefaultGrantAll true: every requester is granted unless a DENY policy names it.
    plugins: [new MediationManagerPlugin(true, memoryKv<PreMediationRequestPolicy>('mediation_policy'), memoryKv<MediationResponse>('mediation_response'), memoryKv<RequesterDid>('recipient_did'))],
    handlers: [new CoordinateMediationV3MediatorMessageHandler(), new CoordinateMediationMediatorMessageHandler(), new RoutingMessageHandler(), new PickupMediatorMessageHandler()],
  };
}

export async function startVeramoAgent(options: VeramoOptions = {}): Promise<VeramoHandle> {
  const mediator = options.mediator ? mediatorParts() : { plugins: [], handlers: [] };
  const agent: VeramoAgent = createAgent({
    plugins: [
      ...mediator.plugins,
      new KeyManager({ store: new MemoryKeyStore(), kms: { [KMS]: new KeyManagementSystem(new MemoryPrivateKeyStore()) } }),
      new DIDManager({ store: new MemoryDIDStore(), defaultProvider: 'did:peer', providers: { 'did:peer': new PeerDIDProvider({ defaultKms: KMS }) } }),
      new DIDResolverPlugin({ ...peerResolver() }),
      // As Veramo's own tests keep a DataStoreJson in memory: a tree whose updates go nowhere.
      new DataStoreJson({ notifyUpdate: () => Promise.resolve() }),
      new MessageHandler({ messageHandlers: [new DIDCommMessageHandler(), new TrustPingMessageHandler(), ...mediator.handlers] }),
      new DIDComm(),
    ],
  });

  const answers: VeramoHandle['answers'] = [];
  const app = express();
  // Records what the router answered; the router itself is Veramo's, unchanged.
  app.use((req, res, next) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      answers.push({ status: res.statusCode, body: typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body) });
      return send(body);
    };
    next();
  });
  app.use(PATH, RequestWithAgentRouter({ agent }), MessagingRouter({ metaData: { type: 'DIDComm', value: 'idsync foreign-agent test' } }));
  // MessagingRouter logs every refusal with console.error; the status and body are recorded above.
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`;
  const identifier = await agent.didManagerCreate({
    provider: 'did:peer',
    options: { num_algo: 2, service: { id: '#messaging1', type: 'DIDCommMessaging', serviceEndpoint: endpoint } },
  });
  return {
    did: identifier.did,
    endpoint,
    agent,
    answers,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
