// Every message the agent sends is judged and counted in a verdict: answers, problem reports,
// return-routed bodies and messages idsync cannot open. A broken MUST fails the case the message
// belongs to — even a case that never looks at it (a barrier's ping-response) — or the run-level
// case for what arrives after its case ended and for two different messages with one id.
import { afterEach, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { attribute, MessageOwners, reusedIds } from '../../src/harness/judge.js';
import { runConformance } from '../../src/harness/run.js';
import type { ConformanceReport, ExchangedMessage } from '../../src/harness/types.js';
import { startWrongAgent, type WrongAgent, type WrongAgentFault } from './wrong-agent.js';

let agent: WrongAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function run(faults: WrongAgentFault[], timeoutMs = 1000) {
  agent = await startWrongAgent(faults);
  return runConformance({ target: agent.did, resolve: documentResolver(createResolver({})), timeoutMs });
}

/** Each finding logged on a received message, and whether some case counted it (same rule, same message). */
function uncounted(r: ConformanceReport): string[] {
  const counted = new Set(r.cases.flatMap((c) => c.broken.map((b) => `${b.rule}@${b.seq}`)));
  const logged = new Map<number, ExchangedMessage>();
  for (const m of r.cases.flatMap((c) => c.messages)) if (m.direction === 'received') logged.set(m.seq, m);
  return [...logged.values()].flatMap((m) => (m.findings ?? []).map((f) => `${f.rule}@${m.seq}`)).filter((k) => !counted.has(k));
}

describe('every message the agent sends is judged', () => {
  it('a broken reply fails every case it arrives in, also the cases that only wait for a barrier', async () => {
    // broken-reply: each ping-response has body "pong"; DIDComm v2.1 §Message Headers, body: "If present, it MUST be a JSON object".
    const r = await run(['broken-reply']);
    const withPingResponse = r.cases.filter((c) => c.id !== 'run/sent-messages' && c.messages.some((m) => m.direction === 'received' && m.type?.endsWith('/ping-response'))).map((c) => c.id);
    expect(withPingResponse).toContain('trust-ping/no-response');
    expect(withPingResponse).toContain('report-problem/tampered');
    expect(r.cases.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual(withPingResponse);
    for (const id of withPingResponse) expect(r.cases.find((c) => c.id === id)!.failedRules).toEqual(['plaintext.body']);
    expect(uncounted(r)).toEqual([]);
  }, 30_000);

  it('messages idsync cannot open count too: what opening them showed is the verdict', async () => {
    // Answers that cannot be opened never arrive as answers: each envelope case waits out its timeout.
    const r = await run(['tampered-reply'], 400);
    // Its ping-responses arrive with a changed ciphertext; its other messages open.
    const unopened = r.cases.flatMap((c) => c.messages).filter((m) => m.direction === 'received' && m.type === undefined);
    expect(unopened.length).toBeGreaterThan(0);
    for (const m of unopened) {
      expect(m.mode).toBe('unreadable');
      expect(m.opened).toMatch(/^not opened: /);
      expect(m.findings?.length).toBeGreaterThan(0);
    }
    const failing = r.cases.filter((c) => c.status === 'failed');
    expect(failing.map((c) => c.id)).toContain('envelope/authcrypt');
    for (const c of failing) expect(c.failedRules).toEqual([...new Set(c.messages.flatMap((m) => (m.findings ?? []).filter((f) => f.severity === 'error').map((f) => f.rule)))]);
    expect(uncounted(r)).toEqual([]);
  }, 60_000);

  it.each<WrongAgentFault>(['ping-thid', 'reuse-id', 'pickup-return-route', 'plaintext-reply'])('no finding is logged without being counted (%s)', async (fault) => {
    const r = await run([fault]);
    expect(uncounted(r)).toEqual([]);
  }, 30_000);

  it('a return-routed body is a message: judged in the case whose request it answers', async () => {
    const r = await run(['pickup-return-route']);
    const c = r.cases.find((x) => x.id === 'discover-features/disclosed-supported')!;
    const status = c.messages.find((m) => m.type?.endsWith('/status'))!;
    expect(status).toMatchObject({ direction: 'received', via: 'return-route', mode: 'authcrypt', caseId: c.id });
    expect(c.broken.find((b) => b.rule === 'messagepickup.status.message_count')?.seq).toBe(status.seq);
  }, 20_000);
});

describe('whose message it is', () => {
  const e = (seq: number, direction: 'sent' | 'received', ids: Partial<ExchangedMessage> = {}): ExchangedMessage => ({ seq, direction, atMs: 0, via: direction === 'sent' ? 'http-post' : 'endpoint', mode: 'authcrypt', ...ids });

  it('an answer to a message of an earlier case is late: it belongs to the run; an unthreaded one to the case during which it came', () => {
    const owners = new MessageOwners();
    owners.addSent('a', [e(1, 'sent', { id: 'ping-a' })]);
    const window = [e(2, 'sent', { id: 'ping-b' }), e(3, 'received', { thid: 'ping-a' }), e(4, 'received', { thid: 'ping-b' }), e(5, 'received', { id: 'x' })];
    owners.addSent('b', window);
    const split = attribute('b', window, owners);
    expect(split.own.map((m) => m.seq)).toEqual([4, 5]);
    expect(split.late.map((m) => m.seq)).toEqual([3]);
    // A case that sent nothing (blocked) owns nothing that arrives meanwhile.
    expect(attribute('c', [e(6, 'received', { id: 'y' })], owners).late.map((m) => m.seq)).toEqual([6]);
  });

  it('two different messages with one id break plaintext.id-unique; the same message twice (a resend) does not', () => {
    const m = (seq: number, id: string, body: Record<string, unknown>) => e(seq, 'received', { id, plaintext: JSON.stringify({ id, type: 't', body }), type: 't' });
    expect(reusedIds([m(1, 'x', { a: 1 }), m(2, 'x', { a: 1 })])).toEqual([]);
    expect(reusedIds([m(1, 'x', { a: 1 }), m(2, 'x', { a: 2 })]).map((b) => `${b.rule}@${b.seq}`)).toEqual(['plaintext.id-unique@2']);
  });
});
