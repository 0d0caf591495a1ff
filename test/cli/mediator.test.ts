// `idsync mediator`: the banner (DID, invitation URL, then the listening line) or one JSON line,
// the invitation it serves, flags turned into the mediator's policy, a stop that closes cleanly
// and keeps the data folder, and usage errors as one line with exit status 2.
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { policyOptions, runMediator } from '../../src/cli/commands/mediator.js';
import type { CliIo } from '../../src/cli/output.js';
import type { RunningMediator } from '../../src/mediator/server.js';
import { runCli, tempDir } from './run-cli.js';

let dir: Awaited<ReturnType<typeof tempDir>> | undefined;
afterAll(async () => dir?.remove());

function io(): CliIo & { out: string } {
  const o = { out: '', stdout: (t: string) => void (o.out += t), stderr: () => {}, readStdin: async () => '' };
  return o;
}

async function running(args: Parameters<typeof runMediator>[0]): Promise<{ m: RunningMediator; stop: () => Promise<void>; out: () => string }> {
  const captured = io();
  let stop!: () => void;
  const until = new Promise<void>((resolve) => (stop = resolve));
  let ready!: (m: RunningMediator) => void;
  const started = new Promise<RunningMediator>((resolve) => (ready = resolve));
  const done = runMediator(args, { io: captured, until, onMediator: ready });
  const m = await Promise.race([started, done.then(() => Promise.reject(new Error('the mediator stopped before listening')))]);
  return { m, out: () => captured.out, stop: async () => (stop(), await done) };
}

