import { afterEach, describe, expect, it } from 'vitest';
import { IdsyncError } from '../../src/errors.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPeerDid } from '../../src/did/peer.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { systemClock, uuid } from '../../src/clock.js';
import { credentialManifestFor, defaultKycProfile } from '../../src/credentials/manifest.js';
import { buildOffer, previewFromDatapoints } from '../../src/protocols/issue-credential.js';
import { openStore, type Store } from '../../src/store/store.js';
import { createWallet, type Wallet } from '../../src/wallet/wallet.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close().catch(() => {});
});

// A store that starts failing on demand, as a full disk or a closed database would.
function failing(store: Store): Store & { fail: boolean } {
  const s = {
    fail: false,
    location: store.location,
    collection<T>(name: string) {
      const c = store.collection<T>(name);
      const guard = <A extends unknown[], R>(f: (...a: A) => Promise<R>) => async (...a: A): Promise<R> => {
        if (s.fail) throw new IdsyncError('store_error', 'disk full');
        return f(...a);
      };
      return { name: c.name, get: guard(c.get.bind(c)), put: guard(c.put.bind(c)), del: guard(c.del.bind(c)), list: guard(c.list.bind(c)), count: guard(c.count.bind(c)) };
    },
    batch: async (ops: Parameters<Store['batch']>[0]) => {
      if (s.fail) throw new IdsyncError('store_error', 'disk full');
      return store.batch(ops);
    },
    close: () => store.close(),
  };
  return s;
}

