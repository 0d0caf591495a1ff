// IDSYNC_CLIENT_ID, IDSYNC_CLIENT_SECRET and IDSYNC_PROJECT_ID go together: a partial set is a
// mistake the service refuses in one line naming what is missing, before it creates anything
// (in particular no demo tenant).
import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIdsyncError } from '../../src/errors.js';
import { createService } from '../../src/service/app.js';
import { checkEnvSeed } from '../../src/service/seed.js';
import { openStore } from '../../src/store/store.js';
import { ERROR_LINE, runCli, tempDir } from './run-cli.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

const UNSET = { IDSYNC_CLIENT_ID: undefined, IDSYNC_CLIENT_SECRET: undefined, IDSYNC_PROJECT_ID: undefined };

describe('idsync service with part of the IDSYNC_* client variables', () => {
  it('refuses a client id and secret without a project, naming IDSYNC_PROJECT_ID, and creates no data folder', async () => {
    const data = dir.file('no-project');
    const run = await runCli(['service', '--port', '0', '--data', data], {
      env: { ...UNSET, IDSYNC_CLIENT_ID: 'qa', IDSYNC_CLIENT_SECRET: 'qa-secret-123' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toMatch(/^idsync: invalid_config: IDSYNC_PROJECT_ID is not set/);
    expect(run.stdout).not.toContain('demo tenant');
    await expect(stat(data)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('names every missing variable of any partial set', () => {
    const cases: Array<[Parameters<typeof checkEnvSeed>[0], string[]]> = [
      [{ clientId: 'qa' }, ['IDSYNC_CLIENT_SECRET', 'IDSYNC_PROJECT_ID']],
      [{ clientSecret: 's' }, ['IDSYNC_CLIENT_ID', 'IDSYNC_PROJECT_ID']],
      [{ projectId: 'p' }, ['IDSYNC_CLIENT_ID', 'IDSYNC_CLIENT_SECRET']],
      [{ clientId: 'qa', projectId: 'p' }, ['IDSYNC_CLIENT_SECRET']],
      [{ clientSecret: 's', projectId: 'p', clientId: '' }, ['IDSYNC_CLIENT_ID']],
    ];
    for (const [env, missing] of cases) {
      let err: unknown;
      try {
        checkEnvSeed(env);
      } catch (e) {
        err = e;
      }
      expect(isIdsyncError(err) && err.code, JSON.stringify(env)).toBe('invalid_config');
      expect((err as Error).message.startsWith(missing.join(' and '))).toBe(true);
    }
    expect(checkEnvSeed({})).toBe(false);
    expect(checkEnvSeed({ clientId: 'qa', clientSecret: 's', projectId: 'p' })).toBe(true);
  });

  it('createService refuses a partial set as well, and seeds no demo tenant', async () => {
    const store = await openStore();
    try {
      await expect(createService({ store, env: { clientId: 'qa', clientSecret: 'qa-secret-123' } })).rejects.toMatchObject({ code: 'invalid_config' });
      expect(await store.collection('svc-tenants').list()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
