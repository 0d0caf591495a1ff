// Veramo 7's mediator handlers (@veramo/did-comm 7.0.1, decentralized-identity/veramo,
// Apache-2.0) deployed the way Veramo's own tests deploy them: CoordinateMediationV3MediatorMessageHandler
// and CoordinateMediationMediatorMessageHandler (2.0), RoutingMessageHandler and
// PickupMediatorMessageHandler behind DIDCommMessageHandler, with the MediationManagerPlugin
// over in-memory KeyValueStores (grant everyone), DataStoreJson for the queue, a did:peer:2 whose
// DIDCommMessaging service names its MessagingRouter on 127.0.0.1 (port 0). docs/mediation.md
// ("Behind Veramo's mediator handlers") says where idsync's wallet stops with it, and why.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAgent } from '@veramo/core';
import { DataStoreJson } from '@veramo/data-store-json';
import {
  CoordinateMediationMediatorMessageHandler, CoordinateMediationV3MediatorMessageHandler, DIDComm, DIDCommMessageHandler, PickupMediatorMessageHandler,
  RoutingMessageHandler, TrustPingMessageHandler,
} from '@veramo/did-comm';
import { DIDManager, MemoryDIDStore } from '@veramo/did-manager';
import { getResolver as peerResolver, PeerDIDProvider } from '@veramo/did-provider-peer';
import { DIDResolverPlugin } from '@veramo/did-resolver';
import { KeyManager, MemoryKeyStore, MemoryPrivateKeyStore } from '@veramo/key-manager';
import { KeyValueStore } from '@veramo/kv-store';
import { KeyManagementSystem } from '@veramo/kms-local';
import { MediationManagerPlugin } from '@veramo/mediation-manager';
import { MessageHandler } from '@veramo/message-handler';
import { MessagingRouter, RequestWithAgentRouter } from '@veramo/remote-server';
import express from 'express';

export interface VeramoMediator {
  did: string;
  endpoint: string;
  /** Every HTTP answer its router gave (status, body), in order. */
  answers: { status: number; body: string }[];
  close(): Promise<void>;
}

const KMS = 'local';
const PATH = '/messaging';

export async function startVeramoMediator(): Promise<VeramoMediator> {
  const agent = createAgent({
    plugins: [
      new KeyManager({ store: new MemoryKeyStore(), kms: { [KMS]: new KeyManagementSystem(new MemoryPrivateKeyStore()) } }),
      new DIDManager({ store: new MemoryDIDStore(), defaultProvider: 'did:peer', providers: { 'did:peer': new PeerDIDProvider({ defaultKms: KMS }) } }),
      new DIDResolverPlugin({ ...peerResolver() }),
      new DataStoreJson({ notifyUpdate: () => Promise.resolve() }),
      // Grant everyone (Veramo's default, isMediateDefaultGrantAll = true), stores in memory as its tests keep them.
      new MediationManagerPlugin(true, new KeyValueStore({ store: new Map() }), new KeyValueStore({ store: new Map() }), new KeyValueStore({ store: new Map() })),
      new MessageHandler({
        messageHandlers: [
          new DIDCommMessageHandler(),
          new TrustPingMessageHandler(),
          new CoordinateMediationV3MediatorMessageHandler(),
          new CoordinateMediationMediatorMessageHandler(),
          new RoutingMessageHandler(),
          new PickupMediatorMessageHandler(),
        ],
      }),
      new DIDComm(),
    ],
  });
  const answers: VeramoMediator['answers'] = [];
  const app = express();
  app.use((req, res, next) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      answers.push({ status: res.statusCode, body: typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body) });
      return send(body);
    };
    next();
  });
  app.use(PATH, RequestWithAgentRouter({ agent }), MessagingRouter({ metaData: { type: 'DIDComm', value: 'idsync mediated-wallet test' } }));
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
    answers,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
