// The options of `idsync conformance run` and `conformance matrix`, and the exit statuses: 0 only
// when a case passed and none failed, 1 when one failed, 3 when nothing could be judged.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program.js';
import { tempDir } from '../cli/run-cli.js';
import { startWrongAgent, type WrongAgent, type WrongAgentFault } from './wrong-agent.js';

const dirs: Array<{ remove(): Promise<void> }> = [];
const agents: WrongAgent[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.close();
});
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(args, { stdout: (t) => void (out += t), stderr: (t) => void (err += t), readStdin: async () => '' });
  return { code, out, err };
}

async function agent(faults: WrongAgentFault[] = []): Promise<WrongAgent> {
  const a = await startWrongAgent(faults);
  agents.push(a);
  return a;
}

async function dir() {
  const d = await tempDir();
  dirs.push(d);
  return d;
}

type Doc = { cases: Array<{ id: string; status: string; failedRules: string[]; messages: Array<{ direction: string; mode: string }> }>; summary: Record<string, number>; exitCode: number; [k: string]: unknown };
const json = (out: string) => JSON.parse(out) as Doc;

describe('exit statuses', () => {
  it('0 when a case passed and none failed', async () => {
    const a = await agent();
    const r = await cli(['conformance', 'run', '--target', a.did, '--suite', 'trust-ping', '--timeout', '2000', '--json']);
    expect(r.code).toBe(0);
    expect(json(r.out).exitCode).toBe(0);
  }, 20_000);

  it('3 for an HTTP-only agent asked over a WebSocket: every case is blocked, saying why', async () => {
    const a = await agent();
    const r = await cli(['conformance', 'run', '--target', a.did, '--transport', 'ws', '--timeout', '2000', '--json']);
    expect(r.code).toBe(3);
    expect(r.err).toBe(`idsync: conformance_not_judged: no case passed (20 blocked): ${a.did} names no DIDComm WebSocket (ws/wss) endpoint in its DID document\n`);
    expect(json(r.out).summary).toMatchObject({ passed: 0, blocked: 20, skipped: 1 });
  }, 20_000);

  it('3 for an agent that cannot be reached: its DID does not resolve, so every case is blocked', async () => {
    // A did:web on a port where nothing listens (port 1 is reserved and closed on test machines).
    const r = await cli(['conformance', 'run', '--target', 'did:web:127.0.0.1%3A1', '--suite', 'trust-ping', '--json']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/^idsync: conformance_not_judged: no case passed \(2 blocked\): /);
    expect(json(r.out).cases.map((c) => c.status)).toEqual(['blocked', 'blocked', 'skipped']);
  }, 20_000);

  it('3 for an agent that takes every message and answers none: nothing passed', async () => {
    const a = await agent(['silent']);
    const r = await cli(['conformance', 'run', '--target', a.did, '--suite', 'trust-ping', '--timeout', '300', '--json']);
    expect(r.code).toBe(3);
    expect(json(r.out).cases.map((c) => `${c.id} ${c.status}`)).toEqual(['trust-ping/response inconclusive', 'trust-ping/no-response blocked', 'run/sent-messages skipped']);
    expect(r.err).toMatch(/^idsync: conformance_not_judged: no case passed \(1 blocked, 1 inconclusive\): no ping-response within 300 ms\n$/);
  }, 20_000);

  it('--help documents them', async () => {
    const r = await cli(['conformance', 'run', '--help']);
    expect(r.out).toContain('Exit status:\n  0  at least one case passed and none failed\n  1  a case failed');
    expect(r.out).toContain('  3  nothing could be judged');
  });
});

