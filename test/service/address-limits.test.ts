// Limits per remote address (service-security.md #5, #10): POST /didcomm and the DIDComm
// WebSocket share a token bucket per address; token requests have one too, and only a few
// client secret (scrypt) checks run at once.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ManualClock } from '../../src/clock.js';
import type { WsConnection, WsInboundInfo } from '../../src/didcomm/transport/ws.js';
import { addressKey, createRateLimiter } from '../../src/service/http/rate-limit.js';
import { createWorkGate } from '../../src/service/http/work-gate.js';
import { limitWsInbound, WS_RATE_LIMIT_CLOSE } from '../../src/service/http/ws-limits.js';
import { expectProblem, startService, type Harness } from './http-helpers.js';

const PING = JSON.stringify({ id: 'p1', typ: 'application/didcomm-plain+json', type: 'https://didcomm.org/trust-ping/2.0/ping', body: { response_requested: false } });
const plain = { 'content-type': 'application/didcomm-plain+json' };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const post = (harness: Harness, i: number) =>
  harness.call('POST', '/didcomm', { raw: true, body: PING.replace('"p1"', `"p${i}"`), headers: plain });

function openSocket(url: string): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws') + '/didcomm');
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.once('open', () => resolve({ ws, closed }));
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused ${res.statusCode}`), { status: res.statusCode, retryAfter: res.headers['retry-after'] })));
    ws.once('error', reject);
  });
}

describe('POST /didcomm and the WebSocket, per remote address', () => {
  it('answers 429 with Retry-After once the address has used its burst, and again after refill', async () => {
    const clock = new ManualClock();
    h = await startService({ clock, addressRateLimit: { didcomm: { burst: 3, perSecond: 1 } } });
    for (let i = 0; i < 3; i++) expect((await post(h, i)).status).toBe(202);
    const refused = expectProblem(await post(h, 3), 429, 'rate_limited');
    expect(refused.retryAfter).toBe(1);
    clock.advance(1000);
    expect((await post(h, 4)).status).toBe(202);
    expectProblem(await post(h, 5), 429, 'rate_limited');
  });

  it('closes a WebSocket with 1008 when its frames exceed the limit, and refuses the next upgrade with 429', async () => {
    const clock = new ManualClock();
    h = await startService({ clock, addressRateLimit: { didcomm: { burst: 4, perSecond: 1 } } });
    const { ws, closed } = await openSocket(h.url); // 1 token
    for (let i = 0; i < 4; i++) ws.send(PING.replace('"p1"', `"w${i}"`)); // 3 more, then over
    expect(await closed).toBe(WS_RATE_LIMIT_CLOSE);
    await expect(openSocket(h.url)).rejects.toMatchObject({ status: 429, retryAfter: '1' });
    // HTTP shares the bucket.
    expectProblem(await post(h, 9), 429, 'rate_limited');
    clock.advance(2000);
    const again = await openSocket(h.url);
    again.ws.close();
    await again.closed;
  });

  it('still answers 404 for WebSocket upgrades on other paths', async () => {
    h = await startService();
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(h!.url.replace(/^http/, 'ws') + '/elsewhere');
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('error', () => resolve(-1));
    });
    expect(status).toBe(404);
  });

  it('is on by default and off with rateLimit false', async () => {
    const clock = new ManualClock();
    h = await startService({ clock, rateLimit: { burst: 1000, perSecond: 1 } });
    let last = 0;
    for (let i = 0; i < 601; i++) last = (await post(h, i)).status;
    expect(last).toBe(429);
    await h.close();
    h = await startService({ clock, rateLimit: false });
    for (let i = 0; i < 601; i++) last = (await post(h, i)).status;
    expect(last).toBe(202);
  });
});

describe('token requests', () => {
  const tokenRequest = (harness: Harness, clientId: string) =>
    harness.call('POST', '/api/v1/auth/token', { body: { clientId, clientSecret: 'guess' } });

  it('limits token requests per remote address, whatever client ids they name', async () => {
    const clock = new ManualClock();
    h = await startService({ clock, addressRateLimit: { token: { burst: 2, perSecond: 1 } } });
    expectProblem(await tokenRequest(h, 'random-1'), 401, 'invalid_client');
    expectProblem(await tokenRequest(h, 'random-2'), 401, 'invalid_client');
    const refused = expectProblem(await tokenRequest(h, 'random-3'), 429, 'rate_limited');
    expect(refused.retryAfter).toBe(1);
    clock.advance(1000);
    expectProblem(await tokenRequest(h, 'random-4'), 401, 'invalid_client');
  });

  it('answers 429 when more secret checks arrive than may run and wait', async () => {
    h = await startService({ secretChecks: { concurrency: 1, queue: 0 } });
    const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => tokenRequest(h!, `burst-${i}`)));
    const codes = replies.map((r) => r.json?.code);
    expect(codes).toContain('invalid_client');
    expect(codes).toContain('rate_limited');
    expect(codes.every((c) => c === 'invalid_client' || c === 'rate_limited')).toBe(true);
  });
});

describe('building blocks', () => {
  it('runs at most `concurrency` jobs, queues `queue` more and refuses the rest with busy', async () => {
    const gate = createWorkGate({ concurrency: 2, queue: 1 });
    const releases: (() => void)[] = [];
    const job = () => new Promise<string>((resolve) => releases.push(() => resolve('done')));
    const running = [gate.run(job), gate.run(job), gate.run(job)];
    await Promise.resolve();
    expect(gate.active).toBe(2);
    expect(gate.waiting).toBe(1);
    await expect(gate.run(job)).rejects.toMatchObject({ code: 'busy' });
    releases[0]();
    await running[0];
    await new Promise((r) => setImmediate(r));
    expect(releases).toHaveLength(3); // the queued job started
    releases[1]();
    releases[2]();
    expect(await Promise.all(running)).toEqual(['done', 'done', 'done']);
    expect(gate.active).toBe(0);
  });

  it('counts a WebSocket frame against the remote address its connection reports, whenever it arrived', async () => {
    const limiter = createRateLimiter(new ManualClock(), { burst: 2, perSecond: 0.001 });
    const quiet = { warn: () => {}, info: () => {}, error: () => {}, debug: () => {} } as never;
    // Never attached to an endpoint and no upgrade seen: the address comes from the connection alone.
    const limits = limitWsInbound(http.createServer(), { path: '/didcomm', limiter, logger: quiet });
    const closed: number[] = [];
    const handled: number[] = [];
    const connection = (id: number, remoteAddress?: string) =>
      ({ id, remoteAddress, keys: new Set(), open: true, send: async () => {}, bind: () => {}, close: (code?: number) => void closed.push(code ?? 0) }) as WsConnection;
    const frame = (conn: WsConnection) => limits.wrap(async () => void handled.push(conn.id))('{}', { transport: 'ws', reply: async () => {}, bind: () => {}, connection: conn } as WsInboundInfo);
    // POST /didcomm from the same address (IPv4-mapped form) already used one token of its bucket.
    expect(limiter.take(`didcomm:${addressKey('10.0.0.7')}`).allowed).toBe(true);
    await frame(connection(1, '::ffff:10.0.0.7'));
    await frame(connection(2, '10.0.0.7'));
    expect(handled).toEqual([1]);
    expect(closed).toEqual([WS_RATE_LIMIT_CLOSE]);
    // Without an address a connection has a bucket of its own.
    await frame(connection(3));
    await frame(connection(3));
    expect(handled).toEqual([1, 3, 3]);
  });

  it('keys IPv6 addresses by /64 and IPv4-mapped addresses as IPv4', () => {
    expect(addressKey('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:db8:1:2:bbbb::2'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
  });

  it('keeps at most 10,000 buckets, however many keys are busy', () => {
    const clock = new ManualClock();
    const limiter = createRateLimiter(clock, { burst: 2, perSecond: 0.001 });
    for (let i = 0; i < 10_050; i++) limiter.take(`k${i}`);
    // The oldest keys were forgotten (each had one token left): they start afresh with the whole burst.
    expect(limiter.take('k0').allowed).toBe(true);
    expect(limiter.take('k0').allowed).toBe(true);
    // A recent key is still counted.
    expect(limiter.take('k10049').allowed).toBe(true);
    expect(limiter.take('k10049').allowed).toBe(false);
  });
});
