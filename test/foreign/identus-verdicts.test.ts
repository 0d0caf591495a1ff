// The verdicts of `conformance run` (every DID suite, default options) against an Identus 7
// responder on the SDK's Mercury (identus-agent.ts), case by case, each with its evidence: the
// DIDComm Messaging v2.1 sentence and the code (@hyperledger/identus-sdk 7.0.0 in node_modules; it
// packs and unpacks with a WASM build of elribonazo/didcomm-rust 5f844ef, which is SICPA's
// didcomm-rust v0.4.1 with an exported JWE package: its src/jws and src/message are v0.4.1's). One
// genuine failure, the flattened JWS; no false failure; `--expect` with that one pair accepts it.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runExitCode } from '../../src/harness/exit-code.js';
import { applyExpected, parseExpected } from '../../src/harness/expected.js';
import { fails } from '../../src/harness/judge.js';
import { runConformance } from '../../src/harness/run.js';
import type { ConformanceReport } from '../../src/harness/types.js';
import { startIdentusAgent, type IdentusHandle } from './identus-agent.js';
import { idsync, uncounted, verdicts } from './verdicts.js';

const EXPECT_FILE = new URL('./expect-flattened-jws.json', import.meta.url).pathname;

let identus: IdentusHandle;
let report: ConformanceReport;
const byId = (id: string) => report.cases.find((c) => c.id === id)!;

beforeAll(async () => {
  identus = await startIdentusAgent();
  report = await runConformance({ target: identus.did, resolve: documentResolver(createResolver({})) });
});
afterAll(async () => {
  await identus?.close();
});

