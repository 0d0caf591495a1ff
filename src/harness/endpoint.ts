// Where the harness reaches the agent under test: the DIDComm service endpoint of its DID document
// (DIDComm v2.1 §Service Endpoint) for the transport asked for.
import type { DIDDocument } from '../did/types.js';

export type HarnessTransport = 'http' | 'ws';

/** The DIDComm endpoint of a DID document for `transport`, if any: HTTP(S) first unless ws is asked for. */
export function didcommEndpointOf(doc: DIDDocument, transport?: HarnessTransport): { uri: string; transport: HarnessTransport } | undefined {
  const found: Array<{ uri: string; transport: HarnessTransport }> = [];
  for (const s of doc.service ?? []) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.includes('DIDCommMessaging')) continue;
    const eps = Array.isArray(s.serviceEndpoint) ? s.serviceEndpoint : [s.serviceEndpoint];
    for (const ep of eps) {
      const uri = typeof ep === 'string' ? ep : (ep as { uri?: unknown })?.uri;
      if (typeof uri === 'string' && /^https?:/.test(uri)) found.push({ uri, transport: 'http' });
      else if (typeof uri === 'string' && /^wss?:/.test(uri)) found.push({ uri, transport: 'ws' });
    }
  }
  return transport ? found.find((f) => f.transport === transport) : found.find((f) => f.transport === 'http') ?? found[0];
}
