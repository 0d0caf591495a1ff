// `wallet accept --wait` without a serve process listens on the wallet's own endpoint for the
// command's duration. It ends once the credential is stored, which happens while the issuer's
// POST that delivered it is still being answered: that POST must get its answer (not a reset
// connection) before the listener is gone. The issuer here is the conformance harness
// (`conformance run --role holder`), whose case fails when the issue-credential send fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runConformance } from '../../src/harness/run.js';
import { freePort } from '../e2e/processes.js';
import { runCli, tempDir } from './run-cli.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => dir?.remove());

describe('wallet accept --wait on its own endpoint', () => {
  it('answers the POST that delivered the credential before it ends', async () => {
    const data = dir.file('holder');
    expect((await runCli(['wallet', 'create', '--data', data, '--endpoint', `http://127.0.0.1:${await freePort()}/didcomm`])).code).toBe(0);
    let accepted: Promise<{ code: number; stdout: string; stderr: string }> | undefined;
    const report = await runConformance({
      role: 'holder',
      resolve: documentResolver(createResolver({})),
      acceptTimeoutMs: 15_000,
      onInvitation: (url) => void (accepted = runCli(['wallet', 'accept', url, '--data', data, '--wait'])),
    });
    const run = await accepted!;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('credential received');
    const holder = report.cases.find((c) => c.id === 'holder/streamlined-vc')!;
    // Before: "transport.reachable: the issue message could not be sent: fetch failed (UND_ERR_SOCKET)".
    expect({ status: holder.status, failedRules: holder.failedRules, detail: holder.detail }).toEqual({ status: 'passed', failedRules: [], detail: undefined });
    expect(holder.messages.map((m) => `${m.direction} ${m.type?.split('/').pop()}`)).toEqual([
      'received propose-credential', 'sent offer-credential', 'received request-credential', 'sent issue-credential', 'received ack',
    ]);
  }, 30_000);
});
