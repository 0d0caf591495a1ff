// idsync's harness counterpart against a plain agent on didcomm-node (didcomm-node-agent.ts):
// trust-ping and discover-features answered in authcrypt, nothing idsync's checks call broken,
// and the one place the library reads v2.1 more strictly than it is written (`body`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf } from '../../src/conformance/types.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { startCounterpart, type Counterpart } from '../../src/harness/counterpart.js';
import { protectedHeader } from './ecdh-1pu.js';
import { PROTOCOLS, startDidcommNodeAgent, type DidcommNodeHandle } from './didcomm-node-agent.js';

const PING = `${PROTOCOLS.trustPing}/ping`;
const QUERIES = `${PROTOCOLS.discoverFeatures}/queries`;

let agent: DidcommNodeHandle;
let cp: Counterpart;

beforeAll(async () => {
  agent = await startDidcommNodeAgent();
  cp = await startCounterpart({ target: agent.did, resolve: documentResolver(createResolver({})), postTimeoutMs: 5000 });
});
afterAll(async () => {
  await cp?.close();
  await agent?.close();
});

const answersTo = (id: string) => cp.received.filter((r) => r.message?.thid === id);
const answerTo = (id: string) => cp.waitFor((r) => r.message?.thid === id, 5000);

describe('a plain agent on didcomm-node', () => {
  it('answers an authcrypted ping in authcrypt with apu and apv set, and idsync finds nothing broken', async () => {
    const ping = cp.draft(PING, { response_requested: true });
    expect((await cp.send(ping, { mode: 'authcrypt' })).status).toBe(202);
    const answer = (await answerTo(ping.id))!;
    expect(answer.message).toMatchObject({ type: `${PROTOCOLS.trustPing}/ping-response`, from: agent.did });
    expect(answer.check.metadata?.mode).toBe('authcrypt');
    expect(errorsOf(answer.check.results)).toEqual([]);
    expect(protectedHeader(answer.packed)).toMatchObject({ alg: 'ECDH-1PU+A256KW', enc: 'A256CBC-HS512', skid: `${agent.did}#key-1`, apu: expect.any(String), apv: expect.any(String) });
  });

  it('discloses the protocols it answers for a wildcard query, and nothing for one it does not speak', async () => {
    const query = cp.draft(QUERIES, { queries: [{ 'feature-type': 'protocol', match: 'https://didcomm.org/*' }] });
    await cp.send(query, { mode: 'authcrypt' });
    const disclose = (await answerTo(query.id))!;
    expect(errorsOf(disclose.check.results)).toEqual([]);
    expect(disclose.message!.body).toEqual({
      disclosures: [
        { 'feature-type': 'protocol', id: PROTOCOLS.trustPing, roles: ['receiver'] },
        { 'feature-type': 'protocol', id: PROTOCOLS.discoverFeatures, roles: ['responder'] },
      ],
    });
    const none = cp.draft(QUERIES, { queries: [{ 'feature-type': 'protocol', match: 'https://didcomm.org/issue-credential/3.0' }] });
    await cp.send(none, { mode: 'authcrypt' });
    expect((await answerTo(none.id))!.message!.body).toEqual({ disclosures: [] });
  });

  it('answers the same ping sent twice: it does not refuse a replayed id, and v2.1 asks no receiver to', async () => {
    const ping = cp.draft(PING, { response_requested: true });
    await cp.send(ping, { mode: 'authcrypt' });
    await answerTo(ping.id);
    await cp.send(ping, { mode: 'authcrypt' });
    await cp.waitFor(() => answersTo(ping.id).length === 2, 5000);
    expect(new Set(answersTo(ping.id).map((r) => r.message!.id)).size).toBe(2);
  });

  it('refuses a plaintext without body, which v2.1 makes OPTIONAL, with HTTP 400 (Message::unpack needs it); the same with body {} is taken', async () => {
    const plain = (m: Record<string, unknown>) => cp.post(JSON.stringify({ ...m, typ: 'application/didcomm-plain+json' }), 'application/didcomm-plain+json', { type: PING, id: String(m.id), mode: 'plaintext' });
    const { body: _body, ...bodyless } = cp.draft(PING, {});
    expect((await plain(bodyless)).status).toBe(400);
    expect(agent.answers.at(-1)!.body).toBe('DIDCommMalformed: Malformed: Message is not a valid JWE, JWS or JWM');
    expect((await plain({ ...bodyless, id: `${bodyless.id}-with-body`, body: {} })).status).toBe(202);
  });
});
