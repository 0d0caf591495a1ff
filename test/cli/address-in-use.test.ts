// A port already taken is a coded address_in_use with what to do (service, wallet serve, any
// listener), not internal_error; a second `wallet serve` on a folder names the one that runs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../src/listen.js';
import { createService } from '../../src/service/app.js';
import { startHttpEndpoint } from '../../src/didcomm/transport/http.js';
import { startWsEndpoint } from '../../src/didcomm/transport/ws.js';
import { openStore } from '../../src/store/store.js';
import { freePort, startCli, type RunningCli } from '../e2e/processes.js';
import { ERROR_LINE, runCli, tempDir } from './run-cli.js';

let taken: Server;
let port: number;
let dir: Awaited<ReturnType<typeof tempDir>>;
let serve: RunningCli | undefined;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as AddressInfo).port;
  dir = await tempDir();
});
afterAll(async () => {
  await serve?.stop();
  await new Promise<void>((resolve) => taken.close(() => resolve()));
  await dir.remove();
});

describe('a port already in use', () => {
  it('is address_in_use with host and port from every listener of the library', async () => {
    const expected = { code: 'address_in_use', details: expect.objectContaining({ host: '127.0.0.1', port }) };
    await expect(listen(createServer(), port, '127.0.0.1')).rejects.toMatchObject(expected);
    await expect(startHttpEndpoint({ port, handler: async () => undefined })).rejects.toMatchObject(expected);
    await expect(startWsEndpoint({ port, handler: async () => undefined })).rejects.toMatchObject(expected);
    const store = await openStore();
    const service = await createService({ store });
    try {
      await expect(service.listen({ port })).rejects.toMatchObject(expected);
    } finally {
      await service.close();
      await store.close();
    }
  });

  it('stops idsync service with one line naming the address and --port', async () => {
    const run = await runCli(['service', '--port', String(port), '--data', dir.file('service')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toBe(`idsync: address_in_use: 127.0.0.1:${port} is already in use by another process: stop it, or choose another --port\n`);
  });

  it('stops wallet serve with one line naming the address, --port and the endpoint the DID names', async () => {
    const data = dir.file('taken-wallet');
    const endpoint = `http://127.0.0.1:${port}/didcomm`;
    expect((await runCli(['wallet', 'create', '--data', data, '--endpoint', endpoint])).code).toBe(0);
    const run = await runCli(['wallet', 'serve', '--data', data]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toContain(`idsync: address_in_use: 127.0.0.1:${port} is already in use by another process: stop it, or pass --port (the DID names ${endpoint}`);
  });

  it('stops wallet serve --port with one line saying to choose another --port, not naming an endpoint that is not the taken one', async () => {
    const data = dir.file('own-port-wallet');
    const endpoint = `http://127.0.0.1:${await freePort()}/didcomm`;
    expect((await runCli(['wallet', 'create', '--data', data, '--endpoint', endpoint])).code).toBe(0);
    const run = await runCli(['wallet', 'serve', '--data', data, '--port', String(port)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`idsync: address_in_use: 127.0.0.1:${port} is already in use by another process: stop it, or choose another --port\n`);
  });
});

describe('a second wallet serve on the same folder', () => {
  it('names the running one (pid, endpoint) instead of a store lock error', async () => {
    const data = dir.file('served-wallet');
    const endpoint = `http://127.0.0.1:${await freePort()}/didcomm`;
    expect((await runCli(['wallet', 'create', '--data', data, '--endpoint', endpoint])).code).toBe(0);
    serve = startCli(['wallet', 'serve', '--data', data, '--json']);
    await serve.line(/^\{/);
    const run = await runCli(['wallet', 'serve', '--data', data]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toMatch(new RegExp(`^idsync: wallet_busy: wallet serve already runs for ${data.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(pid ${serve.child.pid}, endpoint ${endpoint}, control http://127\\.0\\.0\\.1:\\d+\\)`));
    expect(run.stderr).not.toMatch(/store|LevelDB|lock/i);
  });
});
