// --console on the commands: `idsync service --console` serves it on the twin with faults
// switchable, `idsync demo --console` says where to sign in, starts its flows at the first sign-in
// and keeps the twin running until stopped, `idsync wallet serve --console` prints its URL and
// access code. Run in-process (runService, runDemo, the CLI program).
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../src/cli/commands/demo.js';
import { runService } from '../../src/cli/commands/service.js';
import { serveWallet } from '../../src/cli/commands/wallet-serve.js';
import { createOutput, type CliIo } from '../../src/cli/output.js';
import { runCli, tempDir } from './run-cli.js';

function capture() {
  let stdout = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const io: CliIo = {
    stdout: (t: string) => {
      stdout += t;
      for (const w of waiters.splice(0)) (w.pattern.test(stdout) ? w.resolve : () => waiters.push(w))();
    },
    stderr: () => {},
    readStdin: async () => '',
  };
  return {
    io,
    text: () => stdout,
    /** Resolves once the output matches (told by each write; nothing polls). */
    seen: (pattern: RegExp) => (pattern.test(stdout) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ pattern, resolve }))),
  };
}

const signIn = (url: string, clientId: string, clientSecret: string) =>
  fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ clientId, clientSecret }), redirect: 'manual' });

describe('--console', () => {
  it('idsync service --console: the console at /console, signed in with the demo tenant, faults switchable', async () => {
    const dir = await tempDir();
    const out = capture();
    let stop!: () => void;
    try {
      const running = runService(
        { port: '0', host: '127.0.0.1', data: dir.file('service'), console: true },
        { io: out.io, env: {}, until: new Promise<void>((r) => (stop = r)) },
      );
      await out.seen(/idsync service listening on (http:\S+)/);
      const url = /idsync service listening on (http:\S+)/.exec(out.text())![1]!;
      expect(out.text()).toContain(`console ${url}/console: sign in with a client holding idsync:admin (the demo tenant above)`);
      const id = /IDSYNC_CLIENT_ID=(\S+)/.exec(out.text())![1]!;
      const secret = /IDSYNC_CLIENT_SECRET=(\S+)/.exec(out.text())![1]!;
      const res = await signIn(`${url}/console`, id, secret);
      expect(res.status).toBe(303);
      const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
      const faults = await fetch(`${url}/console/faults`, { headers: { cookie, accept: 'text/html' } });
      expect(await faults.text()).toContain('id="fault-state">off');
      const on = await fetch(`${url}/console/faults`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: 'fault=delay&delayMs=1', redirect: 'manual' });
      expect(on.status).toBe(303);
      expect(await (await fetch(`${url}/console/faults`, { headers: { cookie, accept: 'text/html' } })).text()).toContain('id="fault-state">on');
      stop();
      await running;
    } finally {
      await dir.remove();
    }
  });

  it('idsync service without --console has no console', async () => {
    const dir = await tempDir();
    const out = capture();
    let stop!: () => void;
    try {
      const running = runService({ port: '0', host: '127.0.0.1', data: dir.file('service') }, { io: out.io, env: {}, until: new Promise<void>((r) => (stop = r)) });
      await out.seen(/idsync service listening on (http:\S+)/);
      const url = /idsync service listening on (http:\S+)/.exec(out.text())![1]!;
      expect((await fetch(`${url}/console/login`)).status).toBe(404);
      stop();
      await running;
    } finally {
      await dir.remove();
    }
  });

  it('idsync demo --console: the flows start at the first sign-in, and the twin runs until stopped', async () => {
    const out = capture();
    let stop!: () => void;
    let ready!: { url: string; clientId: string; clientSecret: string };
    const demo = runDemo(createOutput(out.io, false), {
      console: { until: new Promise<void>((r) => (stop = r)), onReady: (info) => (ready = info) },
    });
    await out.seen(/the flows start when you sign in/);
    expect(out.text()).toContain(`console ${ready.url}`);
    expect(out.text()).toContain(`sign in with client id ${ready.clientId} and client secret ${ready.clientSecret}`);
    expect(out.text()).not.toMatch(/^2\. /m);
    expect((await signIn(ready.url, ready.clientId, 'wrong')).status).toBe(401);
    expect(out.text()).not.toMatch(/^2\. /m);
    const res = await signIn(ready.url, ready.clientId, ready.clientSecret);
    expect(res.status).toBe(303);
    await out.seen(/keeps running with its console/);
    // Still serving after the flows: the user's whole history is there to look at.
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    const user = await (await fetch(`${ready.url}/users/demo-user`, { headers: { cookie, accept: 'text/html' } })).text();
    expect(user).toContain('DATA_SYNC_COMPLETED');
    stop();
    const result = await demo;
    expect(result.issuance.status).toBe('COMPLETED');
  }, 90_000);

  it('refuses demo --console with --json', async () => {
    const both = await runCli(['demo', '--console', '--json']);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('--console');
  });

  it('idsync wallet serve --console prints where and how to sign in, and serves until stopped', async () => {
    const dir = await tempDir();
    const out = capture();
    let stop!: () => void;
    try {
      const serving = serveWallet(
        { data: dir.file('wallet'), host: '127.0.0.1', port: '0', json: true, console: true },
        { io: out.io, output: (json) => createOutput(out.io, json), until: () => new Promise<void>((r) => (stop = r)) },
      );
      await out.seen(/"console":\{/);
      const started = JSON.parse(out.text().split('\n')[0]!) as { console: { url: string; accessCode: string } };
      expect(started.console.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console$/);
      const locked = await fetch(`${started.console.url}/overview`, { headers: { accept: 'text/html' } });
      expect(locked.status).toBe(401);
      const res = await fetch(`${started.console.url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ clientSecret: started.console.accessCode }), redirect: 'manual' });
      expect(res.status).toBe(303);
      stop();
      await serving;
      await expect(fetch(`${started.console.url}/login`)).rejects.toThrow();
    } finally {
      await dir.remove();
    }
  });
});