describe('conformance run against Identus 7 (default options)', () => {
  it('gives these verdicts, case by case', () => {
    expect(verdicts(report)).toEqual({
      // Taken (202) and answered in authcrypt as v2.1 writes it: SDK src/mercury/didcomm/Wrapper.ts
      // packEncrypted, enc_alg_auth A256cbcHs512Ecdh1puA256kw; didcomm-rust src/jwe/encrypt.rs sets
      // apu = base64url(skid), apv from the recipient kids and feeds the tag to the KDF.
      'envelope/authcrypt': 'passed',
      // A general JWS with the kid in the unprotected header: the one form didcomm-rust reads.
      'envelope/signed': 'passed',
      // HTTP 400 "Malformed: Message is not a valid JWE, JWS or JWM": didcomm-rust
      // src/jws/envelope.rs parses `struct JWS { signatures: Vec<Signature>, payload }`, so a
      // flattened JWS fails to parse, src/message/unpack/sign.rs _try_unpack_sign gives up on a
      // Malformed parse, and the plaintext attempt fails too. v2.1 §DIDComm Signed Messages:
      // "Either the General or Flattened form of a JWS is valid. Message recipients MUST be able to
      // process both forms." The one genuine failure.
      'envelope/signed-flattened': 'failed: envelope.signed-supported',
      // Taken and answered in authcrypt (no weaker than asked).
      'envelope/anoncrypt': 'passed',
      'envelope/plaintext': 'passed',
      // Message.unpack opens every layer of a nested envelope.
      'envelope/anoncrypt-authcrypt': 'passed',
      'envelope/anoncrypt-signed': 'passed',
      'envelope/authcrypt-signed': 'passed',
      // The SDK has no trust-ping handler; identus-agent.ts answers through Mercury.sendMessage,
      // threaded to the ping, and not when response_requested is false.
      'trust-ping/response': 'passed',
      'trust-ping/no-response': 'passed',
      // Its ping-response (Mercury.sendMessage → makeRequest → ApiImpl.request, the SDK's FetchApi:
      // the global fetch with no redirect option, so 'follow', which keeps a 307's POST and body),
      // answered 307, comes again at the Location. v2.1 §Transports HTTPS: "HTTPS Redirects SHOULD
      // be followed."
      'transport/redirect-followed': 'passed',
      // The SDK implements no discover-features: the queries get 202 and silence. v2.1 §Discover
      // Features Protocol 2.0 does not require it (implementers "are *strongly* encouraged"), so
      // both cases are skipped, saying so, not failed nor inconclusive.
      'discover-features/disclose': 'skipped',
      'discover-features/disclosed-supported': 'skipped',
      // 202 and no problem report: v2.1 §Problem Reports calls reporting "not a general
      // *requirement* of DIDComm, but … a best practice" (no keyword): advice.
      'report-problem/unknown-type': 'passed (advice: report-problem.reply)',
      // HTTP 400: didcomm-rust src/message/message.rs `pub id: String` — a plaintext without id is
      // no message to it (v2.1 §Message IDs: it "SHOULD be rejected").
      'report-problem/missing-header': 'passed',
      // Answered although expired (didcomm-rust's unpack does not read expires_time) and no problem
      // report: v2.1 §Message Headers gives expires_time no receiver's keyword; both advice.
      'report-problem/expired': 'passed (advice: report-problem.reply, plaintext.expires_time-honoured)',
      // Answered again, under a new id each time. v2.1 §Message Headers: `id` "MUST be unique to the
      // sender, across all messages they send" — the sender's duty; no receiver must refuse a
      // replay (idsync's own profile advises it).
      'report-problem/replayed-id': 'passed (advice: plaintext.id-replayed)',
      // HTTP 400 "Unable decrypt content: AEAD decryption error" / "No recipient secrets found".
      'report-problem/tampered': 'passed',
      'report-problem/wrong-recipient': 'passed',
      'transport/junk': 'passed',
      // Every answer breaks nothing; every id is new (randomUUID per response).
      'run/sent-messages': 'passed',
    });
    expect(uncounted(report)).toEqual([]);
  });

  it('no message Identus sent breaks any rule, of any severity', () => {
    const received = report.cases.flatMap((c) => c.messages).filter((m) => m.direction === 'received');
    expect(received.length).toBeGreaterThan(15);
    expect(received.filter((m) => m.findings?.length)).toEqual([]);
    expect(new Set(received.map((m) => m.mode))).toEqual(new Set(['authcrypt']));
  });

  it('the flattened JWS is refused with the library\'s error, and the skipped cases say why', () => {
    const flattened = byId('envelope/signed-flattened');
    expect(flattened.messages[0]!.http).toMatchObject({ status: 400, body: 'Malformed: Message is not a valid JWE, JWS or JWM' });
    expect(flattened.detail).toContain('"Either the General or Flattened form of a JWS is valid. Message recipients MUST be able to process both forms."');
    expect(byId('discover-features/disclose').detail).toBe('the agent took the queries (HTTP 202 (text/plain)) and answered a ping sent after them, but not the queries: DIDComm v2.1 does not require discover-features (§Discover Features Protocol 2.0: implementers of agents "are *strongly* encouraged to implement support for this message")');
  });

  it('fails the run on that one MUST (exit 1); listed with --expect, the run passes (exit 0)', async () => {
    expect(runExitCode(report)).toBe(1);
    // The full run with the expected pair, as runCases applies it.
    const expected = parseExpected(readFileSync(EXPECT_FILE, 'utf8'));
    const accepted = report.cases.map((c) => applyExpected(c, expected, (b) => fails(b)));
    expect(accepted.find((c) => c.id === 'envelope/signed-flattened')!.status).toBe('expected');
    expect(runExitCode({ cases: accepted })).toBe(0);
    // The CLI, on the flattened case and one that passes.
    const args = ['conformance', 'run', '--target', identus.did, '--case', 'envelope/authcrypt', '--case', 'envelope/signed-flattened', '--json'];
    const plain = await idsync(args);
    expect(plain.code).toBe(1);
    expect(plain.err).toBe('idsync: conformance_failed: 1 case(s) failed: envelope/signed-flattened\n');
    const withExpect = await idsync([...args, '--expect', EXPECT_FILE]);
    expect(withExpect.code).toBe(0);
    expect(JSON.parse(withExpect.out)).toMatchObject({ exitCode: 0, summary: { passed: 2, failed: 0, expected: 1 } });
  }, 20_000);
});
