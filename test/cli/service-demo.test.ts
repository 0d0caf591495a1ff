// The demo tenant's credentials of `idsync service` (shown once, only a hash is stored) reach the
// user even when the first start on a folder fails to listen or dies before printing them: the
// next start prints working ones. Starts that succeed run in-process (runService); the ones that
// die at a point run as child processes killing themselves there (IDSYNC_TEST_CRASH_AT).
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runService } from '../../src/cli/commands/service.js';
import type { CliIo } from '../../src/cli/output.js';
import { isIdsyncError } from '../../src/errors.js';
import { ROOT, tempDir } from './run-cli.js';

const BLOCK = /IDSYNC_CLIENT_ID=(\S+)\n {2}IDSYNC_CLIENT_SECRET=(\S+)\n {2}IDSYNC_PROJECT_ID=(\S+)/;

interface Started {
  url: string;
  stdout: string;
  creds?: { clientId: string; clientSecret: string };
  stop(): Promise<void>;
}

/** `idsync service --port 0 --data <data>` in-process, until stop(). */
async function start(data: string): Promise<Started> {
  let stdout = '';
  let listening!: (url: string) => void;
  const url = new Promise<string>((resolve) => (listening = resolve));
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: () => undefined, readStdin: async () => '', env: {} };
  let stop!: () => void;
  const running = runService({ port: '0', host: '127.0.0.1', data, rateLimit: 'off' }, { io, env: {}, until: new Promise<void>((r) => (stop = r)), onListening: listening });
  const u = await Promise.race([url, running.then(() => Promise.reject(new Error(`service ended: ${stdout}`)))]);
  const m = BLOCK.exec(stdout);
  return {
    url: u,
    stdout,
    ...(m ? { creds: { clientId: m[1]!, clientSecret: m[2]! } } : {}),
    async stop() {
      stop();
      await running;
    },
  };
}

async function startFails(data: string, host: string, port: string): Promise<{ code: string; stdout: string }> {
  let stdout = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: () => undefined, readStdin: async () => '', env: {} };
  const err = await runService({ port, host, data }, { io, env: {}, until: new Promise(() => undefined) }).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { code: isIdsyncError(err) ? err.code : String(err), stdout };
}

const token = (url: string, creds: { clientId: string; clientSecret: string }) =>
  fetch(`${url}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(creds) }).then((r) => r.status);

/** `idsync service` as a child process that kills itself (SIGKILL) at `point`; resolves with its stdout. */
function startDying(data: string, point: string): Promise<{ signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('IDSYNC_')));
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'service', '--port', '0', '--data', data], {
    cwd: ROOT,
    env: { ...env, NO_COLOR: '1', IDSYNC_TEST_CRASH_AT: point },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => void (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => void (stderr += d.toString('utf8')));
  // A guard only: a start that never reaches the point would otherwise outlive the test.
  const guard = setTimeout(() => child.kill('SIGTERM'), 15_000);
  return new Promise((resolve) =>
    child.on('close', (_code, signal) => {
      clearTimeout(guard);
      resolve({ signal, stdout, stderr });
    }),
  );
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let taken: Server;
let port: number;
beforeAll(async () => {
  dir = await tempDir();
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => taken.close(() => resolve()));
  await dir.remove();
});

describe('idsync service: the demo tenant credentials', () => {
  for (const [what, host, code] of [
    ['a port in use', '127.0.0.1', 'address_in_use'],
    ['an address not on this machine', '999.1.1.1', 'address_not_available'],
  ] as const) {
    it(`are printed by the first start that listens, after one that failed on ${what}`, async () => {
      const data = dir.file(`failed-${code}`);
      const failed = await startFails(data, host, host === '127.0.0.1' ? String(port) : '0');
      expect(failed.code).toBe(code);
      expect(failed.stdout).not.toContain('IDSYNC_CLIENT_SECRET');

      const first = await start(data);
      try {
        expect(first.stdout).toContain('demo tenant created; keep these, they are shown once:');
        expect(first.creds?.clientId).toMatch(/^demo-/);
        expect(await token(first.url, first.creds!)).toBe(200);
      } finally {
        await first.stop();
      }
      // Shown once: the next start prints none, and they still work.
      const second = await start(data);
      try {
        expect(second.stdout).not.toContain('IDSYNC_CLIENT_SECRET');
        expect(await token(second.url, first.creds!)).toBe(200);
      } finally {
        await second.stop();
      }
    });
  }

  it('are printed anew by the next start when the one that stored them died before printing them', async () => {
    const data = dir.file('died-before-printing');
    const died = await startDying(data, 'demo:stored');
    expect(died.signal).toBe('SIGKILL');
    expect(died.stdout).not.toContain('IDSYNC_CLIENT_SECRET');

    const next = await start(data);
    try {
      expect(next.stdout).toContain('its credentials were never shown, so here is a new secret; keep these, they are shown once:');
      expect(await token(next.url, next.creds!)).toBe(200);
    } finally {
      await next.stop();
    }
    const after = await start(data);
    try {
      expect(after.stdout).not.toContain('IDSYNC_CLIENT_SECRET');
      expect(await token(after.url, next.creds!)).toBe(200);
    } finally {
      await after.stop();
    }
  }, 20_000);

  it('are printed anew when the start that printed them died before recording that: the last ones printed work', async () => {
    const data = dir.file('died-after-printing');
    const died = await startDying(data, 'demo:printed');
    expect(died.signal).toBe('SIGKILL');
    const printed = BLOCK.exec(died.stdout);
    expect(printed).not.toBeNull();

    const next = await start(data);
    try {
      expect(next.creds?.clientId).toBe(printed![1]);
      expect(next.creds?.clientSecret).not.toBe(printed![2]);
      expect(await token(next.url, next.creds!)).toBe(200);
      expect(await token(next.url, { clientId: printed![1]!, clientSecret: printed![2]! })).toBe(401);
    } finally {
      await next.stop();
    }
  }, 20_000);

  it('are not made on a folder that has tenants already, nor with the environment client', async () => {
    const data = dir.file('env');
    let stdout = '';
    const io: CliIo = { stdout: (t) => void (stdout += t), stderr: () => undefined, readStdin: async () => '', env: {} };
    let stop!: () => void;
    let listening!: () => void;
    const up = new Promise<void>((r) => (listening = r));
    const env = { IDSYNC_CLIENT_ID: 'env-client', IDSYNC_CLIENT_SECRET: 'env-secret-long-enough', IDSYNC_PROJECT_ID: 'env-project' };
    const running = runService({ port: '0', host: '127.0.0.1', data }, { io, env, until: new Promise<void>((r) => (stop = r)), onListening: () => listening() });
    await up;
    stop();
    await running;
    expect(stdout).not.toContain('demo tenant');
    // Without the environment now: the folder has a tenant, so no demo tenant is owed.
    const later = await start(data);
    try {
      expect(later.stdout).not.toContain('demo tenant');
    } finally {
      await later.stop();
    }
  });
});
