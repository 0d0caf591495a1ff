import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { linkWallet, recordLogin } from '../../src/service/users/users.js';
import { expectProblem, fakeIonDid, startService, type Harness } from './http-helpers.js';

describe('provider users', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startService({ clock, ids: sequentialIds('t') });
    token = await h.token();
  });
  afterAll(() => h.close());

  it('creates a user with PUT (201), then updates it idempotently (200)', async () => {
    const created = await h.call('PUT', '/api/v1/provider/users/alice', { token, body: { settings: { isSyncOn: true } } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      userStatus: 'Registered',
      userId: 'alice',
      userLogins: 0,
      settings: { isSyncOn: true },
      syncContext: { datapointsSynced: {}, datapointsLatest: {} },
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    clock.advance(1000);
    const again = await h.call('PUT', '/api/v1/provider/users/alice', { token, body: { settings: { isSyncOn: true } } });
    expect(again.status).toBe(200);
    expect(again.json.createdAt).toBe(created.json.createdAt);
    expect(again.json.updatedAt).toBe('2026-01-01T00:00:01.000Z');
    expect(again.json.settings).toEqual({ isSyncOn: true });
  });

  it('repeats the user fields inside datapointsFlat of the create-or-update response only', async () => {
    const res = await h.call('PUT', '/api/v1/provider/users/alice', { token, body: {} });
    expect(res.json.datapointsFlat).toMatchObject({ userStatus: 'Registered', userId: 'alice', userLogins: 0 });
    const get = await h.call('GET', '/api/v1/provider/users/alice', { token });
    expect(get.json.datapointsFlat).toEqual({});
  });

  it('keeps settings when a PUT has no body, and ignores read-only fields sent back', async () => {
    const res = await h.call('PUT', '/api/v1/provider/users/alice', { token });
    expect(res.status).toBe(200);
    expect(res.json.settings.isSyncOn).toBe(true);
    const echo = await h.call('PUT', '/api/v1/provider/users/alice', { token, body: { ...res.json, settings: { isSyncOn: false } } });
    expect(echo.status).toBe(200);
    expect(echo.json.settings.isSyncOn).toBe(false);
  });

  it('rejects a settings object of the wrong type with 400 invalid_request naming the field', async () => {
    const p = expectProblem(await h.call('PUT', '/api/v1/provider/users/alice', { token, body: { settings: { isSyncOn: 'yes' } } }), 400, 'invalid_request');
    expect(p.errors[0].field).toBe('body/settings/isSyncOn');
  });

  it('answers 404 user_not_found for an unknown user', async () => {
    expectProblem(await h.call('GET', '/api/v1/provider/users/nobody', { token }), 404, 'user_not_found');
  });

  it('shows userDID, shortUserDID, userLogins and userLastLoginAt once the wallet is linked and logs in', async () => {
    await h.call('PUT', '/api/v1/provider/users/bob', { token, body: { settings: { isSyncOn: true } } });
    const did = fakeIonDid(1);
    await linkWallet(h.service.deps, { tenantId: 'default', userId: 'bob' }, did);
    await recordLogin(h.service.deps, { tenantId: 'default', userId: 'bob' });
    const res = await h.call('GET', '/api/v1/provider/users/bob', { token });
    expect(res.json).toMatchObject({ userDID: did.longDid, shortUserDID: did.shortDid, userLogins: 1, userLastLoginAt: new Date(clock.now()).toISOString() });
  });

  it('lists users with counts.total and pages by offset and by cursor', async () => {
    for (const id of ['u1', 'u2', 'u3', 'u4']) await h.call('PUT', `/api/v1/provider/users/${id}`, { token, body: {} });
    const all = await h.call('GET', '/api/v1/provider/users', { token });
    expect(all.json.counts.total).toBe(6);
    expect(all.json.users.map((u: { userId: string }) => u.userId)).toEqual(['alice', 'bob', 'u1', 'u2', 'u3', 'u4']);
    expect(all.json.paging).toEqual({ limit: 50, offset: 0 });

    const page = await h.call('GET', '/api/v1/provider/users?limit=2&offset=2', { token });
    expect(page.json.users.map((u: { userId: string }) => u.userId)).toEqual(['u1', 'u2']);
    expect(page.json.counts.total).toBe(6);

    const seen: string[] = [];
    let cursor: string | undefined;
    let first = true;
    while (first || cursor) {
      first = false;
      const r = await h.call('GET', `/api/v1/provider/users?limit=4${cursor ? `&cursor=${cursor}` : ''}`, { token });
      seen.push(...r.json.users.map((u: { userId: string }) => u.userId));
      cursor = r.json.paging.nextCursor;
    }
    expect(seen).toEqual(['alice', 'bob', 'u1', 'u2', 'u3', 'u4']);
  });

  it('rejects bad paging with 400 invalid_request', async () => {
    expectProblem(await h.call('GET', '/api/v1/provider/users?limit=0', { token }), 400, 'invalid_request');
    expectProblem(await h.call('GET', '/api/v1/provider/users?limit=abc', { token }), 400, 'invalid_request');
    expectProblem(await h.call('GET', '/api/v1/provider/users?offset=1&cursor=YQ', { token }), 400, 'invalid_request');
    expectProblem(await h.call('GET', '/api/v1/provider/users?cursor=%2F%2F', { token }), 400, 'invalid_request');
  });

  it('keeps tenants apart: another tenant sees none of these users', async () => {
    const { hashClientSecret } = await import('../../src/service/auth/client-secret.js');
    await h.service.deps.config.putTenant({ id: 'other', name: 'Other', createdAt: '2026-01-01T00:00:00.000Z' });
    await h.service.deps.config.putClient({ clientId: 'other-client', tenantId: 'other', secretHash: await hashClientSecret('other-secret'), scopes: ['read:provider-users'], createdAt: '2026-01-01T00:00:00.000Z' });
    const other = await h.token(undefined, { clientId: 'other-client', clientSecret: 'other-secret' });
    const res = await h.call('GET', '/api/v1/provider/users', { token: other });
    expect(res.json.counts.total).toBe(0);
    expectProblem(await h.call('GET', '/api/v1/provider/users/alice', { token: other }), 404, 'user_not_found');
  });

  it('lists and pages users in the same order in memory and on disk where UTF-16 order differs (U+FF01 against an emoji)', async () => {
    const ids = ['a', '\uFF01', '\u{1F600}', '\uE000x', '\u{1F600}\uFF01', '\u{1F600}z', '\uFFFF'];
    const utf8 = [...ids].sort((x, y) => Buffer.compare(Buffer.from(x, 'utf8'), Buffer.from(y, 'utf8')));
    const dir = await mkdtemp(join(tmpdir(), 'idsync-users-'));
    const disk = await openStore({ path: dir });
    try {
      for (const store of [undefined, disk]) {
        const svc = await startService(store ? { store } : {});
        try {
          const t = await svc.token();
          for (const id of ids) expect((await svc.call('PUT', `/api/v1/provider/users/${encodeURIComponent(id)}`, { token: t, body: {} })).status).toBe(201);
          const all = await svc.call('GET', '/api/v1/provider/users', { token: t });
          expect(all.json.users.map((u: { userId: string }) => u.userId), store ? 'on disk' : 'in memory').toEqual(utf8);
          const seen: string[] = [];
          let cursor: string | undefined;
          do {
            const r = await svc.call('GET', `/api/v1/provider/users?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: t });
            seen.push(...r.json.users.map((u: { userId: string }) => u.userId));
            cursor = r.json.paging.nextCursor;
          } while (cursor);
          expect(seen, store ? 'on disk, by cursor' : 'in memory, by cursor').toEqual(utf8);
        } finally {
          await svc.close();
        }
      }
    } finally {
      await disk.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('pages through users whose ids hold characters outside the BMP, with the state on disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idsync-users-'));
    const store = await openStore({ path: dir });
    const disk = await startService({ store });
    try {
      const t = await disk.token();
      for (const id of ['a', 'b', '😀x']) expect((await disk.call('PUT', `/api/v1/provider/users/${encodeURIComponent(id)}`, { token: t, body: {} })).status).toBeLessThan(300);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const r = await disk.call('GET', `/api/v1/provider/users?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { token: t });
        seen.push(...r.json.users.map((u: { userId: string }) => u.userId));
        cursor = r.json.paging.nextCursor;
      } while (cursor);
      expect(seen.sort()).toEqual(['a', 'b', '😀x'].sort());
    } finally {
      await disk.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
