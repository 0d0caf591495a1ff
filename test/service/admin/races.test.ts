// Admin changes made at the same time: each reads before it writes (does the id exist, does a
// project use the profile, is the resource still there), and none may act on what another
// change at the same moment has made stale. Real sockets, many concurrent requests each: the
// interleavings the handlers' awaits allow come up in every round.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/store/store.js';
import { startService, type Harness } from '../http-helpers.js';

let h: Harness;
let admin: string;
let dir: string;
let store: Store;

beforeAll(async () => {
  // LevelDB, as `idsync service --data` runs: its reads and writes go through libuv's pool, which
  // leaves a change's read and its write far enough apart for another request to come between.
  dir = mkdtempSync(join(tmpdir(), 'idsync-admin-races-'));
  store = await openStore({ path: dir });
  h = await startService({ store });
  admin = await h.token();
});
afterAll(async () => {
  await h.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ROUNDS = 15;
const profile = (id: string) => ({ id, name: id, fields: [{ key: 'firstName', required: true }] });
const statuses = (rs: { status: number }[]) => rs.map((r) => r.status).sort();

describe('admin changes at the same time', () => {
  it('a create-only POST is won by one caller, and what it created is what is stored', async () => {
    const projects = await Promise.all(Array.from({ length: 8 }, (_, i) => h.call('POST', '/admin/projects', { token: admin, body: { id: 'race-project', name: `writer-${i}` } })));
    expect(statuses(projects)).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    const won = projects.find((r) => r.status === 201)!;
    expect((await h.call('GET', '/admin/projects/race-project', { token: admin })).json.name).toBe(won.json.name);

    const profiles = await Promise.all(Array.from({ length: 8 }, (_, i) => h.call('POST', '/admin/data-profiles', { token: admin, body: { ...profile('race-profile'), name: `writer-${i}` } })));
    expect(statuses(profiles)).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    const first = profiles.find((r) => r.status === 201)!;
    expect((await h.call('GET', '/admin/data-profiles/race-profile', { token: admin })).json.name).toBe(first.json.name);
  });

  it('a profile is never deleted while a project made at the same time uses it', async () => {
    for (let k = 0; k < ROUNDS; k++) {
      expect((await h.call('POST', '/admin/data-profiles', { token: admin, body: profile(`used-${k}`) })).status).toBe(201);
      const [project, del] = await Promise.all([
        h.call('POST', '/admin/projects', { token: admin, body: { id: `user-${k}`, dataProfileId: `used-${k}` } }),
        h.call('DELETE', `/admin/data-profiles/used-${k}`, { token: admin }),
      ]);
      // One of the two wins: the project and the profile it names, or neither.
      if (project.status === 201) expect(del.status).toBe(409);
      else expect([project.status, del.status]).toEqual([400, 204]);
      const made = await h.call('GET', `/admin/projects/user-${k}`, { token: admin });
      if (made.status === 200) expect((await h.call('GET', `/admin/data-profiles/used-${k}`, { token: admin })).status).toBe(200);
    }
  });

  it('a project, a webhook subscription and a partner a DELETE answered 204 for stay deleted', async () => {
    for (let k = 0; k < ROUNDS; k++) {
      expect((await h.call('POST', '/admin/projects', { token: admin, body: { id: `gone-${k}` } })).status).toBe(201);
      const sub = await h.call('POST', '/admin/webhooks', { token: admin, body: { url: 'http://127.0.0.1:9/hook' } });
      const partner = await h.call('POST', '/admin/partners', { token: admin, body: { name: `p${k}`, did: `did:key:z6Mkrace${k}`, roles: ['Issuer'] } });
      expect([sub.status, partner.status]).toEqual([201, 201]);

      const [, delProject, , delSub, , delPartner] = await Promise.all([
        h.call('PUT', `/admin/projects/gone-${k}/issuance-settings`, { token: admin, body: { statusList: false } }),
        h.call('DELETE', `/admin/projects/gone-${k}`, { token: admin }),
        h.call('PATCH', `/admin/webhooks/${sub.json.id}`, { token: admin, body: { description: 'edited' } }),
        h.call('DELETE', `/admin/webhooks/${sub.json.id}`, { token: admin }),
        h.call('PATCH', `/admin/partners/${partner.json.id}`, { token: admin, body: { name: 'edited' } }),
        h.call('DELETE', `/admin/partners/${partner.json.id}`, { token: admin }),
      ]);
      expect([delProject.status, delSub.status, delPartner.status]).toEqual([204, 204, 204]);
      expect((await h.call('GET', `/admin/projects/gone-${k}`, { token: admin })).status).toBe(404);
      expect((await h.call('GET', `/admin/webhooks/${sub.json.id}`, { token: admin })).status).toBe(404);
      expect((await h.call('GET', `/admin/partners/${partner.json.id}`, { token: admin })).status).toBe(404);
    }
    const listed = (await h.call('GET', '/admin/webhooks', { token: admin })).json.webhooks as unknown[];
    expect(listed).toEqual([]);
  });

  it('two partners created at the same time cannot take one DID', async () => {
    const made = await Promise.all(Array.from({ length: 6 }, (_, i) => h.call('POST', '/admin/partners', { token: admin, body: { name: `twin-${i}`, did: 'did:key:z6MkSameDid', roles: ['Verifier'] } })));
    expect(statuses(made)).toEqual([201, 409, 409, 409, 409, 409]);
    const other = await h.call('POST', '/admin/partners', { token: admin, body: { name: 'other', did: 'did:key:z6MkOtherDid', roles: ['Verifier'] } });
    // Nor by a later change of DID.
    const moved = await h.call('PATCH', `/admin/partners/${other.json.id}`, { token: admin, body: { did: 'did:key:z6MkSameDid' } });
    expect(moved.status).toBe(409);
    expect(moved.json.code).toBe('already_exists');
  });

  it('PUT of a project keeps the data profile it does not name', async () => {
    expect((await h.call('POST', '/admin/data-profiles', { token: admin, body: profile('kept-profile') })).status).toBe(201);
    expect((await h.call('POST', '/admin/projects', { token: admin, body: { id: 'kept', dataProfileId: 'kept-profile' } })).status).toBe(201);
    const renamed = await h.call('PUT', '/admin/projects/kept', { token: admin, body: { name: 'Renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ name: 'Renamed', dataProfileId: 'kept-profile' });
    // A new project still gets the default profile.
    expect((await h.call('PUT', '/admin/projects/fresh', { token: admin, body: {} })).json.dataProfileId).toBe('idsync-kyc-default');
  });
});
