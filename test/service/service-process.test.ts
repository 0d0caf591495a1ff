// The service as a real process (`idsync service`): SIGTERM closes cleanly, kill -9 loses
// nothing that was answered 2xx, the demo tenant's credentials are printed on first start only.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUrl, CLIENT } from './http-helpers.js';
import { checkScenario, writeScenario } from './scenario.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUNNER = fileURLToPath(new URL('./cli-runner.ts', import.meta.url));

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startProcess(dir: string, env: Record<string, string>): Promise<Running> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('IDSYNC_'))) as Record<string, string>;
  const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, 'service', '--port', '0', '--data', dir, '--rate-limit', 'off'], {
    cwd: ROOT,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (err += String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        resolve({ child, url: m[1], output: () => out, exited });
      }
    };
    child.stdout!.on('data', onData);
    void exited.then(({ code, signal }) => reject(new Error(`service exited early (${code ?? signal}): ${out}\n${err}`)));
  });
}

describe('idsync service as a process', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'idsync-proc-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps everything answered 2xx through kill -9', async () => {
    const env = { IDSYNC_CLIENT_ID: CLIENT.clientId, IDSYNC_CLIENT_SECRET: CLIENT.clientSecret, IDSYNC_PROJECT_ID: CLIENT.projectId };
    const first = await startProcess(join(dir, 'kill9'), env);
    let written;
    try {
      written = await writeScenario((m, p, o) => callUrl(first.url, m, p, o), CLIENT);
    } finally {
      first.child.kill('SIGKILL');
    }
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = await startProcess(join(dir, 'kill9'), env);
    try {
      await checkScenario((m, p, o) => callUrl(second.url, m, p, o), written);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 20_000);

  it('prints demo credentials on first start only, serves /health, and stops cleanly on SIGTERM', async () => {
    const first = await startProcess(join(dir, 'demo'), {});
    const creds = {
      clientId: /IDSYNC_CLIENT_ID=(\S+)/.exec(first.output())?.[1] ?? '',
      clientSecret: /IDSYNC_CLIENT_SECRET=(\S+)/.exec(first.output())?.[1] ?? '',
    };
    expect(creds.clientId).toMatch(/^demo-/);
    expect((await callUrl(first.url, 'GET', '/health')).status).toBe(200);
    expect((await callUrl(first.url, 'POST', '/api/v1/auth/token', { body: creds })).status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(first.output()).toContain('stopping');

    const second = await startProcess(join(dir, 'demo'), {});
    try {
      expect(second.output()).not.toContain('IDSYNC_CLIENT_SECRET');
      expect((await callUrl(second.url, 'POST', '/api/v1/auth/token', { body: creds })).status).toBe(200);
    } finally {
      second.child.kill('SIGTERM');
      expect((await second.exited).code).toBe(0);
    }
  }, 20_000);
});
