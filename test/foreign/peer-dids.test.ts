// One did:peer:2, four readers: idsync (src/did/peer.ts), Veramo's resolver (@veramo/did-provider-peer
// over @aviarytech/did-peer), the Identus SDK's Castor, and the DIF numbering the didcomm-node test
// agent reads by (dif-peer2.ts). A DID is read alike when every reader names the same key ids for
// the same keys under keyAgreement and authentication, and the same endpoints.
import SDK from '@hyperledger/identus-sdk';
import { getResolver as veramoPeerResolver } from '@veramo/did-provider-peer';
import { parse } from 'did-resolver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePeerDid2, createPeerDid, resolvePeer, resolvePeerDid } from '../../src/did/peer.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { b64uEncode } from '../../src/encoding.js';
import { startCounterpart, type Counterpart } from '../../src/harness/counterpart.js';
import { fromMultikey, generateKeyPair, toMultikey } from '../../src/keys.js';
import { resolvePeer2 } from './dif-peer2.js';
import { identusPeerDid } from './identus-agent.js';
import { startVeramoAgent, type VeramoHandle } from './veramo-agent.js';

/** A reader's view: [key id, raw key (base64url)] per relationship, and the endpoint URIs. */
interface View { keyAgreement: [string, string][]; authentication: [string, string][]; endpoints: string[] }

const rawOf = (multibase: string) => b64uEncode(fromMultikey(multibase).publicKey);
const uriOf = (ep: unknown) => (typeof ep === 'string' ? ep : (ep as { uri: string }).uri);

function idsyncView(did: string): View {
  const doc = resolvePeerDid(did);
  const key = (id: string) => rawOf(doc.verificationMethod!.find((m) => m.id === id)!.publicKeyMultibase!);
  const rel = (ids: unknown[] = []) => (ids as string[]).map((id) => [id, key(id)] as [string, string]);
  return { keyAgreement: rel(doc.keyAgreement), authentication: rel(doc.authentication), endpoints: (doc.service ?? []).map((s) => uriOf(s.serviceEndpoint)) };
}

async function veramoView(did: string): Promise<View> {
  const { didDocument: doc } = await veramoPeerResolver().peer(did, parse(did)!, { resolve: async () => ({}) as never }, {});
  const abs = (id: string) => (id.startsWith('#') ? did + id : id);
  const key = (id: string) => rawOf(doc!.verificationMethod!.find((m) => abs(m.id) === abs(id))!.publicKeyMultibase!);
  const rel = (ids: unknown[] = []) => (ids as string[]).map((id) => [abs(id), key(id)] as [string, string]);
  return { keyAgreement: rel(doc!.keyAgreement), authentication: rel(doc!.authentication), endpoints: (doc!.service ?? []).map((s) => uriOf(s.serviceEndpoint)) };
}

const castor = new SDK.Castor(new SDK.Apollo());
async function identusView(did: string): Promise<View> {
  const doc = await castor.resolveDID(did);
  const rel = (vms: { id: string; publicKeyJwk?: object }[]) => vms.map((m) => [m.id, String((m.publicKeyJwk as { x?: unknown } | undefined)?.x)] as [string, string]);
  return { keyAgreement: rel(doc.keyAgreement), authentication: rel(doc.authentication), endpoints: doc.services.map((s) => s.serviceEndpoint.uri) };
}

function difView(did: string): View {
  const doc = resolvePeer2(did);
  const key = (id: string) => doc.verificationMethod.find((m) => m.id === id)!.publicKeyJwk.x;
  return { keyAgreement: doc.keyAgreement.map((id) => [id, key(id)]), authentication: doc.authentication.map((id) => [id, key(id)]), endpoints: doc.service.map((s) => s.serviceEndpoint.uri) };
}

let cp: Counterpart;
let veramo: VeramoHandle;
beforeAll(async () => {
  cp = await startCounterpart({ resolve: documentResolver(createResolver({})), postTimeoutMs: 1000 });
  veramo = await startVeramoAgent();
});
afterAll(async () => {
  await cp?.close();
  await veramo?.close();
});

