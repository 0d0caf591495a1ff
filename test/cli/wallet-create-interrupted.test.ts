// `wallet create --mediator` stopped while the mediator keeps it waiting, as a user stops it: the
// CLI in a child process, a signal sent once the mediator has the request (never after a guessed
// delay), then the same command again in the same folder. Three mediators keep it waiting: one
// over HTTP that never answers the POST, one that answers 202 and never sends the grant, and one
// whose DID names only a WebSocket endpoint that takes the frame and never answers.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { createPeerDid } from '../../src/did/peer.js';
import { ERROR_LINE, ROOT, runCli, tempDir } from './run-cli.js';

/** The mediation timeout per coordinate-mediation version (wallet/mediation.ts): a stop must not wait for it. */
const MEDIATION_TIMEOUT_MS = 15_000;

let dir: Awaited<ReturnType<typeof tempDir>>;
let mediator: Server;
let accepting: Server;
let socketMediator: WebSocketServer;
let invitationUrl: string;
let acceptingDid: string;
let socketDid: string;
/** Resolvers of those waiting for a mediator's next request (HTTP) or frame (WebSocket). */
const waiting: Array<(what: string) => void> = [];
/** Requests the mediators hold, never answered, until the end. */
const held: IncomingMessage[] = [];
const sockets: WebSocket[] = [];

const listening = (server: Server) => new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));

beforeAll(async () => {
  dir = await tempDir();
  // A mediator that takes every request and answers none.
  mediator = createServer((req) => {
    held.push(req);
    waiting.shift()?.(`${req.method}`);
  });
  const port = await listening(mediator);
  const did = createPeerDid({ endpoint: `http://127.0.0.1:${port}/didcomm` }).did;
  const invitation = { type: 'https://didcomm.org/out-of-band/2.0/invitation', id: 'mediate-1', from: did, body: { goal_code: 'request-mediate', accept: ['didcomm/v2'] } };
  invitationUrl = `http://127.0.0.1:${port}/invitation?_oob=${Buffer.from(JSON.stringify(invitation)).toString('base64url')}`;
  // A mediator that takes each message (202) and never sends the grant.
  accepting = createServer((req, res) => {
    req.resume();
    // Told once the 202 is written: what follows is the wallet's wait for the grant.
    req.on('end', () => res.writeHead(202).end(() => waiting.shift()?.(`${req.method} 202`)));
  });
  acceptingDid = createPeerDid({ endpoint: `http://127.0.0.1:${await listening(accepting)}/didcomm` }).did;
  // A mediator reached over WebSocket only: the socket is accepted, its frames never answered.
  socketMediator = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => socketMediator.once('listening', () => r()));
  socketMediator.on('connection', (ws) => {
    sockets.push(ws);
    ws.on('message', () => waiting.shift()?.('frame'));
  });
  socketDid = createPeerDid({ endpoint: `ws://127.0.0.1:${(socketMediator.address() as AddressInfo).port}/didcomm` }).did;
});
afterAll(async () => {
  for (const req of held) req.socket.destroy();
  for (const ws of sockets) ws.terminate();
  await new Promise<void>((r) => mediator.close(() => r()));
  accepting.closeAllConnections();
  await new Promise<void>((r) => accepting.close(() => r()));
  await new Promise<void>((r) => socketMediator.close(() => r()));
  await dir.remove();
});

/** What the next mediator to be reached got: the HTTP method (and the 202 answered), or 'frame'. */
const nextRequest = () => new Promise<string>((r) => waiting.push(r));

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** From the signal sent to the process's end. */
  stoppedInMs: number;
}

/**
 * `idsync wallet create --data <data> --mediator <the invitation, or the DID given>`, sent `signal`
 * once the mediator has its request; `got` is what it got.
 */
async function createStoppedBy(data: string, signal: NodeJS.Signals, mediatorArg = invitationUrl, got = 'POST'): Promise<Ended> {
  const asked = nextRequest();
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'wallet', 'create', '--data', data, '--mediator', mediatorArg], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  let sentAt = 0;
  const ended = new Promise<Ended>((r) => child.on('close', (code, sig) => r({ code, signal: sig, stderr, stoppedInMs: performance.now() - sentAt })));
  expect(await asked).toBe(got);
  sentAt = performance.now();
  child.kill(signal);
  return ended;
}

/** A create stopped by Ctrl-C: the aborted line, exit 1, the folder gone, and no wait for the mediation timeout. */
function expectAborted(ended: Ended, data: string): void {
  expect(ended.signal).toBeNull();
  expect(ended.code).toBe(1);
  expect(ended.stderr).toMatch(ERROR_LINE);
  expect(ended.stderr).toMatch(/^idsync: aborted: wallet create stopped by SIGINT while it waited for the mediator: nothing is kept in /);
  expect(existsSync(data)).toBe(false);
  expect(ended.stoppedInMs).toBeLessThan(MEDIATION_TIMEOUT_MS / 2);
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

  it('Ctrl-C while a mediator that answered 202 has not sent the grant ends it at once, nothing kept', async () => {
    const data = dir.file('ctrl-c-202');
    // Before, the stop waited for the grant's timeout (15 s per version), and a second Ctrl-C
    // ended the process leaving the half-made wallet.
    expectAborted(await createStoppedBy(data, 'SIGINT', acceptingDid, 'POST 202'), data);
    expectAborted(await createStoppedBy(data, 'SIGINT', acceptingDid, 'POST 202'), data);
  }, 60_000);

  it('Ctrl-C while a mediator reached over WebSocket keeps the frame unanswered ends it at once, nothing kept', async () => {
    const data = dir.file('ctrl-c-ws');
    expectAborted(await createStoppedBy(data, 'SIGINT', socketDid, 'frame'), data);
    expectAborted(await createStoppedBy(data, 'SIGINT', socketDid, 'frame'), data);
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