describe('idsync mediator', () => {
  it('prints its DID, its invitation URL and then where it listens; serves the invitation; stops on the signal', async () => {
    dir = await tempDir();
    const { m, out, stop } = await running({ port: '0', host: '127.0.0.1', data: dir.file('m') });
    const lines = out().trim().split('\n');
    expect(lines[0]).toBe(`DID ${m.did}`);
    expect(lines.at(-1)).toBe(`idsync mediator listening on ${m.url}`);
    expect(out()).toContain(m.invitationUrl);
    const invitation = (await (await fetch(`${m.url}/invitation`)).json()) as { id: string; from: string; body: { goal_code: string } };
    expect(invitation).toMatchObject({ from: m.did, body: { goal_code: 'request-mediate' } });
    // The URL form answers with the same invitation.
    expect(await (await fetch(m.invitationUrl)).json()).toEqual(invitation);
    // And so does the short form printed first: §Short URL Message Retrieval, `_oobid` the invitation's id.
    expect(lines[1]).toBe(`invitation to mediate: ${m.shortInvitationUrl}`);
    expect(m.shortInvitationUrl).toBe(`${m.publicUrl}/invitation?_oobid=${invitation.id}`);
    expect(await (await fetch(m.shortInvitationUrl)).json()).toEqual(invitation);
    // Opened in a browser, either URL is a page for a person: the short URL as a QR code and as
    // text, the full one (DIDComm v2.1 §Standard Message Encoding: "human readable instructions").
    const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    for (const url of [m.shortInvitationUrl, m.invitationUrl]) {
      const page = await fetch(url, { headers: { accept: BROWSER } });
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await page.text();
      expect(html).toContain('<h1>Invitation to mediate</h1>');
      expect(html).toContain('<svg');
      expect(html).toContain(`<code id="invitation-url">${m.shortInvitationUrl}</code>`);
      expect(html).toContain(m.invitationUrl);
    }
    // What a wallet resolving the short URL asks for is the JSON.
    expect(await (await fetch(m.shortInvitationUrl, { headers: { accept: 'application/json, text/plain;q=0.5, */*;q=0.1' } })).json()).toEqual(invitation);
    // A short URL for an invitation this mediator did not make is not here.
    const other = await fetch(`${m.url}/invitation?_oobid=someone-else`);
    expect(other.status).toBe(404);
    expect(((await other.json()) as { code: string }).code).toBe('not_found');
    // Nor is a full URL holding another invitation, or none: it is not shown as this mediator's.
    const foreign = Buffer.from(JSON.stringify({ ...invitation, id: 'another-one' })).toString('base64url');
    for (const oob of [foreign, 'not-base64-json', '']) {
      const res = await fetch(`${m.url}/invitation?_oob=${oob}`);
      expect(res.status, oob).toBe(404);
      const body = (await res.json()) as { code: string; title: string; detail: string };
      // RFC 9457 §4.2.1: with type about:blank the title is the status phrase; the specifics are the detail.
      expect(body.title).toBe('Not Found');
      expect(body.detail).toContain(m.shortInvitationUrl);
    }
    // A person who opened such a URL gets a page saying so, with the URL that works.
    const page = await fetch(`${m.url}/invitation?_oobid=someone-else`, { headers: { accept: BROWSER } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<h1>This mediator has no such invitation</h1>');
    expect(html).toContain(`give a wallet ${m.shortInvitationUrl}`);
    expect(html).toContain('<code id="code">not_found</code>');
    await stop();
    expect(out().trim().split('\n').at(-1)).toBe('idsync mediator stopping');
  });

  it('keeps its invitation across restarts: the URLs it printed still work; another public URL gets another', async () => {
    dir ??= await tempDir();
    const data = dir.file('kept');
    const first = await running({ port: '0', host: '127.0.0.1', data, publicUrl: 'http://127.0.0.1:18999' });
    const { shortInvitationUrl, invitationUrl, did } = first.m;
    await first.stop();
    const again = await running({ port: '0', host: '127.0.0.1', data, publicUrl: 'http://127.0.0.1:18999' });
    expect(again.m.did).toBe(did);
    expect(again.m.shortInvitationUrl).toBe(shortInvitationUrl);
    expect(again.m.invitationUrl).toBe(invitationUrl);
    const oobid = new URL(shortInvitationUrl).searchParams.get('_oobid');
    expect(((await (await fetch(`${again.m.url}/invitation?_oobid=${oobid}`)).json()) as { id: string }).id).toBe(oobid);
    await again.stop();
    const moved = await running({ port: '0', host: '127.0.0.1', data, publicUrl: 'http://127.0.0.1:18998' });
    expect(moved.m.did).not.toBe(did);
    expect(moved.m.shortInvitationUrl).not.toBe(shortInvitationUrl.replace('18999', '18998'));
    expect(((await (await fetch(`${moved.m.url}/invitation`)).json()) as { from: string }).from).toBe(moved.m.did);
    await moved.stop();
  });

  it('with --json prints exactly one JSON line', async () => {
    dir ??= await tempDir();
    const { m, out, stop } = await running({ port: '0', host: '127.0.0.1', data: dir.file('j'), json: true });
    await stop();
    expect(out().trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(out())).toEqual({ listening: m.url, publicUrl: m.publicUrl, did: m.did, invitationUrl: m.invitationUrl, shortInvitationUrl: m.shortInvitationUrl, data: dir.file('j') });
  });

  it('with --console serves its web console on a port of its own and prints the URL and access code once', async () => {
    dir ??= await tempDir();
    const human = await running({ port: '0', host: '127.0.0.1', data: dir.file('c'), console: true });
    const line = human.out().split('\n').find((l) => l.startsWith('console '));
    const [, url, code] = /^console (http:\/\/127\.0\.0\.1:\d+\/console) \(access code (\S+); it is shown only here\)$/.exec(line ?? '') ?? [];
    expect(url, human.out()).toBeDefined();
    const overview = await fetch(`${url}/overview?fragment=1`, { headers: { authorization: `Bearer ${code}` } });
    expect(overview.status).toBe(200);
    expect(await overview.text()).toContain(human.m.shortInvitationUrl);
    expect((await fetch(`${url}/overview?fragment=1`)).status).toBe(401);
    await human.stop();
    // Stopped with the mediator.
    await expect(fetch(`${url}/overview`)).rejects.toThrow();

    const json = await running({ port: '0', host: '127.0.0.1', data: dir.file('c'), console: true, json: true });
    await json.stop();
    expect(JSON.parse(json.out()).console).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/console$/), accessCode: expect.any(String) });
  });

  it('turns --deny, --max-keys, --max-queue, --max-message-bytes, --max-delay and --forward-onwards into the policy', () => {
    expect(policyOptions({ port: '0', host: 'h', data: 'd', deny: ['did:key:*'], maxKeys: '3', maxQueue: '5', maxMessageBytes: '4096', maxDelay: '10m', forwardOnwards: true })).toEqual({
      deny: ['did:key:*'],
      maxKeys: 3,
      maxQueue: 5,
      maxMessageBytes: 4096,
      maxDelayMs: 600_000,
      onwards: true,
    });
  });

  it('refuses bad flags with one line and exit status 2', async () => {
    for (const [flag, value] of [['--max-keys', '-1'], ['--max-queue', '0'], ['--max-message-bytes', 'lots'], ['--max-delay', 'soon'], ['--port', '70000'], ['--public-url', 'not a url'], ['--console-port', '5000']]) {
      const run = await runCli(['mediator', flag, value, '--data', '/nonexistent/never-created']);
      expect(run.code, `${flag} ${value}`).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^idsync: invalid_argument: /);
    }
  });

  it.skipIf(!existsSync('/proc/self'))('refuses a --data folder that cannot be made, at once (under /proc a recursive mkdir never returns)', async () => {
    for (const command of ['mediator', 'service']) {
      const run = await runCli([command, '--port', '0', '--data', '/proc/idsync-no-such/data']);
      expect(run.code, command).toBe(1);
      expect(run.stderr.trim().split('\n'), command).toHaveLength(1);
      expect(run.stderr, command).toMatch(/^idsync: folder_unusable: cannot use the folder \/proc\/idsync-no-such\/data: .*ENOENT/);
    }
  });
});

