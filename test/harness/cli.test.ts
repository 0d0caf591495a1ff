// `idsync conformance run` from the command line: in process against the wrong agent (exit status,
// --json shape, the three report files), and once across processes against `idsync service`.
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program.js';
import { runCli, tempDir } from '../cli/run-cli.js';
import { startCli } from '../e2e/processes.js';
import { startWrongAgent } from './wrong-agent.js';

const dirs: Array<{ remove(): Promise<void> }> = [];
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(args, { stdout: (t) => void (out += t), stderr: (t) => void (err += t), readStdin: async () => '' });
  return { code, out, err };
}

describe('idsync conformance run', () => {
  it('exits 1 when a case failed; --json is {target, cases: [{id, title, status, failedRules, messages}], summary}; --report writes three files', async () => {
    const agent = await startWrongAgent(['ping-thid']);
    const dir = await tempDir();
    dirs.push(dir);
    try {
      const r = await cli(['conformance', 'run', '--target', agent.did, '--suite', 'trust-ping,transport', '--report', dir.path, '--timeout', '2000', '--json']);
      expect(r.err).toBe('idsync: conformance_failed: 1 case(s) failed: trust-ping/response\n');
      expect(r.code).toBe(1);
      const doc = JSON.parse(r.out) as { target: string; cases: Array<Record<string, unknown>>; summary: Record<string, number> };
      expect(doc.target).toBe(agent.did);
      expect(doc.summary).toEqual({ passed: 4, failed: 1, expected: 0, blocked: 0, skipped: 0, inconclusive: 0 });
      expect(doc.cases.map((c) => c.id)).toEqual(['trust-ping/response', 'trust-ping/no-response', 'transport/redirect-followed', 'transport/junk', 'run/sent-messages']);
      for (const c of doc.cases) expect(Object.keys(c)).toEqual(expect.arrayContaining(['id', 'title', 'status', 'failedRules', 'messages']));
      expect(doc.cases[0]).toMatchObject({ status: 'failed', failedRules: ['trust-ping.response-thid'] });

      const report = JSON.parse(await readFile(join(dir.path, 'report.json'), 'utf8')) as { cases: unknown[] };
      expect(report.cases).toHaveLength(5);
      const junit = await readFile(join(dir.path, 'junit.xml'), 'utf8');
      expect(junit).toMatch(/<testsuites name="idsync conformance [^"]+" tests="5" failures="1" errors="0" skipped="0"/);
      expect(junit).toContain('<failure type="trust-ping.response-thid"');
      const html = await readFile(join(dir.path, 'report.html'), 'utf8');
      expect(html).toContain('<svg xmlns="http://www.w3.org/2000/svg" class="sequence"');
      // The rule id links to its spec section, and its row below carries the catalogue entry.
      expect(html).toContain('<a class="rule" href="https://identity.foundation/didcomm-messaging/spec/v2.1/#threads"');
      expect(html).toContain('<tr id="rule-trust-ping-response-thid">');
      expect(html).not.toContain('file://');
      // Self-contained: nothing is fetched when it opens.
      expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/);
    } finally {
      await agent.close();
    }
  }, 20_000);

  it('--role holder prints the invitation to accept (stderr with --json); nobody accepting judges nothing: exit 3', async () => {
    const r = await cli(['conformance', 'run', '--role', 'holder', '--accept-timeout', '200', '--json']);
    expect(r.err).toMatch(/^invitation: http:\/\/127\.0\.0\.1:\d+\/connect\?_oob=[\w-]+\nidsync: conformance_not_judged: no case passed \(1 inconclusive\): the invitation was not accepted within 200 ms\n$/);
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.out) as { cases: Array<{ id: string; status: string }>; summary: Record<string, number> };
    expect(doc.cases.map((c) => `${c.id} ${c.status}`)).toEqual(['holder/streamlined-vc inconclusive', 'run/sent-messages skipped']);
    expect((await cli(['conformance', 'run', '--role', 'holder', '--target', 'did:example:x'])).code).toBe(2);
    expect((await cli(['conformance', 'run'])).err).toMatch(/^idsync: missing_mandatory_option_value: /);
  });

  it('rejects an unknown suite and a target that is not a DID as usage errors', async () => {
    const r = await cli(['conformance', 'run', '--target', 'did:example:x', '--suite', 'nope']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^idsync: invalid_argument: unknown suite nope/);
    const junk = await cli(['conformance', 'run', '--target', 'junk']);
    expect(junk).toEqual({ code: 2, out: '', err: 'idsync: invalid_argument: --target must be a DID or an out-of-band invitation URL: junk\n' });
    // A --report folder nothing can be written to is said before the run (exit 2), not after it
    // as exit 1, which means "a case failed".
    const dir = await tempDir();
    try {
      const file = dir.file('a-file');
      await writeFile(file, 'x');
      const blocked = await cli(['conformance', 'run', '--target', 'did:example:x', '--report', file]);
      expect(blocked.code).toBe(2);
      expect(blocked.err).toMatch(/^idsync: folder_unusable: /);
      expect(blocked.out).toBe('');
    } finally {
      await dir.remove();
    }
  });

  it('says why a short invitation URL given as --target cannot be read, with one coded line (exit 3 unreachable, 2 no invitation)', async () => {
    // Nobody listens there: the socket's reason, not a bare "fetch failed" as an internal error.
    const server = http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{"status":404}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      for (const role of [[], ['--role', 'mediator']]) {
        const gone = await cli(['conformance', 'run', ...role, '--target', 'http://127.0.0.1:9/invitation?_oobid=x']);
        // Nobody answers: the agent cannot be reached (exit 3, as for a DID that does not resolve); exit 1 is "a case failed".
        expect(gone.code).toBe(3);
        expect(gone.err).toBe('idsync: invalid_invitation: could not fetch the short invitation URL: cannot reach http://127.0.0.1:9/invitation?_oobid=x (bad port)\n');
        // A server that answers with an error is not an invitation either.
        const missing = await cli(['conformance', 'run', ...role, '--target', `http://127.0.0.1:${port}/invitation?_oobid=x`]);
        expect(missing.code).toBe(2);
        expect(missing.err).toBe('idsync: invalid_invitation: the short invitation URL answered HTTP 404\n');
      }
      // An _oob that is no invitation is the user's input: a usage error.
      const junk = await cli(['conformance', 'run', '--target', 'http://127.0.0.1:9/?_oob=%25%25%25%25']);
      expect(junk.code).toBe(2);
      expect(junk.err).toMatch(/^idsync: invalid_invitation: /);
    } finally {
      server.close();
    }
  });

  it('across processes: `idsync service` passes every case run by another `idsync` process', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const service = startCli(['service', '--port', '0', '--data', dir.file('service')]);
    try {
      const line = await service.line(/^public URL .*, DID did:web:/);
      const did = /DID (did:web:\S+)/.exec(line)![1]!;
      await service.line(/^idsync service listening on /);
      const r = await runCli(['conformance', 'run', '--target', did, '--json'], { process: true });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.stdout) as { summary: Record<string, number>; cases: unknown[] };
      expect(doc.summary).toMatchObject({ passed: doc.cases.length, failed: 0 });
    } finally {
      await service.stop();
    }
  }, 60_000);
});
