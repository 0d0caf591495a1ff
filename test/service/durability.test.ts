import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { listSyncOperations } from '../../src/service/didcomm-seam.js';
import { linkWallet } from '../../src/service/users/users.js';
import { CLIENT, fakeIonDid, startService } from './http-helpers.js';
import { checkScenario, writeScenario } from './scenario.js';

describe('restart on the same LevelDB folder', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'idsync-svc-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps users, datapoints, sync operations, workflows, deliveries, keys and tokens across close and reopen', async () => {
    const store1 = await openStore({ path: dir });
    const a = await startService({ store: store1 });
    const written = await writeScenario(a.call, CLIENT);
    await linkWallet(a.service.deps, { tenantId: 'default', userId: 'durable-1' }, fakeIonDid(1));
    const sync = await a.call('POST', '/api/v1/provider/users/durable-1/sync', { token: written.token });
    expect(sync.status).toBe(202);
    const keysBefore = (await a.call('GET', '/.well-known/did.json')).json.verificationMethod.map((m: { publicKeyJwk: unknown }) => m.publicKeyJwk);
    await a.close();
    await store1.close();

    const store2 = await openStore({ path: dir });
    const b = await startService({ store: store2 });
    try {
      // The token from before the restart still verifies: the signing key lives in the store.
      await checkScenario(b.call, written);
      const ops = await listSyncOperations(store2, { tenantId: 'default', userId: 'durable-1' });
      expect(ops.map((o) => o.id)).toContain(sync.json.operationId);
      const user = await b.call('GET', '/api/v1/provider/users/durable-1', { token: written.token });
      expect(user.json.shortUserDID).toBe(fakeIonDid(1).shortDid);
      const keysAfter = (await b.call('GET', '/.well-known/did.json')).json.verificationMethod.map((m: { publicKeyJwk: unknown }) => m.publicKeyJwk);
      expect(keysAfter).toEqual(keysBefore);
      expect(b.service.demoCredentials).toBeUndefined();
    } finally {
      await b.close();
      await store2.close();
    }
  });
});
