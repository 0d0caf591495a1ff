// The CLI as a process, as the shell sees it: exit status, one JSON document on stdout, one error
// line on stderr and nothing else there (no warning, no stack), standard input through a pipe,
// and commands that open a store or the network ending by themselves. The other CLI tests run the
// commands in-process (runCli); these run `node --import tsx src/cli/main.ts` (runCliProcess).
// Long-running commands and their signals: signals, wallet-serve, proxy and e2e tests (startCli).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { startServiceTwin, type ServiceTwin } from '../../src/testing/index.js';
import { ERROR_LINE, runCli, runCliProcess, tempDir } from './run-cli.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let store: Store;
let twin: ServiceTwin;
beforeAll(async () => {
  dir = await tempDir();
  store = await openStore();
  twin = await startServiceTwin({ store, transport: 'http' });
});
afterAll(async () => {
  await twin?.close();
  await store?.close();
  await dir?.remove();
});

describe('idsync as a process', () => {
  it('exits 0 with one JSON document, 2 on a usage error and 1 on a failure, each error one line on stderr', async () => {
    const message = JSON.stringify({ id: '1', type: 'https://didcomm.org/basicmessage/2.0/message', body: { content: 'piped' } });
    const [created, usage, malformed, packed, help] = await Promise.all([
      runCliProcess(['did', 'create', '--method', 'key', '--json']),
      runCliProcess(['frobnicate']),
      runCliProcess(['message', 'unpack', '-'], { stdin: 'this is not a message' }),
      runCliProcess(['message', 'pack', '-', '--mode', 'plaintext', '--json'], { stdin: message }),
      runCliProcess(['--help']),
    ]);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout.endsWith('\n')).toBe(true);
    expect(created.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(created.stdout).did).toMatch(/^did:key:/);

    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(ERROR_LINE);
    expect(usage.stderr).toMatch(/^idsync: unknown_command: /);
    expect(usage.stdout).toBe('');

    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toMatch(ERROR_LINE);
    expect(malformed.stderr).toMatch(/^idsync: didcomm_malformed: /);

    expect(packed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(JSON.parse(packed.stdout).packed)).toMatchObject({ id: '1', body: { content: 'piped' } });

    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: idsync');
  });

  it('ends by itself after a wallet command that opens the store and reaches the service', async () => {
    // Creating the wallet is not the point here (a store that stayed open would show below).
    const data = dir.file('wallet');
    expect(await runCli(['wallet', 'create', '--data', data, '--json'])).toMatchObject({ code: 0, stderr: '' });
    const picked = await runCliProcess(['wallet', 'pickup', '--data', data, '--from', twin.url]);
    expect(picked).toMatchObject({ code: 0, stderr: '', stdout: `nothing queued at ${twin.did}\n` });
  });
});
