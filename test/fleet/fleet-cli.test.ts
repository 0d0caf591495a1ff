// `idsync fleet` from the command line: in-process for the flags, one child process for a run
// sharded over two worker threads (the merge across threads), ending with the --json document.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModel, type FleetCliOptions } from '../../src/cli/commands/fleet.js';
import { run } from '../../src/cli/program.js';
import { runFleet } from '../../src/fleet/fleet.js';
import { loadScenario } from '../../src/fleet/scenario-ref.js';
import type { CliIo } from '../../src/cli/output.js';
import { runCli } from '../cli/run-cli.js';

function io() {
  const out = { stdout: '', stderr: '' };
  const cli: CliIo = { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), readStdin: async () => '' };
  return { cli, out };
}

describe('idsync fleet', () => {
  it('runs in this thread with --workers 1: the table, and the --json document as the last line', async () => {
    const a = io();
    // Over loopback HTTP here; the --json run below goes over the link (the default).
    expect(await run(['fleet', '--scenario', 'connect', '--wallets', '2', '--workers', '1', '--embedded-transport', 'http'], a.cli)).toBe(0);
    expect(a.out.stdout).toMatch(/^fleet connect: closed model: 2 wallets, 2 at a time, wallets and service in one thread, embedded twin/);
    expect(a.out.stdout).toMatch(/\n {2}connect +[\d.]+ m?s/);
    // Two wallets beside the twin in one thread can be lost in the heap's noise: then it says so.
    expect(a.out.stdout).toMatch(/memory per idle wallet: ([\d.]+ KB|not measured \(the heap did not grow measurably)/);
    const b = io();
    expect(await run(['fleet', '--scenario', 'sync', '--wallets', '2', '--workers', '1', '--json', '--no-progress'], b.cli)).toBe(0);
    const lines = b.out.stdout.trim().split('\n');
    const doc = JSON.parse(lines[lines.length - 1]!);
    expect(doc).toMatchObject({ scenario: 'sync', wallets: 2, workers: 1, completed: 2, failed: 0, errors: {} });
    expect(Object.keys(doc.steps)).toEqual(['connect', 'authenticate', 'issue', 'total']);
    expect(b.out.stderr).toBe('');
  }, 60_000);

  it('refuses mixed load models and unknown scenarios as usage errors (exit 2)', async () => {
    for (const args of [
      ['--rate', '5', '--wallets', '10'],
      ['--wallets', '10', '--duration', '5s'],
      ['--scenario', 'nope'],
      ['--workers', '0'],
      ['--channel', 'SMS', '--scenario', 'issuance'],
      ['--embedded-transport', 'udp'],
      ['--service-store', 'cloud'],
      // Beyond any run: refused, not a crash out of memory or arrivals queued for ever.
      ['--wallets', '1e12'],
      ['--rate', '1e12', '--duration', '1s'],
      ['--workers', '1e12'],
      // Longer than a timer can wait (it would fire at once).
      ['--timeout', '30d'],
      // No http(s) URL: the user's mistake, not a service that is down.
      ['--service', 'notaurl'],
      ['--service', 'ftp://127.0.0.1/'],
    ]) {
      const a = io();
      expect(await run(['fleet', ...args], a.cli), args.join(' ')).toBe(2);
      expect(a.out.stderr).toMatch(/^idsync: invalid_argument: /);
    }
    const a = io();
    const saved = { ...process.env };
    delete process.env.IDSYNC_CLIENT_ID;
    try {
      expect(await run(['fleet', '--service', 'http://127.0.0.1:1'], a.cli)).toBe(2);
    } finally {
      Object.assign(process.env, saved);
    }
    expect(a.out.stderr).toMatch(/^idsync: invalid_config: .*IDSYNC_CLIENT_ID/);
  });

  it('refuses an option that would change nothing in the run asked for, instead of ignoring it (exit 2)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idsync-fleet-cli-'));
    const module = join(dir, 'scenario.mjs');
    await writeFile(module, 'export const scenario = { name: "noop", steps: ["noop"], async run() {} };\n');
    const saved = { id: process.env.IDSYNC_CLIENT_ID, secret: process.env.IDSYNC_CLIENT_SECRET };
    process.env.IDSYNC_CLIENT_ID = 'qa';
    process.env.IDSYNC_CLIENT_SECRET = 'qa-secret';
    try {
      for (const [args, said] of [
        [['--channel', 'EMAIL', '--scenario', 'sync'], /--channel is the built-in issuance scenario's .*not sync's/],
        [['--channel', 'DIDCOMM', '--scenario', 'connect'], /not connect's/],
        [['--channel', 'EMAIL', '--module', module], /not a module's/],
        [['--service', 'http://127.0.0.1:1', '--service-store', 'disk'], /--service-store is where the embedded twin/],
        [['--service', 'http://127.0.0.1:1', '--embedded-transport', 'http'], /--embedded-transport is how wallets reach the embedded twin/],
      ] as const) {
        const a = io();
        expect(await run(['fleet', ...args], a.cli), args.join(' ')).toBe(2);
        expect(a.out.stderr).toMatch(/^idsync: invalid_argument: /);
        expect(a.out.stderr).toMatch(said);
      }
    } finally {
      for (const [name, value] of [['IDSYNC_CLIENT_ID', saved.id], ['IDSYNC_CLIENT_SECRET', saved.secret]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('reads a bare --duration or --ramp as seconds, as --rate is per second', () => {
    const open = (o: Partial<FleetCliOptions>) => loadModel({ scenario: 'sync', channel: 'DIDCOMM', workers: '1', embeddedTransport: 'link', serviceStore: 'auto', timeout: '120s', ...o });
    expect(open({ rate: '2', duration: '5' })).toEqual({ kind: 'open', ratePerSecond: 2, durationMs: 5000 });
    expect(open({ rate: '2', duration: '1.5' })).toMatchObject({ durationMs: 1500 });
    expect(open({ rate: '2', duration: '90s', ramp: '10' })).toMatchObject({ durationMs: 90_000, rampMs: 10_000 });
    expect(open({ rate: '2', duration: '2m' })).toMatchObject({ durationMs: 120_000 });
    expect(open({ rate: '20', duration: '500ms' })).toMatchObject({ durationMs: 500 });
    expect(open({ rate: '2' })).toMatchObject({ durationMs: 30_000 });
    expect(() => open({ rate: '2', duration: 'soon' })).toThrow(/^--duration must be a duration such as 30s, 2m or 500ms \(a bare number is seconds\): soon$/);
  });

  it('refuses an open model that would start no flow (rate × duration < 1) instead of passing an empty run', async () => {
    for (const args of [
      ['--rate', '2', '--duration', '100ms'],
      ['--rate', '0.1', '--duration', '5'],
      // The ramp starts from 0: 1/s over a 1 s ramp is half an arrival.
      ['--rate', '1', '--duration', '1', '--ramp', '1'],
    ]) {
      const a = io();
      expect(await run(['fleet', ...args, '--workers', '1', '--no-progress'], a.cli), args.join(' ')).toBe(2);
      expect(a.out.stderr).toMatch(/^idsync: invalid_argument: --rate .* starts no flow/);
      expect(a.out.stdout).toBe('');
    }
    await expect(runFleet({ scenario: { builtin: 'connect' }, model: { kind: 'open', ratePerSecond: 2, durationMs: 5 }, workers: 1 })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('says a short open model\'s duration as it was asked (0.5 s, not 0 s)', async () => {
    const a = io();
    expect(await run(['fleet', '--scenario', 'connect', '--rate', '4', '--duration', '500ms', '--ramp', '0.25', '--workers', '1', '--no-progress'], a.cli)).toBe(0);
    expect(a.out.stdout).toMatch(/^fleet connect: open model: 4\/s for 0\.5 s, ramp 0\.25 s,/);
  }, 30_000);

  it('refuses a --module that is missing or no scenario as a usage error naming the option and the file, before any run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idsync-fleet-'));
    const junk = join(dir, 'junk.txt');
    await writeFile(junk, 'not a module\n');
    const broken = join(dir, 'broken.mjs');
    await writeFile(broken, 'export const scenario = {\n');
    const empty = join(dir, 'empty.mjs');
    await writeFile(empty, 'export const other = 1;\n');
    const missing = join(dir, 'nope.mjs');
    for (const [module, expected] of [
      [missing, `idsync: file_not_found: --module ${missing}: no such file\n`],
      [dir, `idsync: file_unreadable: --module ${dir} is not a file\n`],
      // Node refuses the file type ('Unknown file extension ".txt"'); under vitest's loader it
      // imports as a module that exports nothing. Either way: scenario_invalid, naming the file.
      [junk, new RegExp(`^idsync: scenario_invalid: --module ${junk} (cannot be imported|exports no scenario)`)],
      [broken, new RegExp(`^idsync: scenario_invalid: --module ${broken} cannot be imported: `)],
      [empty, `idsync: scenario_invalid: --module ${empty} exports no scenario ({name, steps, run}) as scenario or default\n`],
    ] as const) {
      const a = io();
      expect(await run(['fleet', '--module', module, '--wallets', '1', '--workers', '1', '--no-progress'], a.cli), module).toBe(2);
      if (typeof expected === 'string') expect(a.out.stderr).toBe(expected);
      else expect(a.out.stderr).toMatch(expected);
      expect(a.out.stderr).not.toContain('internal_error');
      expect(a.out.stdout).toBe('');
    }
    // As users run it (a process): Node's own refusal of the file type, in the one line.
    const asProcess = await runCli(['fleet', '--module', junk], { process: true });
    expect(asProcess).toMatchObject({ code: 2, stdout: '' });
    expect(asProcess.stderr).toMatch(new RegExp(`^idsync: scenario_invalid: --module ${junk} cannot be imported: Unknown file extension "\\.txt" for ${junk}\n$`));
    // The library says the same with its codes.
    await expect(loadScenario({ module: missing })).rejects.toMatchObject({ code: 'file_not_found', message: `scenario module ${missing}: no such file` });
    await expect(loadScenario({ module: junk })).rejects.toMatchObject({ code: 'scenario_invalid' });
  });

  it('fails the command (exit 1, fleet_failed) after the report when flows failed, unless --max-failed allows them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idsync-fleet-'));
    const module = join(dir, 'half.mjs');
    // Every other flow fails: a scenario of the user's own, as --module takes it.
    await writeFile(
      module,
      "export const scenario = { name: 'half', steps: ['try'], async run(ctx) { await ctx.step('try', async () => { if (ctx.index % 2 === 1) throw new Error('odd flow'); }); } };\n",
    );
    const args = ['fleet', '--module', module, '--wallets', '4', '--workers', '1', '--json', '--no-progress'];
    const strict = io();
    expect(await run(args, strict.cli)).toBe(1);
    const doc = JSON.parse(strict.out.stdout.trim().split('\n').pop()!);
    expect(doc).toMatchObject({ scenario: 'half', completed: 2, failed: 2, errors: { internal_error: 2 } });
    expect(strict.out.stderr).toBe('idsync: fleet_failed: 2 of 4 flows failed; most often internal_error (2)\n');
    const tolerant = io();
    expect(await run([...args, '--max-failed', '2'], tolerant.cli)).toBe(0);
    const short = io();
    expect(await run([...args, '--max-failed', '1'], short.cli)).toBe(1);
    expect(short.out.stderr).toBe('idsync: fleet_failed: 2 of 4 flows failed (--max-failed 1); most often internal_error (2)\n');
    const bad = io();
    expect(await run([...args, '--max-failed', '-1'], bad.cli)).toBe(2);
  }, 60_000);

  it('shards over worker threads and merges their histograms (a child process, two workers)', async () => {
    const r = await runCli(['fleet', '--scenario', 'connect', '--wallets', '4', '--concurrency', '4', '--workers', '2', '--json', '--no-progress'], { process: true });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(doc).toMatchObject({ scenario: 'connect', wallets: 4, workers: 2, completed: 4, failed: 0 });
    expect(doc.steps.total.p50Ms).toBeGreaterThan(0);
  }, 90_000);
});
