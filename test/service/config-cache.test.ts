// What issuance and a user's session read of the service config is kept between writes
// (config.ts projectSettings): a change made through the config applies to the next read, and
// the config's own getters still give records to change.
import { describe, expect, it } from 'vitest';
import { createServiceConfig, DEFAULT_ISSUANCE, projectSettings, type DataProfile, type ProjectRecord } from '../../src/service/config/config.js';
import { openLightStore } from '../../src/store/light-store.js';

const AT = '2026-01-01T00:00:00.000Z';
const project = (over: Partial<ProjectRecord> = {}): ProjectRecord => ({
  id: 'p', tenantId: 't', name: 'P', dataProfileId: 'd', issuance: DEFAULT_ISSUANCE, createdAt: AT, updatedAt: AT, ...over,
});
const profile = (id: string, keys: string[]) => ({ id, name: id, version: '1.0.0', fields: keys.map((key) => ({ key, required: true })) }) as unknown as DataProfile;

describe('projectSettings', () => {
  it('reads a write, a replacement and a deletion at once', async () => {
    const config = createServiceConfig(openLightStore());
    expect(await projectSettings(config, 't', 'p')).toEqual({});
    await config.putDataProfile('t', profile('d', ['firstName']));
    await config.putProject(project());
    const first = await projectSettings(config, 't', 'p');
    expect(first.project?.issuance.format).toBe('ldp');
    expect(first.profile?.fields.map((f) => f.key)).toEqual(['firstName']);
    expect(await projectSettings(config, 't', 'p')).toBe(first);
    await config.putProject(project({ issuance: { ...DEFAULT_ISSUANCE, format: 'jwt' } }));
    expect((await projectSettings(config, 't', 'p')).project?.issuance.format).toBe('jwt');
    await config.putDataProfile('t', profile('d', ['firstName', 'lastName']));
    expect((await projectSettings(config, 't', 'p')).profile?.fields.map((f) => f.key)).toEqual(['firstName', 'lastName']);
    await config.deleteProject('t', 'p');
    expect(await projectSettings(config, 't', 'p')).toEqual({});
  });

  it("follows a tenant's new default project", async () => {
    const config = createServiceConfig(openLightStore());
    await config.putProject(project({ id: 'a' }));
    await config.putProject(project({ id: 'b' }));
    await config.putTenant({ id: 't', name: 'T', defaultProjectId: 'a', createdAt: AT });
    expect((await projectSettings(config, 't')).project?.id).toBe('a');
    await config.putTenant({ id: 't', name: 'T', defaultProjectId: 'b', createdAt: AT });
    expect((await projectSettings(config, 't')).project?.id).toBe('b');
  });

  it('shares frozen records; the getters still give records to change', async () => {
    const config = createServiceConfig(openLightStore());
    await config.putProject(project());
    const kept = (await projectSettings(config, 't', 'p')).project!;
    expect(() => {
      (kept.issuance as { format: string }).format = 'jwt';
    }).toThrow(TypeError);
    const own = (await config.getProject('t', 'p'))!;
    own.issuance.format = 'jwt';
    expect((await projectSettings(config, 't', 'p')).project?.issuance.format).toBe('ldp');
  });

  it('does not keep what it read while a write was under way', async () => {
    const store = openLightStore();
    const config = createServiceConfig(store);
    await config.putProject(project());
    const col = store.collection<ProjectRecord>('svc-projects');
    const get = col.get.bind(col);
    // The read resolves only after the write that replaced the record.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    col.get = async (key) => {
      const v = await get(key);
      await gate;
      return v;
    };
    const reading = projectSettings(config, 't', 'p');
    await config.putProject(project({ name: 'New' }));
    release();
    expect((await reading).project?.name).toBe('P');
    col.get = get;
    expect((await projectSettings(config, 't', 'p')).project?.name).toBe('New');
  });
});
