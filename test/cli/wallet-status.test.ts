// `idsync wallet status` on a wallet that does not run: read from its folder without starting the
// agent (nothing is sent), its retries are what the store holds: every step it waits on is due
// (it goes out at once when the wallet starts), and the steps given up.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { RESEND_COLLECTION } from '../../src/wallet/runtime.js';
import { runCli, tempDir } from './run-cli.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
  expect((await runCli(['wallet', 'create', '--data', dir.file('w')])).code).toBe(0);
});
afterAll(() => dir.remove());

describe('idsync wallet status, not running', () => {
  it('shows the retries its folder holds: the waiting steps due, the given-up ones abandoned', async () => {
    const empty = await runCli(['wallet', 'status', '--data', dir.file('w'), '--json']);
    expect(empty.stderr).toBe('');
    expect(JSON.parse(empty.stdout)).toMatchObject({ running: false, mediation: null, connections: { established: 0, total: 0 }, credentials: 0, pending: 0, retries: { scheduled: 0, due: 0, retrying: 0, abandoned: 0 } });

    const store = await openStore({ path: join(dir.file('w'), 'store') });
    const states = store.collection(RESEND_COLLECTION);
    await states.put('t-1', { thid: 't-1', last: { id: 'm-1' }, retry: { deadlineAt: Date.now() + 600_000 } });
    await states.put('t-2', { thid: 't-2', givenUp: true });
    await states.put('t-3', { thid: 't-3', lastIn: 'x' });
    await store.close();
    const run = await runCli(['wallet', 'status', '--data', dir.file('w')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('retries: 0 scheduled, 1 due, 0 retrying, 1 abandoned');
    expect(run.stdout).toContain('(not running)');
  });

  it('says wallet_not_found for a folder without a wallet', async () => {
    const run = await runCli(['wallet', 'status', '--data', dir.file('none')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('wallet_not_found');
  });
});
