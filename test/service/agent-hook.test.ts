import { describe, expect, it } from 'vitest';
import type { ServiceAgent } from '../../src/service/didcomm-seam.js';
import type { SyncReason, UserRef } from '../../src/service/users/users.js';
import type { ServiceDeps } from '../../src/service/deps.js';
import { linkWallet } from '../../src/service/users/users.js';
import { fakeIonDid, startService } from './http-helpers.js';

describe('the ServiceAgent seam', () => {
  it('builds the agent from the finished deps and routes syncs and invitations through it', async () => {
    const calls: Array<[UserRef, SyncReason]> = [];
    const invited: string[] = [];
    let seenDeps: ServiceDeps | undefined;
    const h = await startService({
      agent: (deps): ServiceAgent => {
        seenDeps = deps;
        return {
          async requestSync(user, reason) {
            calls.push([user, reason]);
            return { operationId: `op-${calls.length}` };
          },
          async onInvitationCreated(info) {
            invited.push(info.invitation.id);
          },
        };
      },
    });
    try {
      expect(seenDeps?.users).toBeDefined();
      const token = await h.token();
      await h.call('PUT', '/api/v1/provider/users/a1', { token, body: { settings: { isSyncOn: true } } });
      const inv = await h.call('POST', '/api/v1/provider/users/a1/invite', { token, body: {} });
      const oob = JSON.parse(Buffer.from(new URL(inv.json.invitationUrl).searchParams.get('_oob')!, 'base64url').toString());
      expect(invited).toEqual([oob.id]);
      await linkWallet(h.service.deps, { tenantId: 'default', userId: 'a1' }, fakeIonDid(1));
      const res = await h.call('POST', '/api/v1/provider/users/a1/sync', { token });
      expect(res.json).toEqual({ operationId: 'op-1', status: 'queued' });
      expect(calls).toEqual([[{ tenantId: 'default', userId: 'a1' }, 'manual']]);
    } finally {
      await h.close();
    }
  });
});
