// idsync's public library surface: the pieces a test or tool needs to build its own flows.
// The QA testbed (a service and N wallets in-process, and helpers that await states) is the
// separate entry point `idsync/testing`.

// Errors: one type, with a code from the catalogue (docs/errors.md lists them).
export { IdsyncError, isIdsyncError, isErrorCode, httpStatusOf, problemCodeOf, ERRORS, type ErrorCode, type ErrorEntry } from './errors.js';
export { systemClock, ManualClock, uuid, sequentialIds, type Clock, type IdGenerator } from './clock.js';
export { generateKeyPair, publicJwk, privateJwk, toMultikey, fromMultikey, type KeyPair, type KeyType } from './keys.js';

// DIDs (W3C DID Core; did:ion long form, did:peer:2, did:peer:4, did:key, did:web) and one resolver for all.
export type { DIDDocument, DIDResolutionResult, Secret, CreatedDid, DidRegistry } from './did/types.js';
export { createIonDid, parseIonDid, verifyIonLongForm, resolveIonLongForm } from './did/ion.js';
export { ionShortForm, isIonLongForm } from './did/ion-form.js';
export { createPeerDid } from './did/peer.js';
export { createPeerDid4, peer4ShortForm } from './did/peer4.js';
export { createKeyDid } from './did/key.js';
export { createWebDid, didWebFromUrl } from './did/web.js';
export { createResolver, documentResolver, resolutionCache } from './did/resolver.js';

// DIDComm v2 envelopes, transports and the router.
export type { PlainMessage, EnvelopeMode, EnvelopeContext, EnvelopeEngine, EnvelopeNote, PackOptions, UnpackResult, Transport } from './didcomm/types.js';
export { pack, unpack, wrapInForward, parseForward, packFromPrior } from './didcomm/envelope/index.js';
export { memorySecrets } from './didcomm/secrets.js';
export { createRouter } from './router/router.js';
export { httpTransport, startHttpEndpoint } from './didcomm/transport/http.js';
export { wsTransport, attachWsEndpoint } from './didcomm/transport/ws.js';
export { memoryNetwork } from './didcomm/transport/memory.js';
export { multiTransport } from './didcomm/transport/index.js';
export { createInvitation, encodeInvitationUrl, parseInvitationUrl } from './protocols/out-of-band.js';
export { checkMessage, createRuleRegistry } from './conformance/registry.js';

// The store: one LevelDB (on disk, or in memory) with typed collections.
export { openStore, type Store, type Collection } from './store/store.js';
export { storeSecrets } from './store/secrets.js';
export { didRegistry } from './store/dids.js';
export { messageLog } from './store/messages.js';

// Verifiable credentials (eddsa-rdfc-2022 Data Integrity and VC-JWT) and datapoints.
export { issueCredential } from './credentials/issue.js';
export { verifyCredential } from './credentials/verify.js';
export { normalizeFlat, toNested, toFlat } from './credentials/datapoints.js';

// The two sides: they meet only on the wire.
export { createService, type Service, type CreateServiceOptions } from './service/app.js';
export { createWallet, type Wallet, type WalletOptions } from './wallet/wallet.js';

// The mediator, a party of its own (`idsync mediator`); the client side of coordinate-mediation.
export { startMediator, type RunningMediator, type StartMediatorOptions } from './mediator/server.js';
export { createMediatorAgent, type MediatorAgent, type MediatorAgentOptions } from './mediator/agent.js';
export { createMediator, type Mediator, type MediatorDeps } from './mediator/mediator.js';
export { requestMediation, updateRecipients, queryRecipients, mediationClientProtocol } from './protocols/coordinate-mediation.js';
export { buildForward, wrapForMediator } from './protocols/routing.js';
