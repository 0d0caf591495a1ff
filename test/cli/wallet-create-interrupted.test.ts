// `wallet create --mediator` stopped while the mediator keeps it waiting, as a user stops it: the
// CLI in a child process, a signal sent once the mediator has the request (never after a guessed
// delay), then the same command again in the same folder.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeerDid } from '../../src/did/peer.js';
import { ERROR_LINE, ROOT, runCli, tempDir } from './run-cli.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let mediator: Server;
let invitationUrl: string;
/** Resolvers of those waiting for the mediator's next request. */
const waiting: Array<(req: IncomingMessage) => void> = [];
/** Requests the mediator holds, never answered, until the end. */
const held: IncomingMessage[] = [];

beforeAll(async () => {
  dir = await tempDir();
  // A mediator that takes every request and answers none.
  mediator = createServer((req) => {
    held.push(req);
    waiting.shift()?.(req);
  });
  await new Promise<void>((r) => mediator.listen(0, '127.0.0.1', r));
  const { port } = mediator.address() as AddressInfo;
  const did = createPeerDid({ endpoint: `http://127.0.0.1:${port}/didcomm` }).did;
  const invitation = { type: 'https://didcomm.org/out-of-band/2.0/invitation', id: 'mediate-1', from: did, body: { goal_code: 'request-mediate', accept: ['didcomm/v2'] } };
  invitationUrl = `http://127.0.0.1:${port}/invitation?_oob=${Buffer.from(JSON.stringify(invitation)).toString('base64url')}`;
});
afterAll(async () => {
  for (const req of held) req.socket.destroy();
  await new Promise<void>((r) => mediator.close(() => r()));
  await dir.remove();
});

const nextRequest = () => new Promise<IncomingMessage>((r) => waiting.push(r));

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** `idsync wallet create --data <data> --mediator <the invitation>`, sent `signal` once the mediator has its request. */
async function createStoppedBy(data: string, signal: NodeJS.Signals): Promise<Ended> {
  const asked = nextRequest();
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'wallet', 'create', '--data', data, '--mediator', invitationUrl], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const ended = new Promise<Ended>((r) => child.on('close', (code, sig) => r({ code, signal: sig, stderr })));
  const req = await asked;
  expect(req.method).toBe('POST');
  child.kill(signal);
  return ended;
}

describe('wallet create stopped while the mediator does not answer', () => {
  it('Ctrl-C ends it as a failure does: one line, exit 1, nothing kept, and the same command starts over', async () => {
    const data = dir.file('ctrl-c');
    const first = await createStoppedBy(data, 'SIGINT');
    // Before, SIGINT ended the process at once (no line, killed by the signal) and left the
    // wallet's DID in the folder without its mediation, which the next create called wallet_exists.
    expect(first.signal).toBeNull();
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(ERROR_LINE);
    expect(first.stderr).toMatch(/^idsync: aborted: wallet create stopped by SIGINT while it waited for the mediator: nothing is kept in /);
    expect(existsSync(data)).toBe(false);
    // The same command again reaches the mediator again: it started over, not wallet_exists.
    const again = await createStoppedBy(data, 'SIGINT');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^idsync: aborted: /);
    expect(existsSync(data)).toBe(false);
  }, 60_000);

  it('a create killed there leaves a wallet whose next create says what it is and what finishes or removes it', async () => {
    const data = dir.file('killed');
    const killed = await createStoppedBy(data, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const run = await runCli(['wallet', 'create', '--data', data, '--mediator', invitationUrl]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toContain('made for a mediator that has not granted mediation yet');
    expect(run.stderr).toContain(`idsync wallet serve --data ${data} finishes it once that mediator answers`);
    expect(run.stderr).toContain(`or remove ${join(data, 'store')} and create it again`);
  }, 60_000);
});
