// faultSwitch: faults turned on, changed and off while a testbed (or a lone twin) runs. Off, no
// message is touched; on, the plan in force applies from the next message, and the record of
// applied faults runs on across plans.
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { createService, type Service } from '../../src/service/app.js';
import { createWallet, type Wallet } from '../../src/wallet/wallet.js';
import {
  connectUser, faultSwitch, faultyServiceAgent, startTestbed, syncDatapoints, type AppliedFault, type Testbed,
} from '../../src/testing/index.js';

const ADA = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

describe('fault switch', () => {
  it('applies nothing while off, a plan once set, and nothing again once off', async () => {
    const sw = faultSwitch();
    const seen: AppliedFault[] = [];
    sw.watch((f) => seen.push(f));
    const bed: Testbed = await startTestbed({ faults: sw });
    cleanup.push(() => bed.close());
    const [wallet] = bed.wallets;
    await connectUser(bed, 'ada', wallet);
    expect(sw.applied).toEqual([]);

    sw.set({ rules: [{ fault: 'duplicate', direction: 'to-wallet' }] });
    await syncDatapoints(bed, 'ada', wallet, ADA);
    // The copies of the last messages may still be on their way.
    await bed.service.agent.idle();
    expect(sw.applied.length).toBeGreaterThan(0);
    expect(sw.applied.every((f) => f.fault === 'duplicate' && f.direction === 'to-wallet')).toBe(true);
    expect(seen).toEqual(sw.applied);

    sw.off();
    const before = sw.applied.length;
    await syncDatapoints(bed, 'ada', wallet, { ...ADA, firstName: 'Augusta' });
    expect(sw.applied).toHaveLength(before);
    expect(sw.current).toBeUndefined();
  });

  it('refuses a plan with an unknown fault and keeps the one in force', () => {
    const sw = faultSwitch({ rules: [{ fault: 'drop' }] });
    expect(() => sw.set({ rules: [{ fault: 'explode' as never }] })).toThrow(/unknown fault/);
    expect(sw.current?.rules).toEqual([{ fault: 'drop' }]);
  });

  it("puts faults on a lone twin's inbound stream: a dropped message is sent again by the wallet", async () => {
    const sw = faultSwitch();
    const stores: Store[] = [await openStore(), await openStore()];
    cleanup.push(() => Promise.all(stores.map((s) => s.close())));
    const service: Service = await createService({
      store: stores[0], rateLimit: false, env: { clientId: 'c', clientSecret: 'c-secret-123', projectId: 'p' },
      agent: (deps) => faultyServiceAgent(deps, sw, { retry: { baseDelayMs: 50, maxDelayMs: 50, acceptedDelayMs: 50 } }),
    });
    const url = await service.listen({ port: 0 });
    cleanup.push(() => service.close());
    const wallet: Wallet = createWallet({ store: stores[1], retry: { baseDelayMs: 50, maxDelayMs: 50, acceptedDelayMs: 50 } });
    cleanup.push(() => wallet.close());
    await wallet.listen({ http: { port: 0 } });
    // The wallet's Data Pipe request is the first message to reach the service: dropped once.
    sw.set({ rules: [{ fault: 'drop', direction: 'to-service', times: 1 }] });
    const token = ((await (await fetch(`${url}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId: 'c', clientSecret: 'c-secret-123' }) })).json()) as { accessToken: string }).accessToken;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await fetch(`${url}/api/v1/provider/users/ada`, { method: 'PUT', headers, body: JSON.stringify({ settings: { isSyncOn: true } }) });
    const { invitationUrl } = (await (await fetch(`${url}/api/v1/provider/users/ada/invite`, { method: 'POST', headers })).json()) as { invitationUrl: string };
    const accepted = await wallet.acceptInvitation(invitationUrl, { timeoutMs: 20_000 });
    expect(accepted.kind).toBe('data-pipe');
    expect(sw.applied).toMatchObject([{ fault: 'drop', direction: 'to-service', mediaType: 'encrypted' }]);
  });
});
