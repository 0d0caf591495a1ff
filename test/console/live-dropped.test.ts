// A page that goes away before its event stream is open: the route awaits (the session, the
// filter's lookups) before it opens the stream, and a browser that left meanwhile has closed the
// response already. Such a stream must end at once, or its heartbeat and its feed stay for good
// (a thousand dropped opens kept a thousand, and a service slowed to a stop under them).
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveHub } from '../../src/console/live.js';

const hub = liveHub({ heartbeatMs: 60_000 });
const app = Fastify();
let opened = 0;
let stopped = 0;
let port: number;

beforeAll(async () => {
  app.get('/stream', async (request, reply) => {
    // What a stream route awaits before it opens: long enough for the client to leave.
    await new Promise((r) => setTimeout(r, 50));
    hub.open(request, reply, () => {
      opened++;
      return () => void stopped++;
    });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  hub.close();
  await app.close();
});

/** Sends the request and destroys the socket at once, as a browser closing the tab does. */
const dropped = () =>
  new Promise<void>((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write('GET /stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
      s.destroy();
      resolve();
    });
  });

describe('console live streams dropped before they open', () => {
  it('end at once, and keep nothing', async () => {
    for (let i = 0; i < 40; i++) await dropped();
    await new Promise((r) => setTimeout(r, 300));
    expect(hub.size).toBe(0);
    expect(stopped).toBe(opened);

    // A client that stays gets its stream as before.
    const ctl = new AbortController();
    const res = await fetch(`http://127.0.0.1:${port}/stream`, { signal: ctl.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('retry: 1000');
    expect(hub.size).toBe(1);
    ctl.abort();
    await new Promise((r) => setTimeout(r, 100));
    expect(hub.size).toBe(0);
  });
});
