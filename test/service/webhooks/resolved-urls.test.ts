// Webhook URLs after name resolution: a subscriber's host name is checked by what it resolves to
// when the subscription is stored, and again by every delivery when it connects (a name that
// starts pointing at a metadata address later is refused then, and not retried). Names are
// answered by a resolver injected into the service / dispatcher: there is no DNS here.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../../src/clock.js';
import type { HostResolver } from '../../../src/net/connect-guard.js';
import { createWebhookDispatcher } from '../../../src/service/webhooks/dispatcher.js';
import { openStore, type Store } from '../../../src/store/store.js';
import { expectProblem, startService } from '../http-helpers.js';
import { startReceiver } from './receiver.js';

/** A resolver over a table that a test may change (as DNS answers may change). */
function table(entries: Record<string, string[]>): HostResolver & { entries: Record<string, string[]> } {
  return Object.assign(
    async (host: string) => {
      const list = entries[host];
      if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return list.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
    },
    { entries },
  );
}

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe('webhook URLs checked after name resolution', () => {
  it('refuses names that resolve to metadata, NAT64 or 6to4 metadata, or mix one in; accepts public and private ones', async () => {
    const resolveHost = table({
      'hooks.attacker.example': ['169.254.169.254'],
      'nat64.attacker.example': ['64:ff9b::a9fe:a9fe'],
      'sixtofour.attacker.example': ['2002:a9fe:a9fe::1'],
      'mixed.attacker.example': ['93.184.216.34', 'fd00:ec2::254'],
      'hooks.partner.example': ['93.184.216.34'],
      'hooks.lan.example': ['10.0.0.7'],
    });
    const h = await startService({ resolveHost });
    try {
      const admin = await h.token();
      for (const host of ['hooks.attacker.example', 'nat64.attacker.example', 'sixtofour.attacker.example', 'mixed.attacker.example']) {
        const res = await h.call('POST', '/admin/webhooks', { token: admin, body: { url: `https://${host}/hook` } });
        expect(expectProblem(res, 400, 'invalid_request').detail, host).toMatch(/cloud metadata/);
      }
      for (const host of ['hooks.partner.example', 'hooks.lan.example', 'not-resolvable.example']) {
        expect((await h.call('POST', '/admin/webhooks', { token: admin, body: { url: `https://${host}/hook` } })).status, host).toBe(201);
      }
    } finally {
      await h.close();
    }
  });

  it('delivers to the checked address, and dead-letters without retry once the name points at a metadata address', async () => {
    store = await openStore();
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    const resolveHost = table({ 'hooks.partner.example': ['127.0.0.1'] });
    const dispatcher = createWebhookDispatcher({ store, clock: new ManualClock(Date.now()), ids: sequentialIds('evt'), resolveHost });
    await dispatcher.subscribe({ url: `http://hooks.partner.example:${port}/hooks` });
    const first = await dispatcher.emit({ type: 'DATA_SYNC', event: 'DATA_SYNC_COMPLETED', params: {} });
    await dispatcher.deliverDue();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].headers.host).toBe(`hooks.partner.example:${port}`);
    expect((await dispatcher.attempts(first))[0].state).toBe('delivered');

    resolveHost.entries['hooks.partner.example'] = ['64:ff9b::169.254.169.254'];
    const second = await dispatcher.emit({ type: 'DATA_SYNC', event: 'DATA_SYNC_COMPLETED', params: {} });
    await dispatcher.deliverDue();
    const [d] = await dispatcher.attempts(second);
    expect(d).toMatchObject({ state: 'dead', lastError: expect.stringMatching(/^url refused: cloud metadata/) });
    expect(d.attempts).toHaveLength(1);
    expect(receiver.received).toHaveLength(1);
    await receiver.close();
  });
});
