// The diagnosis cross-checked with Veramo 7's own packing (@veramo/did-comm, a devDependency): a
// minimal Veramo agent (keys in memory, a did:peer:2 of its own) authcrypts a ping to a did:example
// party of ours, and `message check`'s shared entry says what it finds. Expected, with evidence:
// - the draft-03 ECDH-1PU KDF: Veramo builds its authcrypt KEK with did-jwt's
//   createX25519Ecdh1PUv3Kek, which leaves the JWE tag out of the KDF (reported upstream at
//   https://github.com/decentralized-identity/veramo/issues/1375), where
//   draft-madden-jose-ecdh-1pu-04 §2.3 puts it into SuppPubInfo (cctag);
// - A256GCM: Veramo's packDIDCommMessage defaults enc to A256GCM, which draft 04 §2.1 rejects for
//   key wrapping ("Other content encryption algorithms MUST be rejected");
// - no apu/apv: its protected header carries skid alone (DIDComm v2.1 §ECDH-1PU key wrapping:
//   apu "MUST contain the skid value", apv "MUST be" the digest of the recipient kids).
import { describe, expect, it } from 'vitest';
import { createAgent, type IDIDManager, type IKeyManager, type IResolver, type TAgent } from '@veramo/core';
import { DIDComm, type IDIDComm } from '@veramo/did-comm';
import { DIDManager, MemoryDIDStore } from '@veramo/did-manager';
import { PeerDIDProvider, getResolver as peerResolver } from '@veramo/did-provider-peer';
import { DIDResolverPlugin } from '@veramo/did-resolver';
import { KeyManager, MemoryKeyStore, MemoryPrivateKeyStore } from '@veramo/key-manager';
import { KeyManagementSystem } from '@veramo/kms-local';
import type { DIDDocument } from '../../src/did/types.js';
import { checkMessageText } from '../../src/harness/check.js';
import { contextFor, makeParty } from '../didcomm/envelope-fixtures.js';

describe('what Veramo 7 authcrypts', () => {
  it('opens only leniently, and each of its deviations is found with its rule', async () => {
    const bob = makeParty('bob');
    const agent: TAgent<IKeyManager & IDIDManager & IResolver & IDIDComm> = createAgent({
      plugins: [
        new KeyManager({ store: new MemoryKeyStore(), kms: { local: new KeyManagementSystem(new MemoryPrivateKeyStore()) } }),
        new DIDManager({ store: new MemoryDIDStore(), defaultProvider: 'did:peer', providers: { 'did:peer': new PeerDIDProvider({ defaultKms: 'local' }) } }),
        new DIDResolverPlugin({
          ...peerResolver(),
          example: async (did: string) => ({ didResolutionMetadata: {}, didDocumentMetadata: {}, didDocument: did === bob.did ? (bob.doc as never) : null }),
        }),
        new DIDComm(),
      ],
    });
    const alice = await agent.didManagerCreate({ provider: 'did:peer', options: { num_algo: 2, service: { id: '#didcomm', type: 'DIDCommMessaging', serviceEndpoint: 'http://127.0.0.1:1', description: '' } } });
    const ping = { id: 'p-1', type: 'https://didcomm.org/trust-ping/2.0/ping', from: alice.did, to: [bob.did], body: { response_requested: true } };
    const { message: packed } = await agent.packDIDCommMessage({ packing: 'authcrypt', message: ping });
    const aliceDoc = (await agent.resolveDid({ didUrl: alice.did })).didDocument as unknown as DIDDocument;
    const resolve = async (did: string) => (did === bob.did ? bob.doc : did === alice.did ? aliceDoc : null);

    const c = await checkMessageText(packed, contextFor(bob, resolve));
    expect(c.diagnosis).toEqual([
      { rule: 'envelope.authcrypt-enc', finding: 'ECDH-1PU with A256GCM (authcrypt requires the AES-CBC-HMAC family)' },
      { rule: 'envelope.authcrypt-apu', finding: 'no apu/apv' },
      { rule: 'envelope.authcrypt-kdf', finding: 'opens only with the draft-03 ECDH-1PU KDF (no tag in the KDF)' },
    ]);
    expect(c).toMatchObject({ ok: false, opened: true, message: { id: 'p-1', from: alice.did } });
    expect(c.results.filter((r) => !r.ok && r.severity === 'error').map((r) => r.rule)).toEqual(['envelope.authcrypt-enc', 'envelope.authcrypt-apu', 'envelope.jwe-apv', 'envelope.authcrypt-kdf']);
    // Once opened, the sender is proven as for any authcrypt: the from is the skid's DID.
    expect(c.results.find((r) => r.rule === 'envelope.from-matches-sender')?.ok).toBe(true);
  }, 20_000);
});
