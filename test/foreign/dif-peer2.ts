// did:peer:2 as the DIF Peer DID Method Specification (§Method 2) writes it, read into the DID
// document shape didcomm-node takes (keys as JsonWebKey2020, relationships as id strings, service
// endpoints with camelCase `routingKeys`). It belongs to the didcomm-node test agent: that agent's
// view of DIDs must owe nothing to idsync's own did:peer code (src/did/peer.ts), or a shared
// misreading would pass unseen. Only idsync's base58/base64url helpers are borrowed.
import { b64uDecodeText, b64uEncode, base58btcDecode, base58btcEncode } from '../../src/encoding.js';

export interface NodeVerificationMethod { id: string; type: 'JsonWebKey2020'; controller: string; publicKeyJwk: { kty: 'OKP'; crv: 'X25519' | 'Ed25519'; x: string } }
export interface NodeService { id: string; type: string; serviceEndpoint: { uri: string; accept?: string[]; routingKeys: string[] } }
export interface NodeDidDoc { id: string; keyAgreement: string[]; authentication: string[]; verificationMethod: NodeVerificationMethod[]; service: NodeService[] }

// Multicodec prefixes (varint): x25519-pub 0xec, ed25519-pub 0xed.
const CODECS = { X25519: [0xec, 0x01], Ed25519: [0xed, 0x01] } as const;

export function multikey(crv: 'X25519' | 'Ed25519', raw: Uint8Array): string {
  return `z${base58btcEncode(Uint8Array.from([...CODECS[crv], ...raw]))}`;
}

function fromMultikey(mk: string): { crv: 'X25519' | 'Ed25519'; raw: Uint8Array } {
  if (!mk.startsWith('z')) throw new Error(`not a base58btc multikey: ${mk}`);
  const bytes = base58btcDecode(mk.slice(1));
  for (const crv of ['X25519', 'Ed25519'] as const) {
    if (bytes[0] === CODECS[crv][0] && bytes[1] === CODECS[crv][1] && bytes.length === 34) return { crv, raw: bytes.slice(2) };
  }
  throw new Error(`unsupported multikey ${mk.slice(0, 8)}…`);
}

// §Method 2 "Common String Abbreviations".
const EXPAND: Record<string, string> = { t: 'type', s: 'serviceEndpoint', r: 'routingKeys', a: 'accept' };

function expand(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expand);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [EXPAND[k] ?? k, k === 't' && v === 'dm' ? 'DIDCommMessaging' : expand(v)]));
}

/** did:peer:2.E<agreement>.V<authentication>.S<service> */
export function encodePeer2(agreement: Uint8Array, authentication: Uint8Array, endpoint: string): string {
  const service = { t: 'dm', s: { uri: endpoint, a: ['didcomm/v2'] } };
  return `did:peer:2.E${multikey('X25519', agreement)}.V${multikey('Ed25519', authentication)}.S${b64uEncode(JSON.stringify(service))}`;
}

/** §Method 2 "Resolving a did:peer:2": one verification method per key element, #key-1… in order. */
export function resolvePeer2(did: string): NodeDidDoc {
  if (!did.startsWith('did:peer:2.')) throw new Error(`not a did:peer:2: ${did}`);
  const doc: NodeDidDoc = { id: did, keyAgreement: [], authentication: [], verificationMethod: [], service: [] };
  let keys = 0;
  let services = 0;
  for (const element of did.slice('did:peer:2.'.length).split('.')) {
    const [code, body] = [element[0], element.slice(1)];
    if (code === 'S') {
      const decoded = expand(JSON.parse(b64uDecodeText(body))) as Record<string, unknown>;
      for (const svc of Array.isArray(decoded) ? decoded : [decoded]) {
        const ep = svc.serviceEndpoint as string | { uri: string; accept?: string[]; routingKeys?: string[] };
        const endpoint = typeof ep === 'string' ? { uri: ep, routingKeys: (svc.routingKeys as string[]) ?? [], ...(svc.accept ? { accept: svc.accept as string[] } : {}) } : { ...ep, routingKeys: ep.routingKeys ?? [] };
        const id = typeof svc.id === 'string' ? svc.id : services === 0 ? '#service' : `#service-${services}`;
        services++;
        doc.service.push({ id: id.startsWith('#') ? `${did}${id}` : id, type: String(svc.type), serviceEndpoint: endpoint });
      }
      continue;
    }
    const id = `${did}#key-${++keys}`;
    const { crv, raw } = fromMultikey(body);
    doc.verificationMethod.push({ id, type: 'JsonWebKey2020', controller: did, publicKeyJwk: { kty: 'OKP', crv, x: b64uEncode(raw) } });
    if (code === 'E') doc.keyAgreement.push(id);
    if (code === 'V') doc.authentication.push(id);
  }
  return doc;
}