describe('choosing what runs', () => {
  it('--case (repeatable) runs those cases, and the run-level case; an unknown id is a usage error', async () => {
    const a = await agent();
    const r = await cli(['conformance', 'run', '--target', a.did, '--case', 'trust-ping/response', '--case', 'transport/junk', '--json']);
    expect(json(r.out).cases.map((c) => c.id)).toEqual(['trust-ping/response', 'transport/junk', 'run/sent-messages']);
    const bad = await cli(['conformance', 'run', '--target', a.did, '--case', 'nope/nothing']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^idsync: invalid_argument: unknown case nope\/nothing \(cases: envelope\/authcrypt, /);
    // A case of another kind of target (an invitation flow) is unknown for a DID, also a usage error.
    expect((await cli(['conformance', 'run', '--target', a.did, '--case', 'waci/streamlined-vc'])).code).toBe(2);
  }, 20_000);

  it('--mode signed packs the cases\' messages as signed JWS', async () => {
    const a = await agent();
    const r = await cli(['conformance', 'run', '--target', a.did, '--suite', 'trust-ping', '--mode', 'signed', '--json']);
    expect(r.code).toBe(0);
    const doc = json(r.out);
    expect(doc.mode).toBe('signed');
    expect([...new Set(doc.cases.flatMap((c) => c.messages).filter((m) => m.direction === 'sent').map((m) => m.mode))]).toEqual(['signed']);
  }, 20_000);

  it('--as did:web: the harness is did:web:127.0.0.1%3A<port> and serves its own DID document', async () => {
    const a = await agent();
    const r = await cli(['conformance', 'run', '--target', a.did, '--suite', 'trust-ping,discover-features', '--as', 'did:web', '--json']);
    expect(r.code).toBe(0);
    expect(json(r.out).harnessDid).toMatch(/^did:web:127\.0\.0\.1%3A\d+$/);
  }, 20_000);

  it('--as did:peer:4: the harness is a did:peer:4 in its long form, and the agent answers it', async () => {
    const a = await agent();
    const r = await cli(['conformance', 'run', '--target', a.did, '--suite', 'trust-ping,discover-features', '--as', 'did:peer:4', '--json']);
    expect(r.code).toBe(0);
    expect(json(r.out).harnessDid).toMatch(/^did:peer:4zQm\w{44}:z\w+$/);
  }, 20_000);

  it('--profile strict fails a case on advice not followed, which the liberal profile only lists', async () => {
    // no-problem-reports: an unknown type is refused silently; DIDComm v2.1 §Problem Reports gives the report no RFC 2119 keyword (advice).
    const a = await agent(['no-problem-reports']);
    const args = ['conformance', 'run', '--target', a.did, '--case', 'report-problem/unknown-type', '--timeout', '300', '--json'];
    const lenient = await cli(args);
    expect(lenient.code).toBe(0);
    expect(json(lenient.out).cases[0]).toMatchObject({ status: 'passed', advice: ['report-problem.reply'] });
    const strict = await cli([...args, '--profile', 'strict']);
    expect(strict.code).toBe(1);
    expect(json(strict.out).cases[0]).toMatchObject({ status: 'failed', failedRules: ['report-problem.reply'] });
  }, 20_000);
});

describe('reading a run', () => {
  it('--verbose prints every message and HTTP answer on stderr as it happens; --json stays one document', async () => {
    const a = await agent();
    const r = await cli(['conformance', 'run', '--target', a.did, '--case', 'trust-ping/response', '--case', 'transport/junk', '--json', '--verbose']);
    expect(r.code).toBe(0);
    json(r.out);
    expect(r.err).toMatch(/^→ #1 authcrypt trust-ping\/2\.0\/ping id \w{8}\n {5}\{ "id": "/);
    expect(r.err).toMatch(/\n {3}#1 answered HTTP 202 \(empty body\)\n/);
    expect(r.err).toMatch(/\n← #2 endpoint authcrypt trust-ping\/2\.0\/ping-response id \w{8} thid \w{8}\n {5}\{/);
    expect(r.err).toMatch(/\n→ #\d+ unreadable raw body not JSON\n {5}this is not a DIDComm message\n {3}#\d+ answered HTTP 400/);
  }, 20_000);

  it('--expect: a listed failure shows as expected and does not fail the run; a listed failure that now passes is reported', async () => {
    const a = await agent(['ping-thid']);
    const d = await dir();
    const file = d.file('expected.json');
    await writeFile(file, JSON.stringify([
      { case: 'trust-ping/response', rule: 'trust-ping.response-thid', reason: 'threads responses by its own ids' },
      { case: 'transport/junk', rule: 'transport.no-server-error', reason: 'used to answer junk with 500' },
    ]));
    const r = await cli(['conformance', 'run', '--target', a.did, '--suite', 'trust-ping,transport', '--expect', file]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('XFAIL trust-ping/response');
    expect(r.out).toContain('expected to fail, now passes: transport/junk transport.no-server-error (used to answer junk with 500)');
    const bad = await cli(['conformance', 'run', '--target', a.did, '--expect', d.file('missing.json')]);
    expect(bad).toMatchObject({ code: 2, err: expect.stringMatching(/^idsync: file_not_found: --expect .*missing\.json: no such file\n$/) });
  }, 20_000);

  it('--baseline: what newly fails and what newly passes since an earlier report.json', async () => {
    const wrong = await agent(['ping-thid']);
    const d = await dir();
    expect((await cli(['conformance', 'run', '--target', wrong.did, '--suite', 'trust-ping,transport', '--report', d.path])).code).toBe(1);
    const good = await agent();
    const r = await cli(['conformance', 'run', '--target', good.did, '--suite', 'trust-ping,transport', '--baseline', join(d.path, 'report.json'), '--json']);
    expect(r.code).toBe(0);
    expect(json(r.out).baseline).toEqual({ newlyFailing: [], newlyPassing: [{ case: 'trust-ping/response', rule: 'trust-ping.response-thid' }], statusChanges: [{ case: 'trust-ping/response', from: 'failed', to: 'passed' }] });
    const human = await cli(['conformance', 'run', '--target', wrong.did, '--suite', 'trust-ping,transport', '--baseline', join(d.path, 'report.json')]);
    expect(human.out).toContain('against the baseline: newly failing none; newly passing none');
  }, 30_000);
});

describe('idsync conformance matrix', () => {
  it('runs each target and lays cases and rules side by side in one HTML page (and --json); exit 1 when one failed', async () => {
    const good = await agent();
    const wrong = await agent(['ping-thid']);
    const d = await dir();
    const r = await cli(['conformance', 'matrix', '--target', good.did, '--target', wrong.did, '--suite', 'trust-ping', '--report', d.path, '--json']);
    expect(r.code).toBe(1);
    const m = JSON.parse(r.out) as { targets: Array<{ target: string; exitCode: number }>; cases: Array<{ id: string; results: string[] }>; rules: Array<{ rule: string; results: Array<{ state: string }> }> };
    expect(m.targets.map((t) => [t.target, t.exitCode])).toEqual([[good.did, 0], [wrong.did, 1]]);
    expect(m.cases.find((c) => c.id === 'trust-ping/response')!.results).toEqual(['passed', 'failed']);
    expect(m.rules.find((x) => x.rule === 'trust-ping.response-thid')!.results.map((x) => x.state)).toEqual(['held', 'broken']);
    const html = await readFile(join(d.path, 'matrix.html'), 'utf8');
    expect(html).toContain(good.did);
    expect(html).toContain('<a href="target-2/report.html">');
    expect(html).not.toContain('file://');
    expect(html).not.toMatch(/<(script|link|img)\b/);
    await readFile(join(d.path, 'target-1', 'report.html'), 'utf8');
  }, 30_000);
});
