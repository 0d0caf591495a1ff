// The mediator suite (`conformance run --role mediator`) judges idsync's own mediator over real
// sockets: every case passes with a deny rule and small limits set, and those that need a policy
// skip, saying which, without one; the same through the invitation URL and the CLI. A mediator that
// answers a forward 202 and loses it is judged failed, naming the rule.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { MEDIATOR_CASES, runMediatorConformance } from '../../src/harness/run-mediator.js';
import { runConformance } from '../../src/harness/run.js';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { openStore, type Store } from '../../src/store/store.js';
import { ROOT, runCli } from '../cli/run-cli.js';

const resolve = documentResolver(createResolver({ cache: false }));
const stores: Store[] = [];
const mediators: RunningMediator[] = [];

async function mediator(policy: Parameters<typeof startMediator>[0]['policy']): Promise<RunningMediator> {
  const store = await openStore();
  stores.push(store);
  const m = await startMediator({ store, policy });
  mediators.push(m);
  return m;
}

let strict: RunningMediator;
let open: RunningMediator;
beforeAll(async () => {
  strict = await mediator({ deny: ['did:key:*'], maxKeys: 30, maxQueue: 20, maxMessageBytes: 65_536, maxDelayMs: 60_000 });
  open = await mediator({});
});
afterAll(async () => {
  for (const m of mediators) await m.close();
  for (const s of stores) await s.close();
});

