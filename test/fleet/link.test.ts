// The fleet's link (src/fleet/link.ts): requests handed over as data instead of through sockets
// must be answered as the HTTP servers would answer them, so that the senders' HTTP code reads
// statuses, problem documents and Retry-After the same way.
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { httpTransport } from '../../src/didcomm/transport/http.js';
import { byOrigin, linkFetch, linkedTransport, portEnd, type LinkHandler, type LinkResponse } from '../../src/fleet/link.js';
import { runFleet, workerArgv } from '../../src/fleet/fleet.js';
import { startWalletPool } from '../../src/fleet/wallet-pool.js';

const PLAIN = JSON.stringify({ id: '1', type: 'https://didcomm.org/trust-ping/2.0/ping', body: {} });

describe('linkFetch', () => {
  it('gives a Response with the status, headers and body answered; none for 202 and HEAD', async () => {
    const seen: unknown[] = [];
    const f = linkFetch(async (req): Promise<LinkResponse> => {
      seen.push(req);
      return req.method === 'POST' ? { status: 202, headers: {} } : { status: 200, headers: { 'content-type': 'application/json', 'x-a': '1' }, body: '{"ok":true}' };
    });
    const got = await f('http://svc.test/a?b=1', { headers: { Accept: 'application/json' } });
    expect(got.status).toBe(200);
    expect(got.headers.get('x-a')).toBe('1');
    expect(await got.json()).toEqual({ ok: true });
    const posted = await f('http://svc.test/didcomm', { method: 'post', body: 'x', headers: new Headers({ 'Content-Type': 'text/plain' }) });
    expect(posted.status).toBe(202);
    expect(await posted.text()).toBe('');
    expect(seen).toEqual([
      { method: 'GET', url: 'http://svc.test/a?b=1', headers: { accept: 'application/json' } },
      { method: 'POST', url: 'http://svc.test/didcomm', headers: { 'content-type': 'text/plain' }, body: 'x' },
    ]);
  });

  it('gives up with the signal\'s reason when it is aborted first', async () => {
    const f = linkFetch(() => new Promise(() => {}));
    await expect(f('http://svc.test/', { signal: AbortSignal.timeout(20) })).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('byOrigin sends only that origin to the link', async () => {
    const local = linkFetch(async () => ({ status: 200, headers: {}, body: 'local' }));
    const remote = (async () => new Response('remote')) as typeof fetch;
    const f = byOrigin('http://127.0.0.1:4000', local, remote);
    expect(await (await f('http://127.0.0.1:4000/x')).text()).toBe('local');
    expect(await (await f('http://127.0.0.1:40001/x')).text()).toBe('remote');
    expect(await (await f('http://127.0.0.1:4000')).text()).toBe('local');
  });
});

describe('a link on a MessagePort', () => {
  it('carries requests both ways, announces a prefix first, and fails calls once closed', async () => {
    const { port1, port2 } = new MessageChannel();
    const prefixes: string[] = [];
    const a = portEnd(port1, async (req) => ({ status: 200, headers: {}, body: `a got ${req.url}` }), (p) => prefixes.push(p));
    const b = portEnd(port2, async (req) => {
      if (req.url.endsWith('/fail')) throw new Error('boom');
      return { status: 201, headers: { 'x-from': 'b' }, body: req.body ?? '' };
    });
    b.hello('http://127.0.0.1:1/w/');
    expect(await a.call({ method: 'POST', url: 'http://b/echo', headers: {}, body: 'hi' })).toEqual({ status: 201, headers: { 'x-from': 'b' }, body: 'hi' });
    expect(prefixes).toEqual(['http://127.0.0.1:1/w/']);
    expect(await b.call({ method: 'GET', url: 'http://a/x', headers: {} })).toMatchObject({ body: 'a got http://a/x' });
    await expect(a.call({ method: 'GET', url: 'http://b/fail', headers: {} })).rejects.toMatchObject({ code: 'transport_error' });
    // The other end closing fails what it still owed, and every later call.
    const owed = b.call({ method: 'GET', url: 'http://a/never', headers: {} });
    a.close();
    await expect(owed).rejects.toMatchObject({ code: 'transport_unreachable' });
    await expect(a.call({ method: 'GET', url: 'http://b/x', headers: {} })).rejects.toMatchObject({ code: 'transport_unreachable' });
    await expect(b.call({ method: 'GET', url: 'http://a/x', headers: {} })).rejects.toMatchObject({ code: 'transport_unreachable' });
  });

  it('gathers what one turn sends into a few posts, in order, a hello before the requests after it', async () => {
    const { port1, port2 } = new MessageChannel();
    const posts: unknown[] = [];
    const post = port1.postMessage.bind(port1);
    port1.postMessage = (m: unknown) => {
      posts.push(m);
      post(m);
    };
    const served: string[] = [];
    const seen: string[] = [];
    const a = portEnd(port1, async () => ({ status: 200, headers: {}, body: '' }));
    portEnd(
      port2,
      async (req) => {
        served.push(req.url);
        return { status: 200, headers: {}, body: req.url };
      },
      (prefix) => seen.push(`hello ${prefix}`),
    );
    a.hello('http://127.0.0.1:1/w/');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => a.call({ method: 'GET', url: `http://b/${i}`, headers: {} })));
    expect(answers.map((r) => r.body)).toEqual(Array.from({ length: 20 }, (_, i) => `http://b/${i}`));
    expect(served).toEqual(Array.from({ length: 20 }, (_, i) => `http://b/${i}`));
    expect(seen).toEqual(['hello http://127.0.0.1:1/w/']);
    // 21 messages in three posts of at most 8, sent as arrays, none of them alone.
    expect(posts.map((p) => (Array.isArray(p) ? p.length : 1))).toEqual([8, 8, 5]);
    // A call after the turn goes on its own, at the end of its turn.
    await a.call({ method: 'GET', url: 'http://b/late', headers: {} });
    expect(posts.at(-1)).toMatchObject({ t: 'req', req: { url: 'http://b/late' } });
    a.close();
  });

  it('fails only the message a port cannot copy: its caller is told, the rest of the turn arrives', async () => {
    const { port1, port2 } = new MessageChannel();
    const a = portEnd(port1, async () => ({ status: 200, headers: {}, body: '' }));
    const b = portEnd(port2, async (req): Promise<LinkResponse> =>
      req.url.endsWith('/odd') ? { status: 200, headers: { 'x-odd': (() => 'no') as unknown as string }, body: '' } : { status: 200, headers: {}, body: req.url },
    );
    const [before, badRequest, badAnswer, after] = await Promise.allSettled([
      a.call({ method: 'GET', url: 'http://b/1', headers: {} }),
      a.call({ method: 'GET', url: 'http://b/2', headers: { 'x-fn': (() => 'no') as unknown as string } }),
      a.call({ method: 'GET', url: 'http://b/odd', headers: {} }),
      a.call({ method: 'GET', url: 'http://b/3', headers: {} }),
    ]);
    expect(before).toMatchObject({ status: 'fulfilled', value: { body: 'http://b/1' } });
    expect(badRequest).toMatchObject({ status: 'rejected', reason: { code: 'transport_error', message: expect.stringContaining('could not send the request') } });
    expect(badAnswer).toMatchObject({ status: 'rejected', reason: { code: 'transport_error', message: expect.stringContaining('could not be sent') } });
    expect(after).toMatchObject({ status: 'fulfilled', value: { body: 'http://b/3' } });
    // The link still carries what comes next, both ways.
    expect(await b.call({ method: 'GET', url: 'http://a/x', headers: {} })).toMatchObject({ status: 200 });
    a.close();
  });

  it('sends what waits for the end of the turn before the port closes', async () => {
    const { port1, port2 } = new MessageChannel();
    const served: string[] = [];
    const a = portEnd(port1, async () => ({ status: 200, headers: {}, body: '' }));
    portEnd(port2, async (req) => {
      served.push(req.url);
      return { status: 200, headers: {}, body: '' };
    });
    const owed = a.call({ method: 'POST', url: 'http://b/last', headers: {}, body: 'x' });
    a.close();
    await expect(owed).rejects.toMatchObject({ code: 'transport_unreachable' });
    await new Promise((r) => setTimeout(r, 20));
    expect(served).toEqual(['http://b/last']);
  });
});

