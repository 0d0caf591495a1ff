import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_LINE, runCli, tempDir } from './run-cli.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => dir.remove());

function expectErrorLine(run: { code: number; stderr: string; stdout: string }, code: string, exit: number) {
  expect(run.stderr).toMatch(ERROR_LINE);
  expect(run.stderr.startsWith(`idsync: ${code}: `)).toBe(true);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.code).toBe(exit);
}

describe('idsync errors', () => {
  it('reports usage errors from the command parser as one line with exit 2', async () => {
    const [unknownCommand, unknownOption, missingArgument, badChoice, missingSubcommand] = await Promise.all([
      runCli(['frobnicate']),
      runCli(['did', 'create', '--colour']),
      runCli(['did', 'resolve']),
      runCli(['did', 'create', '--method', 'web']),
      runCli(['did']),
    ]);
    expectErrorLine(unknownCommand, 'unknown_command', 2);
    expectErrorLine(unknownOption, 'unknown_option', 2);
    expectErrorLine(missingArgument, 'missing_argument', 2);
    expectErrorLine(badChoice, 'invalid_argument', 2);
    expectErrorLine(missingSubcommand, 'missing_command', 2);
    expect(missingSubcommand.stderr).toContain('idsync did');
    expect(unknownCommand.stdout).toBe('');
  });

  it('folds the parser suggestion into the one line', async () => {
    const run = await runCli(['did', 'resolv', 'did:example:123']);
    expectErrorLine(run, 'unknown_command', 2);
    expect(run.stderr).toContain('resolve');
  });

  it('reports an unresolvable DID with the resolution result on stdout and exit 1', async () => {
    const [human, json] = await Promise.all([runCli(['did', 'resolve', 'not-a-did']), runCli(['did', 'resolve', 'did:nope:123', '--json'])]);
    expectErrorLine(human, 'invalid_did', 1);
    expect(human.stdout).toContain('invalidDid');
    expectErrorLine(json, 'method_not_supported', 1);
    // A DID of kilobytes is repeated in the error line only in part, with its length.
    const long = `did:ion:${'A'.repeat(6000)}`;
    const huge = await runCli(['did', 'resolve', long]);
    expectErrorLine(huge, 'invalid_did', 1);
    expect(huge.stderr.length).toBeLessThan(400);
    expect(huge.stderr).toContain(`${long.slice(0, 120)}… (6008 characters)`);
    const result = JSON.parse(json.stdout);
    expect(result.didDocument).toBeNull();
    expect(result.didResolutionMetadata.error).toBe('methodNotSupported');
  });

  it('reports an input file that cannot be read as a usage error (exit 2) in every message command', async () => {
    const absent = dir.file('absent.json');
    const runs = await Promise.all(
      ['check', 'pack', 'unpack'].flatMap((command) => {
        const mode = command === 'pack' ? ['--mode', 'plaintext'] : [];
        return [
          runCli(['message', command, absent, ...mode]).then((run) => ({ run, code: 'file_not_found', what: `${command} FILE` })),
          runCli(['message', command, dir.path, ...mode]).then((run) => ({ run, code: 'file_unreadable', what: `${command} DIR` })),
          runCli(['message', command, '-', ...mode, '--secrets', absent], { stdin: '{}' }).then((run) => ({ run, code: 'file_not_found', what: `${command} --secrets` })),
          runCli(['message', command, '-', ...mode, '--dids', dir.path], { stdin: '{}' }).then((run) => ({ run, code: 'file_unreadable', what: `${command} --dids` })),
        ];
      }),
    );
    for (const { run, code, what } of runs) {
      expect(run.stderr.startsWith(`idsync: ${code}: `), `${what}: ${run.stderr}`).toBe(true);
      expectErrorLine(run, code, 2);
      expect(run.stdout).toBe('');
    }
  });

  it('reports a malformed message', async () => {
    const garbage = dir.file('garbage.txt');
    await writeFile(garbage, '{"protected": 42, "not": "didcomm"}');
    const [unpacked, fromStdin, packed] = await Promise.all([
      runCli(['message', 'unpack', garbage]),
      runCli(['message', 'unpack', '-'], { stdin: 'this is not a message' }),
      runCli(['message', 'pack', '-', '--mode', 'plaintext'], { stdin: '{"id": "1", "body": {}}' }),
    ]);
    expectErrorLine(unpacked, 'didcomm_malformed', 1);
    expectErrorLine(fromStdin, 'didcomm_malformed', 1);
    expectErrorLine(packed, 'didcomm_malformed', 1);
  });

  it('reports secrets files that are not private JWKs, without their values', async () => {
    const secrets = dir.file('public-only.json');
    await writeFile(secrets, JSON.stringify([{ kid: 'did:example:bob#key-1', kty: 'OKP', crv: 'X25519', x: 'abc' }]));
    const run = await runCli(['message', 'unpack', '-', '--secrets', secrets], { stdin: '{}' });
    expectErrorLine(run, 'invalid_secrets', 1);
  });

  it('reports a malformed secrets file by name, line and column, never quoting its private key', async () => {
    // A hand-edited key file whose `d` lost its quotes: Node 20's JSON.parse message quotes the
    // text around the fault, which here is the private key itself.
    const secret = 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A';
    const secrets = dir.file('broken-keys.json');
    await writeFile(secrets, `[\n  {"kid": "did:example:bob#key-1", "kty": "OKP", "crv": "X25519",\n   "d": ${secret}, "x": "abc"}\n]\n`);
    const [plain, verbose] = await Promise.all([
      runCli(['message', 'unpack', '-', '--secrets', secrets], { stdin: '{}' }),
      runCli(['--verbose', 'message', 'unpack', '-', '--secrets', secrets], { stdin: '{}' }),
    ]);
    expectErrorLine(plain, 'invalid_json', 1);
    expect(plain.stderr).toContain(`${secrets} is not valid JSON (line 3, column 9)`);
    for (const run of [plain, verbose]) {
      expect(run.stderr.startsWith('idsync: invalid_json: ')).toBe(true);
      for (const piece of [secret.slice(0, 6), secret.slice(-6), '"abc"']) expect(run.stderr).not.toContain(piece);
    }
  });

  it('adds the stack and causes with --verbose', async () => {
    const run = await runCli(['--verbose', 'message', 'unpack', dir.file('absent.json')]);
    expect(run.code).toBe(2);
    const [first, ...rest] = run.stderr.trimEnd().split('\n');
    expect(first).toMatch(/^idsync: file_not_found: /);
    expect(rest.join('\n')).toMatch(/\n\s+at /);
    expect(rest.join('\n')).toContain('caused by: Error: ENOENT');
  });

  it('prints help and the version on stdout with exit 0', async () => {
    const [help, version] = await Promise.all([runCli(['--help']), runCli(['--version'])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: idsync');
    expect(help.stderr).toBe('');
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
