// A request-target node's HTTP parser lets through but no URL can hold ("//", "http://[::1/") once
// threw inside a request or upgrade listener: an uncaught exception, so one unauthenticated
// request stopped the service twin, the mediator and `wallet serve`. Every server here is sent
// such targets over a real socket, fixed ones and seeded random ones, on plain requests and on
// WebSocket upgrades: each gets an answer under 500 (or its socket closed), and the server still
// answers a well-formed request afterwards. RFC 9112 §3.2: an invalid request-target is a 400.
import type http from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControl, stopControl } from '../../src/cli/commands/wallet-control.js';
import { startHttpEndpoint, type HttpEndpoint } from '../../src/didcomm/transport/http.js';
import { attachWsEndpoint, type WsEndpoint } from '../../src/didcomm/transport/ws.js';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { requestPath, requestUrl } from '../../src/net/request-target.js';
import { createService, type Service } from '../../src/service/app.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startFaultProxy, type FaultProxy } from '../../src/testing/fault-proxy.js';
import { prng } from '../fuzz-kit.js';

const CLIENT = { clientId: 'target-client', clientSecret: 'target-secret-123', projectId: 'target-project' };

describe('requestUrl', () => {
  it("reads an origin-form target's own path, an absolute-form target as it is, and refuses the rest", () => {
    const read = (t: string | undefined) => {
      const u = requestUrl(t);
      return u && [u.pathname, u.search];
    };
    expect(read('/didcomm?x=1#f')).toEqual(['/didcomm', '?x=1']);
    expect(read(undefined)).toEqual(['/', '']);
    // Not a network-path reference (RFC 3986 §4.2): the path is the whole target.
    expect(read('//')).toEqual(['//', '']);
    expect(read('//host/didcomm')).toEqual(['//host/didcomm', '']);
    expect(read('http://a.example/didcomm?y')).toEqual(['/didcomm', '?y']);
    for (const t of ['http://[::1/', '*', 'example.com:443', 'didcomm', '']) expect(read(t), t).toBeUndefined();
    expect(requestPath('http://[::1/')).toBe('');
    expect(requestPath('/a')).toBe('/a');
  });
});

const FIXED = ['//', '///', '//x/y', 'http://[::1/', 'http://[', 'http://:0/', 'http://a:99999/', 'http://%zz/', '/%zz', '/?%', '/..%2f..', '*', 'a:b', '/\\\\x'];
const ALPHABET = '/\\[]:@?#%.azAZ09-_~!$&\'()*+,;=';

/** Targets drawn from characters URL parsers treat specially; the same every run (seed 7). */
function randomTargets(n: number): string[] {
  const rnd = prng(7);
  return Array.from({ length: n }, () => {
    const len = 1 + Math.floor(rnd() * 14);
    let t = rnd() < 0.5 ? '/' : rnd() < 0.5 ? 'http://' : '';
    for (let i = 0; i < len; i++) t += ALPHABET[Math.floor(rnd() * ALPHABET.length)];
    return t;
  });
}
const TARGETS = [...FIXED, ...randomTargets(40)];

/** Sends `head` on a new connection; the status line of the answer, or '' when the socket closed without one. */
function rawStatus(port: number, head: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let got = '';
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (got.includes('\r\n')) socket.destroy();
    });
    socket.setTimeout(3000, () => socket.destroy());
    socket.on('error', () => {});
    socket.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
  });
}

const plain = (method: string, target: string, extra = '') => `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`;
const upgrade = (target: string, extra = '') =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`;

/** Every target, plain and as an upgrade: no answer of 500 or more. */
async function expectNoServerError(port: number, extra = ''): Promise<void> {
  const bad: string[] = [];
  for (const target of TARGETS) {
    for (const head of [plain('GET', target, extra), plain('POST', target, extra), upgrade(target, extra)]) {
      const status = await rawStatus(port, head);
      if (/^HTTP\/1\.1 5/.test(status)) bad.push(`${head.split('\r\n')[0]} -> ${status}`);
    }
  }
  expect(bad).toEqual([]);
}

const portOf = (server: http.Server) => (server.address() as AddressInfo).port;

describe('servers given request-targets no URL can hold', () => {
  let store: Store;
  let mediator: RunningMediator;
  let service: Service;
  let serviceUrl: string;
  let endpoint: HttpEndpoint;
  let ws: WsEndpoint;
  let control: http.Server;
  let proxy: FaultProxy;

  beforeAll(async () => {
    store = await openStore();
    mediator = await startMediator({ store: await openStore() });
    service = await createService({ store, env: CLIENT, rateLimit: false });
    serviceUrl = await service.listen({ port: 0, host: '127.0.0.1' });
    endpoint = await startHttpEndpoint({ port: 0, handler: async () => undefined });
    ws = attachWsEndpoint(endpoint.server, { handler: async () => {} });
    control = await startControl('t0k3n', { 'GET /info': async () => ({ ok: true }) });
    proxy = await startFaultProxy({ listen: 0, target: mediator.url, plan: { rules: [] } });
  });
  afterAll(async () => {
    await proxy?.close();
    await ws?.close();
    await endpoint?.close();
    if (control) await stopControl(control);
    await service?.close();
    await mediator?.close();
  });

  it('a DIDComm HTTP endpoint with a WebSocket endpoint on it (the wallet\'s) answers each and goes on', async () => {
    const port = Number(new URL(endpoint.url).port);
    expect(await rawStatus(port, plain('POST', 'http://[::1/'))).toBe('HTTP/1.1 400 Bad Request');
    await expectNoServerError(port);
    expect((await fetch(endpoint.url)).status).toBe(405);
  });

  it('the mediator answers each and goes on', async () => {
    const port = Number(new URL(mediator.url).port);
    await expectNoServerError(port);
    expect((await fetch(`${mediator.url}/health`)).status).toBe(200);
    // Over the fleet's link, where a request is handed over without a socket.
    expect((await mediator.serve({ method: 'GET', url: 'http://[::1/' })).status).toBe(400);
  });

  it('the service twin (fastify, and its WebSocket endpoint) answers each and goes on', async () => {
    const port = Number(new URL(serviceUrl).port);
    await expectNoServerError(port);
    const token = await fetch(`${serviceUrl}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret }) });
    expect(token.status).toBe(200);
  });

  it("wallet serve's control API answers each, with the token, and goes on", async () => {
    const port = portOf(control);
    expect(await rawStatus(port, plain('GET', 'http://[::1/', 'Authorization: Bearer t0k3n\r\n'))).toBe('HTTP/1.1 400 Bad Request');
    expect(await rawStatus(port, plain('GET', '//', 'Authorization: Bearer t0k3n\r\n'))).toBe('HTTP/1.1 404 Not Found');
    await expectNoServerError(port, 'Authorization: Bearer t0k3n\r\n');
    expect((await fetch(`http://127.0.0.1:${port}/info`, { headers: { authorization: 'Bearer t0k3n' } })).status).toBe(200);
  });

  it('`idsync proxy` (before the mediator here) answers each and goes on', async () => {
    const port = Number(new URL(proxy.url).port);
    expect(await rawStatus(port, upgrade('http://[::1/'))).toBe('HTTP/1.1 400 Bad Request');
    await expectNoServerError(port);
    expect((await fetch(`${proxy.url}/health`)).status).toBe(200);
  });
});