describe('the wallets\' end', () => {
  it('answers as their inbound server: 404 for no such wallet, 405 for GET, 503 + Retry-After read as retry-later by the sender', async () => {
    const pool = await startWalletPool();
    try {
      const none = await pool.deliver({ method: 'POST', url: `${pool.endpointPrefix}999`, headers: { 'content-type': 'application/didcomm-plain+json' }, body: PLAIN });
      expect(none.status).toBe(404);
      const w = await pool.wallet(1);
      const get = await pool.deliver({ method: 'GET', url: `${pool.endpointPrefix}1`, headers: {} });
      expect(get.status).toBe(405);
      // A wallet handler that asks for the message again: the link answers 503, the sender's HTTP code reads it.
      const receive = w.receive.bind(w);
      (w as { receive: unknown }).receive = async () => ({ retryable: true, retryAfterSeconds: 7 });
      const route: LinkHandler = (req) => pool.deliver(req);
      const t = linkedTransport(httpTransport(), (ep) => (ep.startsWith(pool.endpointPrefix) ? route : undefined));
      await expect(t.send(`${pool.endpointPrefix}1`, PLAIN)).rejects.toMatchObject({ code: 'transport_retry_later', details: { retryAfterSeconds: 7 } });
      (w as { receive: typeof w.receive }).receive = receive;
    } finally {
      await pool.close();
    }
  });
});

describe('runFleet layouts', () => {
  it('auto: the twin in a worker thread of its own, the wallets in another, linked; every thread measured', async () => {
    const r = await runFleet({ scenario: { builtin: 'sync' }, model: { kind: 'closed', wallets: 4, concurrency: 2 }, workers: 'auto' });
    expect(r.summary).toMatchObject({ completed: 4, failed: 0 });
    expect(r.threaded).toBe(true);
    expect(r.threads.map((t) => t.role)).toEqual(['coordinator', 'service', ...Array(r.summary.workers).fill('wallets')]);
    for (const t of r.threads) expect(t.elu).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it('the embedded twin over loopback HTTP instead of the link', async () => {
    const r = await runFleet({ scenario: { builtin: 'sync' }, model: { kind: 'closed', wallets: 2, concurrency: 2 }, workers: 1, embeddedTransport: 'http' });
    expect(r.summary).toMatchObject({ completed: 2, failed: 0 });
    expect(r.threads.map((t) => t.role)).toEqual(['service+wallets']);
  }, 60_000);

  it('workers get none of the options they refuse or must not run: scripts, loaders, --input-type', () => {
    expect(workerArgv(['--input-type=module', '-e', 'code', '--import', 'tsx', '--conditions=dev', '--require', './x.cjs', '--enable-source-maps'])).toEqual([
      '--conditions=dev',
      '--require',
      './x.cjs',
      '--enable-source-maps',
    ]);
  });
});
