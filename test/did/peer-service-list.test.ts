// did:peer:2 S elements that hold a JSON list of services: the Identus SDK writes every peer DID
// with one, `.SW10` (base64url of `[]`) when the DID has no service, and sends its mediation
// requests from such DIDs.
import { describe, expect, it } from 'vitest';
import { b64uEncode } from '../../src/encoding.js';
import { resolvePeerDid } from '../../src/did/peer.js';

// Made by @hyperledger/identus-sdk 7.0.0 (Castor.createPeerDID with an X25519 and an Ed25519 key, no service).
const IDENTUS = 'did:peer:2.Ez6LSpJ3EyJ5nKT7gCia6cKP1qjcLT3XV3Ke4wZP7cLHivk9h.Vz6MkoDjZeXaeBNnhKQZRpxr4TqVHCUgR6Tb63RmSYeCoUCsm.SW10';

describe('did:peer:2 service lists', () => {
  it('resolves an empty list (.SW10) to a document without services, keys numbered in DID order', () => {
    const doc = resolvePeerDid(IDENTUS);
    expect(doc.service).toEqual([]);
    expect(doc.keyAgreement).toEqual([`${IDENTUS}#key-1`]);
    expect(doc.authentication).toEqual([`${IDENTUS}#key-2`]);
  });

  it('resolves a list of services to one service each', () => {
    const list = [
      { t: 'dm', s: { uri: 'http://127.0.0.1:1/didcomm', a: ['didcomm/v2'] } },
      { t: 'dm', s: { uri: 'ws://127.0.0.1:1/didcomm', a: ['didcomm/v2'] } },
    ];
    const did = IDENTUS.replace('.SW10', `.S${b64uEncode(JSON.stringify(list))}`);
    const doc = resolvePeerDid(did);
    expect(doc.service!.map((s) => [s.id.split('#')[1], (s.serviceEndpoint as { uri: string }).uri])).toEqual([
      ['service', 'http://127.0.0.1:1/didcomm'],
      ['service-1', 'ws://127.0.0.1:1/didcomm'],
    ]);
  });

  it('still refuses a list holding something other than service objects', () => {
    expect(() => resolvePeerDid(IDENTUS.replace('.SW10', `.S${b64uEncode('[1]')}`))).toThrow(/service list holds something other than services/);
  });
});