describe('did:peer:2 read by idsync, Veramo, Identus and the DIF numbering alike', () => {
  it.each([
    ['a did:peer:2 idsync creates', () => createPeerDid({ endpoint: 'https://agent.example/didcomm' }).did],
    ["the harness's own did:peer:2 (E, V and a separate A key)", () => cp.did],
  ])('%s resolves to the same key ids, keys and endpoints in all four', async (_name, make) => {
    const did = make();
    const view = idsyncView(did);
    expect(view.keyAgreement.map(([id]) => id)).toEqual([`${did}#key-1`]);
    expect(view.authentication.map(([id]) => id)).toEqual([`${did}#key-2`]);
    expect(await veramoView(did)).toEqual(view);
    expect(await identusView(did)).toEqual(view);
    expect(difView(did)).toEqual(view);
  });

  it('a did:peer:2 Veramo creates (its service in the DIDComm v2.0 string form) has the same key ids and keys in all four; Castor reads no endpoint from it', async () => {
    const did = veramo.did;
    const view = idsyncView(did);
    expect(view.keyAgreement.map(([id]) => id)).toEqual([`${did}#key-1`]);
    expect(view.endpoints).toEqual([veramo.endpoint]);
    expect(await veramoView(did)).toEqual(view);
    expect(difView(did)).toEqual(view);
    // PeerDIDService.decode reads s.uri only: a string endpoint (v2.1 §Service Endpoint: "MUST contain an object") is lost.
    expect(await identusView(did)).toEqual({ ...view, endpoints: [undefined] });
  });

  it('a did:peer:2 the Identus SDK creates resolves to the same keys in idsync as in its own Castor (its service ids aside)', async () => {
    const did = (await identusPeerDid({ apollo: new SDK.Apollo(), castor }, 'https://identus.example/didcomm')).toString();
    expect(idsyncView(did)).toEqual(await identusView(did));
    expect(await veramoView(did)).toEqual(idsyncView(did));
    // Castor names services #DIDCommMessaging-<n> whatever the DID says; the DIF default is #service.
    expect((await castor.resolveDID(did)).services[0].id).toBe(`${did}#DIDCommMessaging-0`);
    expect(resolvePeerDid(did).service![0].id).toBe(`${did}#service`);
  });

  it("Castor's DID without services (`.SW10`) resolves in idsync with a warning and the keys Castor gives it", async () => {
    const did = (await identusPeerDid({ apollo: new SDK.Apollo(), castor })).toString();
    expect(did.endsWith('.SW10')).toBe(true);
    const result = await resolvePeer(did);
    expect(result.didResolutionMetadata.warnings).toEqual([expect.objectContaining({ code: 'peer2_service_list' })]);
    expect(idsyncView(did)).toEqual(await identusView(did));
  });

  it('the older form, one Ed25519 key as V and A before E, reads differently in Veramo: its key agreement key is #key-2 there, #key-3 elsewhere', async () => {
    const signing = toMultikey(generateKeyPair('Ed25519'));
    const agree = toMultikey(generateKeyPair('X25519'));
    const did = encodePeerDid2({ keys: [{ purpose: 'V', publicKeyMultibase: signing }, { purpose: 'A', publicKeyMultibase: signing }, { purpose: 'E', publicKeyMultibase: agree }] });
    expect(idsyncView(did).keyAgreement).toEqual([[`${did}#key-3`, rawOf(agree)]]);
    expect((await identusView(did)).keyAgreement).toEqual([[`${did}#key-3`, rawOf(agree)]]);
    expect((await veramoView(did)).keyAgreement).toEqual([[`${did}#key-2`, rawOf(agree)]]);
  });

  it("Veramo's resolver refuses a did:peer:2 whose service encoding holds '-' or '_' (its pattern, the DIF spec's non-normative regex, lacks them); idsync and Castor read it", async () => {
    // '~' at this position makes a base64url '-': an endpoint with a query can do it.
    const did = createPeerDid({ endpoint: 'https://agent.example/didcomm?session=a~' }).did;
    expect(did.split('.S')[1]).toMatch(/[-_]/);
    const { didResolutionMetadata } = await veramoPeerResolver().peer(did, parse(did)!, { resolve: async () => ({}) as never }, {});
    expect(didResolutionMetadata.error).toBe('notFound');
    expect(String(didResolutionMetadata.message)).toContain('is not a valid did:peer');
    expect(await identusView(did)).toEqual(idsyncView(did));
  });
});
