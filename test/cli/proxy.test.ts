// `idsync proxy` as a process: flags become a seeded fault plan, each applied fault is one JSON
// line on stdout with --json-log, SIGTERM stops it, bad flags are usage errors.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyRules, runProxy } from '../../src/cli/commands/proxy.js';
import { createOutput, type CliIo } from '../../src/cli/output.js';
import { startCli } from '../e2e/processes.js';
import { ERROR_LINE, runCli } from './run-cli.js';

let server: http.Server;
let target: string;
const got: string[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push(body);
      res.writeHead(202).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const msg = (n: number) => JSON.stringify({ id: `m-${n}`, typ: 'application/didcomm-plain+json', type: 'https://didcomm.org/trust-ping/2.0/ping', body: {} });

describe('idsync proxy', () => {
  it('drops what --drop 1 says, logging one JSON line per fault, and stops on SIGTERM', async () => {
    const proxy = startCli(['proxy', '--listen', '0', '--target', target, '--drop', '1', '--seed', '7', '--json', '--json-log']);
    try {
      const started = JSON.parse(await proxy.line(/"listening"/));
      expect(started).toMatchObject({ target, seed: 7, rules: [{ fault: 'drop', probability: 1 }] });
      const res = await fetch(`${started.listening}/didcomm`, { method: 'POST', headers: { 'content-type': 'application/didcomm-plain+json' }, body: msg(1) });
      expect(res.status).toBe(202);
      const line = JSON.parse(await proxy.line(/"seq"/));
      expect(line).toMatchObject({ seq: 1, fault: 'drop', direction: 'to-target', mediaType: 'plain', type: 'https://didcomm.org/trust-ping/2.0/ping', path: '/didcomm' });
      expect(Date.parse(line.at)).not.toBeNaN();
      expect(got).toEqual([]);
      // Not DIDComm: forwarded.
      expect((await fetch(`${started.listening}/x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(202);
      expect(got).toEqual(['{}']);
    } finally {
      expect(await proxy.stop()).toBe(0);
    }
  });

  it('with --json-log keeps stdout to JSON lines: the banner and the closing line go to stderr', async () => {
    const out = { stdout: '', stderr: '' };
    const io: CliIo = { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), readStdin: async () => '' };
    await runProxy(
      { listen: '0', target, host: '127.0.0.1', drop: '1', seed: '42', jsonLog: true },
      {
        io,
        output: (json) => createOutput(io, json),
        // Listening by now: one message through it, dropped and logged, then the proxy stops.
        until: async () => {
          const url = /^proxy (\S+) -> /m.exec(out.stderr)?.[1];
          expect(url, out.stderr).toBeDefined();
          expect((await fetch(`${url}/didcomm`, { method: 'POST', headers: { 'content-type': 'application/didcomm-plain+json' }, body: msg(2) })).status).toBe(202);
        },
      },
    );
    const lines = out.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ seq: 1, fault: 'drop', direction: 'to-target' });
    expect(out.stderr).toMatch(new RegExp(`^proxy http://127\\.0\\.0\\.1:\\d+ -> ${target}\nseed 42; faults: drop 1\nstop with Ctrl-C\nproxy stopping; faults applied: drop 1\n$`));
  });

  it('refuses bad flags as usage errors (exit 2, one error line)', async () => {
    for (const args of [
      ['--listen', '0', '--target', target, '--drop', '1.5'],
      ['--listen', '0', '--target', target, '--delay', 'soon'],
      // Past what a timer holds (2^31 - 1 ms), Node fires it at once.
      ['--listen', '0', '--target', target, '--delay', '99999999999999999999'],
      ['--listen', '0', '--target', target, '--delay', '86400000:1'],
      ['--listen', '70000', '--target', target],
      ['--listen', '0', '--target', 'not a url'],
    ]) {
      const r = await runCli(['proxy', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(ERROR_LINE);
      expect(r.stderr).toMatch(/^idsync: invalid_argument: /);
    }
  });

  it('turns flags into rules in a fixed order (a seed means the same faults every time)', () => {
    expect(proxyRules({ listen: '0', target, host: '127.0.0.1', tamper: '0.01', drop: '0.1', delay: '20:5', duplicate: '0.05', reorder: '0.02' })).toEqual([
      { fault: 'drop', probability: 0.1 },
      { fault: 'duplicate', probability: 0.05 },
      { fault: 'reorder', probability: 0.02 },
      { fault: 'tamper', probability: 0.01 },
      { fault: 'delay', delayMs: 20, jitterMs: 5 },
    ]);
  });
});