describe('conformance run --role mediator', () => {
  it("passes idsync's mediator with a deny rule and small limits: every case", async () => {
    const report = await runMediatorConformance({ target: strict.did, resolve, timeoutMs: 3000 });
    const notPassed = report.cases.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status} ${c.detail ?? ''}`);
    expect(notPassed).toEqual([]);
    expect(report.cases.map((c) => c.id)).toEqual([...MEDIATOR_CASES.map((c) => c.id), 'run/sent-messages']);
    expect(report.cases.flatMap((c) => c.warnings)).toEqual([]);
  }, 60_000);

  it('over --transport ws fails nothing on the same mediator: the HTTP-only cases skip saying why, the deny comes on the socket, the oversized forward is refused by its 1009 close', async () => {
    const report = await runMediatorConformance({ target: strict.did, resolve, timeoutMs: 3000, transport: 'ws' });
    const notPassed = Object.fromEntries(report.cases.filter((c) => c.status !== 'passed').map((c) => [c.id, `${c.status}: ${c.detail ?? ''}`]));
    expect(Object.keys(notPassed).sort()).toEqual(['limits/queue', 'live/http-refused']);
    expect(notPassed['live/http-refused']).toMatch(/^skipped: .*--transport http/);
    expect(notPassed['limits/queue']).toMatch(/^skipped: .*WebSocket.*--transport http \(25 sent, the status counts 20\)/);
    // Its WebSocket takes frames up to 1 MiB: the forward of a 600 KiB message (about 1.04 MiB
    // once encrypted twice) closes the socket with 1009, and nothing is queued.
    const size = report.cases.find((c) => c.id === 'limits/message-size')!;
    expect(size.status).toBe('passed');
    expect(size.notes?.join('\n')).toMatch(/closed the WebSocket with 1009 .*counts none: RFC 6455 §7\.4\.1 \(transport\.ws-close-too-big\): "1009 indicates/);
    expect(size.judges).toContain('transport.ws-close-too-big');
    // No request waited out its timeout on the doomed socket: the case ends well within one.
    expect(size.durationMs).toBeLessThan(3000);
  }, 60_000);

  it("passes the peer suites too (trust-ping, discover-features, report-problem, envelope modes) on the mediator's DID", async () => {
    const report = await runConformance({ target: strict.did, resolve, timeoutMs: 3000 });
    expect(report.cases.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status} ${c.detail ?? ''}`)).toEqual([]);
  }, 60_000);

  it('skips, saying why, what needs a policy the mediator lacks; fails nothing', async () => {
    const report = await runMediatorConformance({ target: open.invitationUrl, resolve, timeoutMs: 3000, suites: ['mediation', 'limits'] });
    expect(report.summary.failed).toBe(0);
    const skippedCases = Object.fromEntries(report.cases.filter((c) => c.status === 'skipped').map((c) => [c.id, c.detail]));
    expect(skippedCases['mediation/deny']).toMatch(/--deny/);
    expect(skippedCases['limits/queue']).toMatch(/--max-queue/);
    expect(skippedCases['limits/keylist']).toMatch(/took 25 more DIDs .*--max-keys/);
    // Its default delay limit (1 h) refuses a 10-day delay; its size limit (1 MiB request) a 600 KiB message.
    expect(report.cases.find((c) => c.id === 'limits/delay')?.status).toBe('passed');
  }, 60_000);

  it('sends its requests in --mode: an anoncrypt mediate-request, whose sender it cannot authenticate, is answered e.p.trust', async () => {
    const report = await runMediatorConformance({ target: strict.did, resolve, timeoutMs: 3000, mode: 'anoncrypt', cases: ['mediation/grant'] });
    const grant = report.cases.find((c) => c.id === 'mediation/grant')!;
    expect(grant.messages.find((m) => m.direction === 'sent')).toMatchObject({ mode: 'anoncrypt' });
    expect(grant.status).toBe('skipped');
    expect(grant.detail).toMatch(/problem-report e\.p\.trust/);
  }, 60_000);

  it('names coordinate-mediation.update-result (advice: the sentence has no RFC 2119 keyword) for a mediator whose keylist holds DIDs its update answered with an error', async () => {
    const sloppy = await mediator({});
    // Every DID is registered, and every one answered client_error.
    const keylist = sloppy.agent.mediator.keylist;
    const update = keylist.update.bind(keylist);
    keylist.update = async (party, updates) => (await update(party, updates)).map((u) => ({ ...u, result: 'client_error' as const }));
    const report = await runMediatorConformance({ target: sloppy.did, resolve, timeoutMs: 3000, cases: ['limits/keylist'] });
    const probe = report.cases.find((c) => c.id === 'limits/keylist')!;
    expect(probe.status).toBe('passed');
    expect(probe.advice).toEqual(['coordinate-mediation.update-result']);
    expect(probe.broken).toEqual([expect.objectContaining({ rule: 'coordinate-mediation.update-result', severity: 'advice', detail: '25 DIDs answered with no success are listed all the same' })]);
  }, 60_000);

  it('lists routing.forward.receipt as advice for a mediator that answers forwards 202 and keeps nothing (Routing §Roles has no keyword)', async () => {
    const lossy = await mediator({});
    // The forward handler's queue is this object: its writes now vanish.
    const queue = lossy.agent.mediator.queue;
    queue.enqueue = async (recipient, packed) => ({ id: `lost-${Math.random()}`, recipient, packed, queuedAt: new Date().toISOString() });
    const report = await runMediatorConformance({ target: lossy.did, resolve, timeoutMs: 3000, suites: ['forward-pickup'] });
    const delivery = report.cases.find((c) => c.id === 'pickup/forward-delivery')!;
    expect(delivery.failedRules).not.toContain('routing.forward.receipt');
    expect(delivery.advice).toContain('routing.forward.receipt');
    expect(delivery.broken.find((b) => b.rule === 'routing.forward.receipt')).toMatchObject({ severity: 'advice' });
    expect(report.cases.find((c) => c.id === 'pickup/forward-unknown')?.status).toBe('passed');
  }, 60_000);

  it('a target DID that does not resolve blocks every case and exits 3, as the process, which then ends', () => {
    // It threw invalid_did with the harness's server still listening, so the process never ended.
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'conformance', 'run', '--role', 'mediator', '--target', 'did:peer:2.Ez6LSbogus'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(run.signal).toBeNull();
    expect(run.status).toBe(3);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^idsync: conformance_not_judged: .*did:peer:2.Ez6LSbogus is not a valid DID/)]);
  }, 40_000);

  it('runs from the CLI and exits 0; --suite picks suites of the mediator role', async () => {
    const run = await runCli(['conformance', 'run', '--role', 'mediator', '--target', strict.did, '--suite', 'forward-pickup', '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as { summary: { passed: number; failed: number } };
    expect(doc.summary).toMatchObject({ failed: 0 });
    expect(doc.summary.passed).toBeGreaterThan(0);
    const bad = await runCli(['conformance', 'run', '--role', 'mediator', '--target', strict.did, '--suite', 'trust-ping']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^idsync: invalid_argument: unknown suite trust-ping/);
  }, 60_000);
});
