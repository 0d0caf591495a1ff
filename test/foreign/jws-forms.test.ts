// The four JWS forms DIDComm v2.1 §Message Signing allows ("Either the General or Flattened form of
// a JWS is valid. Message recipients MUST be able to process both forms."), each with the kid in
// the protected or the unprotected header (RFC 7515 §7.2.1: the JOSE header is their union), sent
// as a signed ping to each foreign agent. No agent takes all four, and the two libraries take
// disjoint halves: Veramo reads the kid only from the protected header, didcomm-rust (didcomm-node
// and the Identus SDK) parses only the general form with the kid unprotected.
import { sign as edSign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolvePeerDid } from '../../src/did/peer.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { b64uEncode } from '../../src/encoding.js';
import { startCounterpart, type Counterpart } from '../../src/harness/counterpart.js';
import { fromMultikey, publicJwk } from '../../src/keys.js';
import { startDidcommNodeAgent } from './didcomm-node-agent.js';
import { startIdentusAgent } from './identus-agent.js';
import { startVeramoAgent, type ForeignAgent } from './veramo-agent.js';

const PING = 'https://didcomm.org/trust-ping/2.0/ping';
type Form = 'flattened, kid protected' | 'flattened, kid unprotected' | 'general, kid protected' | 'general, kid unprotected';
const FORMS: Form[] = ['flattened, kid protected', 'flattened, kid unprotected', 'general, kid protected', 'general, kid unprotected'];

/** A ping from the harness, signed with its authentication key (#key-2) in `form`. */
function signedPing(cp: Counterpart, form: Form): { id: string; text: string } {
  const ping = cp.draft(PING, { response_requested: true });
  const key = cp.signingKey();
  const x = publicJwk(fromMultikey(resolvePeerDid(cp.did).verificationMethod!.find((m) => m.id === key.kid)!.publicKeyMultibase!)).x;
  const kidProtected = form.endsWith('kid protected');
  const protectedB64 = b64uEncode(JSON.stringify({ typ: 'application/didcomm-signed+json', alg: 'EdDSA', ...(kidProtected ? { kid: key.kid } : {}) }));
  const payload = b64uEncode(JSON.stringify(ping));
  const signature = b64uEncode(edSign(null, Buffer.from(`${protectedB64}.${payload}`), { key: { kty: 'OKP', crv: 'Ed25519', x, d: b64uEncode(key.privateKey) }, format: 'jwk' }));
  const sig = { protected: protectedB64, ...(kidProtected ? {} : { header: { kid: key.kid } }), signature };
  const jws = form.startsWith('flattened') ? { payload, ...sig } : { payload, signatures: [sig] };
  return { id: ping.id, text: JSON.stringify(jws) };
}

const agents: Record<string, { start: () => Promise<ForeignAgent & { answers: { status: number; body: string }[] }>; taken: Form[]; refusal: string }> = {
  // @veramo/did-comm src/didcomm.ts unpackDIDCommMessageJWS: header = decodeJoseBlob(protected); header.kid.
  Veramo: { start: startVeramoAgent, taken: ['flattened, kid protected', 'general, kid protected'], refusal: 'Unsupported message type' },
  // didcomm-rust v0.4.1 src/jws/envelope.rs: struct JWS { signatures: Vec<Signature> }, Signature { header: Header { kid } }.
  Identus: { start: startIdentusAgent, taken: ['general, kid unprotected'], refusal: 'Malformed: Message is not a valid JWE, JWS or JWM' },
  'didcomm-node': { start: startDidcommNodeAgent, taken: ['general, kid unprotected'], refusal: 'DIDCommMalformed: Malformed: Message is not a valid JWE, JWS or JWM' },
};

describe.each(Object.entries(agents))('%s and the four JWS forms', (_name, agent) => {
  let handle: Awaited<ReturnType<typeof agent.start>>;
  let cp: Counterpart;
  beforeAll(async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    handle = await agent.start();
    cp = await startCounterpart({ target: handle.did, resolve: documentResolver(createResolver({})), postTimeoutMs: 5000 });
  });
  afterAll(async () => {
    await cp?.close();
    await handle?.close();
  });

  it.each(FORMS)('%s', async (form) => {
    const { id, text } = signedPing(cp, form);
    const posted = await cp.post(text, 'application/didcomm-signed+json', { type: PING, id, mode: 'signed', note: form });
    if (agent.taken.includes(form)) {
      expect(posted.status).toBeGreaterThanOrEqual(200);
      expect(posted.status).toBeLessThan(300);
      // Taken and answered: some message comes back to the harness's endpoint after this POST.
      expect(await cp.waitFor((r) => r.via === 'endpoint' && r.entry.seq > posted.entry.seq, 5000)).toBeDefined();
    } else {
      expect(posted.status).toBe(400);
      expect(handle.answers.at(-1)!.body).toBe(agent.refusal);
    }
  });
});