describe('wallet inbound HTTP endpoint', () => {
  it('answers 503 with Retry-After when a message fails for a transient reason, so the sender retries', async () => {
    const inner = await openStore();
    open.push(inner);
    const store = failing(inner);
    const wallet: Wallet = createWallet({ store });
    open.push(wallet);
    const { http } = await wallet.listen({ http: { host: '127.0.0.1', port: 0 } });
    // The sender has an endpoint that accepts whatever the wallet answers.
    const inbox = createServer((req, res) => req.resume().on('end', () => res.writeHead(202).end()));
    await new Promise<void>((r) => inbox.listen(0, '127.0.0.1', r));
    open.push({ close: () => new Promise<void>((r) => inbox.close(() => r())) });
    const sender = createPeerDid({ endpoint: `http://127.0.0.1:${(inbox.address() as AddressInfo).port}/didcomm` });
    const resolve = documentResolver(createResolver({ cache: false }));
    const ctx = { resolve: async (did: string) => (did.startsWith(sender.did) ? sender.document : resolve(did)), secrets: memorySecrets(sender.secrets) };
    const ping = (id: string) => ({ id, type: 'https://didcomm.org/trust-ping/2.0/ping', from: sender.did, to: [wallet.did], body: { response_requested: false } });
    const post = async (packed: string) => fetch(http!, { method: 'POST', headers: { 'content-type': 'application/didcomm-encrypted+json' }, body: packed });

    // Warm up: the wallet's keys are loaded (and cached) while the store still works.
    expect((await post((await pack(ping('p-1'), { mode: 'authcrypt', to: wallet.did }, ctx)).packed)).status).toBe(202);

    // An offer makes the wallet read its threads: with the store failing, that is a transient
    // failure (not a refusal of the offer).
    store.fail = true;
    const offer = buildOffer(
      {
        from: sender.did,
        to: wallet.did,
        manifest: credentialManifestFor(defaultKycProfile(sender.did), sender.did),
        preview: previewFromDatapoints({ firstName: 'Ada' }),
        challenge: 'c-1',
        domain: sender.did,
      } as never,
      { clock: systemClock, ids: uuid },
    );
    const packed = (await pack(offer, { mode: 'authcrypt', to: wallet.did }, ctx)).packed;
    const refused = await post(packed);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { code: string }).code).toBe('temporarily_unavailable');

    // The id was left free: the same message sent again once the store recovers is processed
    // (here: refused as an unsolicited offer, which is a final answer, not a 503).
    store.fail = false;
    expect((await post(packed)).status).toBe(202);
  });

  it('answers 400 no_reply_address, not 503, to an anoncrypted ping asking for a response, every time', async () => {
    const store = await openStore();
    open.push(store);
    const wallet: Wallet = createWallet({ store });
    open.push(wallet);
    const { http } = await wallet.listen({ http: { host: '127.0.0.1', port: 0 } });
    const ctx = { resolve: documentResolver(createResolver({ cache: false })), secrets: memorySecrets([]) };
    const ping = { id: 'anon-1', type: 'https://didcomm.org/trust-ping/2.0/ping', to: [wallet.did], body: { response_requested: true } };
    const packed = (await pack(ping, { mode: 'anoncrypt', to: wallet.did }, ctx)).packed;
    for (let i = 0; i < 2; i++) {
      const res = await fetch(http!, { method: 'POST', headers: { 'content-type': 'application/didcomm-encrypted+json' }, body: packed });
      expect(res.status).toBe(400);
      expect(res.headers.get('retry-after')).toBeNull();
      expect(await res.json()).toMatchObject({ code: 'no_reply_address', problemCode: 'e.p.req.no-reply-address' });
    }
  });

  it('answers 400 no_reply_address, not 503, to an authcrypted ping asking for a response from a DID with no endpoint, and logs it once', async () => {
    const store = await openStore();
    open.push(store);
    const wallet: Wallet = createWallet({ store });
    open.push(wallet);
    const { http } = await wallet.listen({ http: { host: '127.0.0.1', port: 0 } });
    // A did:peer:2 without services: nowhere a reply could go, and the ping asks no return route.
    const sender = createPeerDid();
    const resolve = documentResolver(createResolver({ cache: false }));
    const ctx = { resolve: async (did: string) => (did.startsWith(sender.did) ? sender.document : resolve(did)), secrets: memorySecrets(sender.secrets) };
    const ping = { id: 'no-route-1', type: 'https://didcomm.org/trust-ping/2.0/ping', from: sender.did, to: [wallet.did], body: { response_requested: true } };
    const packed = (await pack(ping, { mode: 'authcrypt', to: wallet.did }, ctx)).packed;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(http!, { method: 'POST', headers: { 'content-type': 'application/didcomm-encrypted+json' }, body: packed });
      expect(res.status).toBe(400);
      expect(res.headers.get('retry-after')).toBeNull();
      expect(await res.json()).toMatchObject({ code: 'no_reply_address', problemCode: 'e.p.req.no-reply-address' });
    }
    // The ping is handled once; the copies after it are duplicates of a final refusal, not new work.
    const logged = (await wallet.messages()).filter((m) => m.id === 'no-route-1' && m.direction === 'in');
    expect(logged.filter((m) => m.result === 'failed')).toHaveLength(1);
  });

  it('answers 400 invalid_did, not 503, to a message from a DID its method calls invalid, every time', async () => {
    const store = await openStore();
    open.push(store);
    const wallet: Wallet = createWallet({ store });
    open.push(wallet);
    const { http } = await wallet.listen({ http: { host: '127.0.0.1', port: 0 } });
    // Neither DID will ever resolve (DID Resolution §7.1.2 invalidDid): asking the sender to send
    // again later would only repeat the refusal.
    for (const from of ['did:key:zzz', 'did:peer:2.garbage']) {
      const ping = { id: `from-${from}`, type: 'https://didcomm.org/trust-ping/2.0/ping', from, to: [wallet.did], body: { response_requested: true } };
      for (let i = 0; i < 2; i++) {
        const res = await fetch(http!, { method: 'POST', headers: { 'content-type': 'application/didcomm-plain+json' }, body: JSON.stringify(ping) });
        expect(res.status, from).toBe(400);
        expect(res.headers.get('retry-after'), from).toBeNull();
        expect(await res.json(), from).toMatchObject({ code: 'invalid_did', problemCode: 'e.p.did.invalid' });
      }
    }
    // A DID that may resolve later (its host is not reachable now) is still "send it again later".
    const later = { id: 'from-web', type: 'https://didcomm.org/trust-ping/2.0/ping', from: 'did:web:127.0.0.1%3A1', to: [wallet.did], body: { response_requested: true } };
    const res = await fetch(http!, { method: 'POST', headers: { 'content-type': 'application/didcomm-plain+json' }, body: JSON.stringify(later) });
    expect(res.status, await res.clone().text()).toBe(503);
    expect(res.headers.get('retry-after')).not.toBeNull();
  });

  it('answers 400 json_too_deep to a body nested 5,000 levels deep, and keeps serving', async () => {
    const store = await openStore();
    open.push(store);
    const wallet: Wallet = createWallet({ store });
    open.push(wallet);
    const { http } = await wallet.listen({ http: { host: '127.0.0.1', port: 0 } });
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    for (const ct of ['application/didcomm-plain+json', 'application/didcomm-encrypted+json']) {
      const res = await fetch(http!, { method: 'POST', headers: { 'content-type': ct }, body: deep });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'json_too_deep' });
    }
    const junk = await fetch(http!, { method: 'POST', headers: { 'content-type': 'application/didcomm-plain+json' }, body: '[]' });
    expect(junk.status).toBe(400);
  });
});
