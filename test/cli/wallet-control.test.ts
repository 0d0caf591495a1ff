// The control API of `wallet serve` bounds JSON nesting like every other JSON entry point.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { startControl, stopControl } from '../../src/cli/commands/wallet-control.js';

describe('wallet serve control API', () => {
  let server: Server;
  let url: string;
  const seen: unknown[] = [];
  beforeAll(async () => {
    server = await startControl('t0k3n', { 'POST /echo': async (body) => (seen.push(body), { ok: true }) });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => stopControl(server));

  const post = (body: string) => fetch(`${url}/echo`, { method: 'POST', headers: { authorization: 'Bearer t0k3n', 'content-type': 'application/json' }, body });

  it('answers 400 json_too_deep to a body nested 5,000 levels deep without calling the route', async () => {
    const res = await post('['.repeat(5000) + ']'.repeat(5000));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'json_too_deep' });
    expect(seen).toEqual([]);
    expect((await post('{"a":[1]}')).status).toBe(200);
    expect(seen).toEqual([{ a: [1] }]);
  });
});
