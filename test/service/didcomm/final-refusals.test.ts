// Messages that can never succeed are refused for good with a code (docs/service.md "The service's
// DID and DIDComm endpoints"): an anoncrypted trust ping asking for a response, a pickup
// status-request and a propose-credential without an authenticated sender have nobody to answer.
// POST /didcomm answers 400 with the code and the DIDComm problem code every time the message is
// sent, never 503 "retry later"; nothing is logged as an error. Over real sockets on 127.0.0.1.
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { systemClock } from '../../../src/clock.js';
import { createResolver, documentResolver } from '../../../src/did/resolver.js';
import { pack } from '../../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../../src/didcomm/secrets.js';
import type { PlainMessage } from '../../../src/didcomm/types.js';
import { buildProposeCredential } from '../../../src/protocols/issue-credential.js';
import { buildStatusRequest } from '../../../src/protocols/message-pickup.js';
import { createPing } from '../../../src/protocols/trust-ping.js';
import { expectProblem, startService, type Harness } from '../http-helpers.js';
import { recordingLogger } from '../recording-logger.js';

const ENCRYPTED = { 'content-type': 'application/didcomm-encrypted+json' };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Anoncrypted to the service's did:web (resolved over HTTP from the running service). */
async function anoncrypt(message: PlainMessage, to: string): Promise<string> {
  const ctx = { resolve: documentResolver(createResolver({ cache: false })), secrets: memorySecrets([]) };
  return (await pack({ ...message, to: [to] }, { mode: 'anoncrypt', to }, ctx)).packed;
}

const CASES: { name: string; build: (to: string) => PlainMessage; code: string; problemCode: string }[] = [
  {
    name: 'a trust ping with response_requested',
    build: (to) => createPing({ to, responseRequested: true }, { clock: systemClock }),
    code: 'no_reply_address',
    problemCode: 'e.p.req.no-reply-address',
  },
  {
    name: 'a pickup status-request',
    build: () => buildStatusRequest({}, { clock: systemClock }),
    code: 'sender_not_authenticated',
    problemCode: 'e.p.trust',
  },
  {
    name: 'a propose-credential',
    build: () => buildProposeCredential({ pthid: 'some-invitation' }, { clock: systemClock }),
    code: 'sender_not_authenticated',
    problemCode: 'e.p.trust',
  },
];

describe('POST /didcomm refuses for good what has no way to reply', () => {
  for (const c of CASES) {
    it(`answers 400 ${c.code} to ${c.name} sent anoncrypted, every time it is sent, and logs no error`, async () => {
      const log = recordingLogger();
      h = await startService({ logger: log.logger });
      const packed = await anoncrypt(c.build(h.service.deps.serviceDid), h.service.deps.serviceDid);
      for (let attempt = 0; attempt < 3; attempt++) {
        const res = await h.call('POST', '/didcomm', { raw: true, body: packed, headers: ENCRYPTED });
        const body = expectProblem(res, 400, c.code);
        expect(body.problemCode).toBe(c.problemCode);
        expect(res.headers.get('retry-after')).toBeNull();
      }
      expect(log.lines.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
    });
  }

  it('over the WebSocket, logs the refusal as information, not as a failure that may pass', async () => {
    const log = recordingLogger();
    h = await startService({ logger: log.logger });
    const did = h.service.deps.serviceDid;
    const packed = await anoncrypt(createPing({ to: did, responseRequested: true }, { clock: systemClock }), did);
    const logged = log.next((l) => l.data.transport === 'ws' && l.data.code === 'no_reply_address');
    const ws = new WebSocket(`${h.url.replace(/^http/, 'ws')}/didcomm`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(packed);
    const line = await logged;
    expect(line).toMatchObject({ level: 'info', data: { problemCode: 'e.p.req.no-reply-address' } });
    expect(log.lines.some((l) => l.data.code === 'temporarily_unavailable' || l.level === 'error')).toBe(false);
    const closed = new Promise((r) => ws.once('close', r));
    ws.close();
    await closed;
  });

  it('still answers 202 to an anoncrypted ping that asks for no response', async () => {
    h = await startService();
    const did = h.service.deps.serviceDid;
    const packed = await anoncrypt(createPing({ to: did, responseRequested: false }, { clock: systemClock }), did);
    expect((await h.call('POST', '/didcomm', { raw: true, body: packed, headers: ENCRYPTED })).status).toBe(202);
  });
});
