import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

describe('idsync demo (foundation)', () => {
  it('walks through DIDs, resolution and an authcrypt message, numbered for people', async () => {
    const run = await runCli(['demo']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    for (const step of [1, 2, 3, 4, 5]) expect(run.stdout).toMatch(new RegExp(`^${step}\\. `, 'm'));
    expect(run.stdout).toContain('Hello from the wallet');
  });

  it('prints one JSON document with --json', async () => {
    const run = await runCli(['demo', '--json']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]);
    expect(result.wallet.did).toMatch(/^did:ion:/);
    expect(result.peer.did).toMatch(/^did:peer:2/);
    expect(result.unpacked.metadata).toMatchObject({ mode: 'authcrypt', authenticated: true });
    expect(result.unpacked.message.body).toEqual({ content: 'Hello from the wallet' });
    expect(run.stdout).not.toMatch(/"d":/);
  });
});
