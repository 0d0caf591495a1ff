// The wallet commands meeting what goes wrong on a user's machine: an inviter that cannot be
// reached by a wallet with nothing else open, options that only look right, a serve.json left by
// a `wallet serve` killed with -9 whose port another program now holds.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeerDid } from '../../src/did/peer.js';
import { ERROR_LINE, runCli, tempDir } from './run-cli.js';

let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  dir = await tempDir();
  expect((await runCli(['wallet', 'create', '--data', dir.file('w')])).code).toBe(0);
});
afterAll(() => dir.remove());

const b64u = (s: string) => Buffer.from(s).toString('base64url');

describe('wallet commands and what goes wrong around them', () => {
  it('accept waits out --timeout and says so when the inviter cannot be reached, with nothing else keeping the process alive', async () => {
    // Nothing listens on port 1; the wallet has no endpoint of its own to listen on.
    const inviter = createPeerDid({ endpoint: 'http://127.0.0.1:1/didcomm' });
    const url = `http://x/?_oob=${b64u(JSON.stringify({ type: 'https://didcomm.org/out-of-band/2.0/invitation', id: 'dead-1', from: inviter.did, body: { goal_code: 'idsync.data-pipe', accept: ['didcomm/v2'] } }))}`;
    const started = Date.now();
    const run = await runCli(['wallet', 'accept', url, '--data', dir.file('w'), '--timeout', '2', '--json'], { process: true });
    // Node ended such a run at once with exit 13 (an unsettled top-level await) and printed nothing.
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toMatch(/^idsync: timeout: /);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  }, 30_000);

  it('create refuses an endpoint that is no URL, and an empty --mediator, as usage errors', async () => {
    for (const endpoint of ['http://127.0.0.1:99999/x', 'http://[::1', 'http://a b/x', 'http://x:-1/', 'ftp://x/']) {
      const run = await runCli(['wallet', 'create', '--data', dir.file(`e-${endpoint.length}`), '--endpoint', endpoint]);
      expect(run.code, endpoint).toBe(2);
      expect(run.stderr, endpoint).toMatch(/^idsync: invalid_argument: --endpoint /);
    }
    const empty = await runCli(['wallet', 'create', '--data', dir.file('m'), '--mediator', '']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^idsync: invalid_argument: --mediator is empty/);
  });

  it("a URL that holds no invitation (a mediator's base URL) is a usage error that says what to give instead, and no folder is made", async () => {
    const base = 'http://127.0.0.1:1';
    const made = dir.file('base-url');
    const create = await runCli(['wallet', 'create', '--data', made, '--mediator', base]);
    expect(create.code).toBe(2);
    expect(create.stderr).toMatch(ERROR_LINE);
    expect(create.stderr).toMatch(/^idsync: invalid_invitation: --mediator http:\/\/127\.0\.0\.1:1 holds no invitation \(the URL has neither _oob nor _oobid\): give the mediator's invitation URL, which `idsync mediator` prints when it starts .*, or its DID/);
    expect(existsSync(made)).toBe(false);
    for (const url of [base, `${base}/invitation?_oob=xx`, 'not a url']) {
      const accept = await runCli(['wallet', 'accept', url, '--data', dir.file('w')]);
      expect(accept.code, url).toBe(2);
      expect(accept.stderr, url).toMatch(ERROR_LINE);
      expect(accept.stderr, url).toMatch(/^idsync: invalid_invitation: .* holds no invitation \(.*\): give the invitation URL as the inviter sent it/);
    }
  });

  it('a --mediator DID that is malformed or of a method idsync does not resolve is a usage error, not a mediator that granted nothing', async () => {
    for (const did of ['did:peer:2.garbage', 'did:foo:bar']) {
      const made = dir.file(`bad-did-${did.length}`);
      const run = await runCli(['wallet', 'create', '--data', made, '--mediator', did]);
      expect(run.code, did).toBe(2);
      expect(run.stderr, did).toMatch(ERROR_LINE);
      expect(run.stderr, did).toMatch(new RegExp(`^idsync: invalid_did: --mediator ${did} is not a DID idsync can use \\(.+\\): give the mediator's DID as \`idsync mediator\` prints it, or its invitation URL`));
      expect(existsSync(made), did).toBe(false);
    }
  });

  it('--data naming a file, a path through one, or a LevelDB folder itself is a usage error that says which, and nothing is made', async () => {
    const file = dir.file('a-file');
    await writeFile(file, 'not a folder\n');
    const store = join(dir.file('w'), 'store');
    const cases: Array<[string[], RegExp]> = [
      [['wallet', 'create', '--data', file], /is a file, not a folder/],
      [['wallet', 'pickup', '--data', file], /is a file, not a folder/],
      [['wallet', 'status', '--data', file], /is a file, not a folder/],
      [['wallet', 'create', '--data', join(file, 'w')], /goes through .*a-file, a file, not a folder/],
      // A wallet's own store given for the wallet: create made a second wallet inside it.
      [['wallet', 'create', '--data', store], /is a LevelDB folder itself, not a wallet's folder .*: give the folder that holds it, .*\bw$/],
      [['wallet', 'credentials', '--data', store], /is a LevelDB folder itself/],
    ];
    for (const [args, line] of cases) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(ERROR_LINE);
      expect(run.stderr, args.join(' ')).toMatch(/^idsync: invalid_argument: --data /);
      expect(run.stderr.trim(), args.join(' ')).toMatch(line);
    }
    expect(await readdir(store)).not.toContain('store');
  });

  it('pickup from a service URL where nothing listens names the unreachable host, not an unresolved DID', async () => {
    const run = await runCli(['wallet', 'pickup', '--data', dir.file('w'), '--from', 'http://127.0.0.1:1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^idsync: transport_unreachable: cannot reach http:\/\/127\.0\.0\.1:1\/\.well-known\/did\.json \(.*\): the peer.s DID did:web:127\.0\.0\.1%3A1 did not resolve/);
  });

  it('create that fails behind a mediator leaves no folder it made, and keeps one that was there', async () => {
    // A mediator whose endpoint refuses connections: mediation fails after the store was opened.
    const mediator = createPeerDid({ endpoint: 'http://127.0.0.1:1/didcomm' }).did;
    const made = dir.file('no-oob');
    const run = await runCli(['wallet', 'create', '--data', made, '--mediator', mediator]);
    expect(run.code).toBe(1);
    // Nothing reached the mediator: the line must not say it refused.
    expect(run.stderr).toMatch(/^idsync: mediation_failed: the mediator did:peer:2\S+ could not be asked for mediation: cannot reach /);
    expect(existsSync(made)).toBe(false);
    const there = dir.file('there');
    await mkdir(there);
    expect((await runCli(['wallet', 'create', '--data', there, '--mediator', mediator])).code).toBe(1);
    expect(existsSync(there)).toBe(true);
    expect(await readdir(there)).toEqual([]);
  });

  it('serve --host with a name that does not resolve is address_not_available, not an internal error', async () => {
    const run = await runCli(['wallet', 'serve', '--data', dir.file('w'), '--host', 'no-such-host.invalid', '--port', '0']);
    expect(run.stderr).toMatch(/^idsync: address_not_available: no-such-host\.invalid does not resolve/);
    expect(run.code).not.toBe(0);
  });

  describe('a serve.json left by a serve killed with -9', () => {
    let other: Server;
    let requests = 0;
    beforeAll(async () => {
      // Another program now holds the port the dead serve listened on, and answers HTML.
      other = createServer((req, res) => {
        requests++;
        req.resume();
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><p>not a wallet</p>');
      });
      await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    });
    afterAll(() => new Promise<void>((r) => other.close(() => r())));

    it('is stale: the commands open the store, and neither the token nor the invitation goes to that port', async () => {
      const dead = spawn(process.execPath, ['-e', '']);
      const pid = dead.pid!;
      await new Promise((r) => dead.on('exit', r));
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      await writeFile(join(dir.file('w'), 'serve.json'), JSON.stringify({ pid, url, token: 'secret-token' }), { mode: 0o600 });
      const run = await runCli(['wallet', 'credentials', '--data', dir.file('w'), '--json']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual([]);
      expect(requests).toBe(0);
    });

    it('is stale too when a live process answers there with something that is not a wallet serve', async () => {
      // Our own pid is alive: only the answer tells the file is stale.
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      await writeFile(join(dir.file('w'), 'serve.json'), JSON.stringify({ pid: process.pid, url, token: 'secret-token' }), { mode: 0o600 });
      const run = await runCli(['wallet', 'credentials', '--data', dir.file('w'), '--json']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual([]);
    });
  });
});
