// The verdicts of `conformance run --mode anoncrypt` against the Veramo 7 agent of
// veramo-agent.ts: the mode the default run names for the ten cases it blocks (Veramo refuses
// authcrypt), so that every case is judged. Each verdict cites its evidence: the DIDComm Messaging
// v2.1 sentence and Veramo's code (@veramo/* 7.0.1 in node_modules). The envelope verdicts are the
// default run's (veramo-verdicts.test.ts has their evidence); every case in which Veramo answers
// also fails on the envelope of its answer, which breaks the same four MUSTs each time.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runExitCode } from '../../src/harness/exit-code.js';
import { runConformance } from '../../src/harness/run.js';
import type { ConformanceReport } from '../../src/harness/types.js';
import { startVeramoAgent, type VeramoHandle } from './veramo-agent.js';
import { uncounted, verdicts } from './verdicts.js';

/**
 * Its answers' envelope: ECDH-1PU with A256GCM (@veramo/did-comm src/didcomm.ts
 * packDIDCommMessageJWE `defaults`), no apu/apv (its encrypters get only { kid }), the draft-03 KDF
 * (did-jwt src/encryption/X25519-ECDH-1PU.ts; veramo#1375).
 */
const ITS_ANSWERS = 'envelope.authcrypt-enc, envelope.authcrypt-apu, envelope.jwe-apv, envelope.authcrypt-kdf';

let veramo: VeramoHandle;
let report: ConformanceReport;
const byId = (id: string) => report.cases.find((c) => c.id === id)!;

beforeAll(async () => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  veramo = await startVeramoAgent();
  report = await runConformance({ target: veramo.did, resolve: documentResolver(createResolver({})), mode: 'anoncrypt' });
});
afterAll(async () => {
  await veramo?.close();
});

describe('conformance run --mode anoncrypt against Veramo 7', () => {
  it('gives these verdicts, case by case', () => {
    expect(verdicts(report)).toEqual({
      // The run's own mode first. As in the default run: its answer's envelope.
      'envelope/anoncrypt': `failed: ${ITS_ANSWERS}`,
      // Refused as in the default run: advice, no sentence obliges a recipient to process authcrypt.
      'envelope/authcrypt': 'passed (advice: envelope.authcrypt-supported)',
      'envelope/signed': 'failed: envelope.signed-supported',
      'envelope/signed-flattened': 'failed: envelope.signed-supported',
      'envelope/plaintext': `failed: ${ITS_ANSWERS}`,
      'envelope/anoncrypt-authcrypt': `failed: ${ITS_ANSWERS}`,
      'envelope/anoncrypt-signed': `failed: ${ITS_ANSWERS}`,
      'envelope/authcrypt-signed': 'blocked',
      // Threaded right (createTrustPingResponse: thid = the ping id); the envelope is what fails.
      'trust-ping/response': `failed: ${ITS_ANSWERS}`,
      // TrustPingMessageHandler.handle never reads body.response_requested: a ping asking for no
      // response gets one. v2.1 §Trust Ping: "If false, the sender is not requesting a
      // ping-response from the receiver." — no RFC 2119 keyword: advice.
      'trust-ping/no-response': `failed: ${ITS_ANSWERS} (advice: trust-ping.no-response)`,
      // Its ping-response, answered 307, comes again at the Location: DIDCommHttpTransport.send
      // (@veramo/did-comm src/transports/transports.ts) posts with cross-fetch 4.1 → node-fetch
      // 2.7, which follows a 307 with the same method and body (lib/index.js: only a 303, or a
      // 301/302 of a POST, becomes a GET). No warning, then; the answer it brought breaks the four
      // MUSTs every answer of Veramo's does. v2.1 §Transports HTTPS: "HTTPS Redirects SHOULD be followed."
      'transport/redirect-followed': `failed: ${ITS_ANSWERS}`,
      // No discover-features handler: the queries get 200 {"id"} and silence (skipped: v2.1 does
      // not require the protocol); the barrier ping's answer is judged here.
      'discover-features/disclose': `failed: ${ITS_ANSWERS}`,
      'discover-features/disclosed-supported': 'skipped',
      // 200 {"id"} and no problem report (DIDCommMessageHandler treats a message no handler took
      // as handled). v2.1 §Problem Reports: "not a general *requirement* of DIDComm, but it *is* a
      // best practice": advice.
      'report-problem/unknown-type': 'passed (advice: report-problem.reply)',
      // Answered: TrustPingMessageHandler builds createTrustPingResponse(to, from, id) with id
      // undefined — a ping-response with id "undefined-response" and no thid. v2.1 §Message IDs: a
      // message without id "MUST NOT be interpreted as part of a multi-message interaction"; the
      // answer itself lacks the thid v2.1 §Threads requires ("All subsequent messages in a thread
      // MUST include a `thid` header").
      'report-problem/missing-header': `failed: plaintext.id-missing-refused, ${ITS_ANSWERS}, trust-ping.response-thid`,
      // Answered although expired (expires_time is copied to message.expiresAt, never compared),
      // without a problem report: both without an RFC 2119 keyword in v2.1, advice.
      'report-problem/expired': `failed: ${ITS_ANSWERS} (advice: report-problem.reply, plaintext.expires_time-honoured)`,
      // The replay is answered again, with the same response (same id, same content): v2.1 makes
      // ids "unique to the sender", it does not ask a receiver to drop a replay (idsync's profile
      // advises it).
      'report-problem/replayed-id': `failed: ${ITS_ANSWERS} (advice: plaintext.id-replayed)`,
      // HTTP 400 to the tampered and the misaddressed message, never acted on; the barrier's answer
      // is judged in each.
      'report-problem/tampered': `failed: ${ITS_ANSWERS}`,
      'report-problem/wrong-recipient': `failed: ${ITS_ANSWERS}`,
      'transport/junk': 'passed',
      'run/sent-messages': 'passed',
    });
    expect(report.cases.filter((c) => c.status === 'inconclusive')).toEqual([]);
    expect(uncounted(report)).toEqual([]);
    expect(runExitCode(report)).toBe(1);
  });

  it('the ping without id was sent in the run\'s mode, taken, and answered with id "undefined-response"', () => {
    const c = byId('report-problem/missing-header');
    const idless = c.messages.find((m) => m.note === 'no id header')!;
    expect(idless).toMatchObject({ mode: 'anoncrypt', httpStatus: 200 });
    const answer = c.messages.find((m) => m.direction === 'received' && m.seq > idless.seq)!;
    expect(answer).toMatchObject({ type: 'https://didcomm.org/trust-ping/2.0/ping-response', id: 'undefined-response' });
    expect(answer.thid).toBeUndefined();
  });

  it('the replay is answered twice with one and the same message: no id is reused for another', () => {
    const answers = byId('report-problem/replayed-id').messages.filter((m) => m.direction === 'received' && m.id?.endsWith('-response') && m.thid === byId('report-problem/replayed-id').messages[0]!.id);
    expect(answers).toHaveLength(2);
    expect(answers[0]!.plaintext).toBe(answers[1]!.plaintext);
    expect(byId('run/sent-messages').failedRules).toEqual([]);
  });
});
