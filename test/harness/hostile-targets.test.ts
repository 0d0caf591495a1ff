// What `conformance run` meets in agents that misbehave on the wire: a WebSocket answer larger
// than any answer to one message, a short invitation URL whose body breaks off, and a target DID
// that does not resolve (the report says why), and a WebSocket closed on every message received:
// by a peer, and by a holder or a prover that accepted idsync's invitation.
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { agentLink } from '../../src/harness/agent-link.js';
import { readInvitation, runConformance } from '../../src/harness/run.js';
import type { ExchangedMessage } from '../../src/harness/types.js';
import { createResolver, documentResolver, failuresOf, resolutionFailure } from '../../src/did/resolver.js';
import { createPeerDid } from '../../src/did/peer.js';
import type { CreatedDid } from '../../src/did/types.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import { MEDIA_TYPES } from '../../src/didcomm/types.js';
import { systemClock } from '../../src/clock.js';
import { buildProposeCredential } from '../../src/protocols/issue-credential.js';
import { buildProposePresentation } from '../../src/protocols/present-proof.js';
import { runCli } from '../cli/run-cli.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/**
 * A did:peer:2 whose only DIDComm endpoint is a WebSocket that closes with 1008 (RFC 6455 §7.4.1:
 * a message that violates its policy; the reason is the agent's) on every message it receives.
 */
async function closingAgent(): Promise<CreatedDid> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  cleanup.push(() => new Promise((r) => wss.close(r)));
  wss.on('connection', (s) => s.on('message', () => s.close(1008, 'not today')));
  return createPeerDid({ endpoint: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}` });
}

/** Accepts idsync's invitation (at `url`) as `agent`: an authcrypted propose POSTed to the harness's endpoint. */
async function accept(url: string, agent: CreatedDid, build: typeof buildProposeCredential): Promise<void> {
  const invitation = JSON.parse(Buffer.from(new URL(url).searchParams.get('_oob')!, 'base64url').toString('utf8')) as { id: string; from: string };
  const propose = build({ id: randomUUID(), from: agent.did, to: invitation.from, pthid: invitation.id }, { clock: systemClock });
  const ctx = { resolve: documentResolver(createResolver({})), secrets: memorySecrets(agent.secrets), engine: 'native' as const };
  const { packed } = await pack(propose, { mode: 'authcrypt', to: invitation.from, from: agent.did }, ctx);
  await fetch(`${new URL(url).origin}/didcomm`, { method: 'POST', headers: { 'content-type': MEDIA_TYPES.encrypted }, body: packed });
}

const entry = (): ExchangedMessage => ({ seq: 1, direction: 'sent', atMs: 0, via: 'http-post', mode: 'unreadable' }) as ExchangedMessage;

describe('conformance run against hostile targets', () => {
  it('does not take a WebSocket frame larger than an answer may be: the socket is closed instead', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(wss, 'listening');
    cleanup.push(() => new Promise((r) => wss.close(r)));
    const closedWith: number[] = [];
    wss.on('connection', (s) => {
      s.on('close', (code) => closedWith.push(code));
      s.on('message', () => s.send('x'.repeat(2 * 1024 * 1024)));
    });
    const taken: string[] = [];
    const link = agentLink({
      endpoint: () => ({ uri: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, transport: 'ws' }),
      unreachable: () => undefined,
      postTimeoutMs: 5000,
      maxAnswerBytes: 1024 * 1024,
      take: async (text) => {
        taken.push(text);
        return {} as never;
      },
      onAnswered: () => undefined,
    });
    cleanup.push(async () => link.close());
    await link.send('{"id":"1"}', 'application/didcomm-plain+json', entry());
    const deadline = Date.now() + 5000;
    while (closedWith.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // RFC 6455 §7.4.1: 1009, "a message that is too big for it to process".
    expect(closedWith).toEqual([1009]);
    expect(taken).toEqual([]);
  });

  it('says transport_unreachable when a short invitation URL answer breaks off mid-body', async () => {
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"type":"https://didcomm.org/out-of-band/2.0/invitation"');
      setTimeout(() => res.destroy(), 20);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push(() => new Promise((r) => server.close(r)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/?_oobid=abc`;
    await expect(readInvitation(url)).rejects.toMatchObject({ code: 'transport_unreachable' });
  });

  it('does not pass transport/junk on an endpoint that only redirects: it was not seen, so inconclusive', async () => {
    // §Transports HTTPS: "HTTPS Redirects SHOULD be followed. Only temporary redirects (307) are acceptable."
    const server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(307, { location: '/didcomm' }).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push(() => new Promise((r) => server.close(r)));
    const target = createPeerDid({ endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/didcomm` });
    const run = await runCli(['conformance', 'run', '--target', target.did, '--case', 'transport/junk', '--json', '--timeout', '1000']);
    const doc = JSON.parse(run.stdout) as { cases: { id: string; status: string; detail?: string }[] };
    expect(doc.cases.find((c) => c.id === 'transport/junk')).toMatchObject({ status: 'inconclusive', detail: expect.stringMatching(/redirected instead of answering \(not JSON: HTTP 307/) });
  });

  it('names why the target DID did not resolve', async () => {
    const resolve = documentResolver(createResolver({}));
    const wrapped = failuresOf(async (did: string) => resolve(did), resolve);
    expect(await wrapped('did:web:127.0.0.1%3A1')).toBeNull();
    expect(resolutionFailure(wrapped, 'did:web:127.0.0.1%3A1')).toMatch(/^notFound: .*127\.0\.0\.1:1/);
    const run = await runCli(['conformance', 'run', '--target', 'did:web:127.0.0.1%3A1']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/cannot resolve the target did:web:127\.0\.0\.1%3A1 \(notFound: could not fetch http:\/\/127\.0\.0\.1:1\/\.well-known\/did\.json/);
  });

  it('stops waiting for an answer once the target closes the WebSocket the request went on, and names the close code', async () => {
    const target = await closingAgent();
    const started = Date.now();
    const run = (cases: string[]) => runConformance({ target: target.did, resolve: documentResolver(createResolver({})), transport: 'ws', timeoutMs: 20_000, cases });
    const report = await run(['trust-ping/response']);
    // The wait ended at the close, not at its 20 s timeout.
    expect(Date.now() - started).toBeLessThan(5000);
    const ping = report.cases.find((c) => c.id === 'trust-ping/response')!;
    expect(ping).toMatchObject({ status: 'inconclusive', detail: expect.stringMatching(/^no ping-response: the target closed the socket \(code 1008: not today\) after our message \(#\d+\)$/) });
    expect(ping.messages.find((m) => m.direction === 'sent')?.note).toMatch(/the target closed the WebSocket \(code 1008: not today\) before answering/);
    // A silence the case judges is judged as before (no problem report: advice broken), and says why.
    const again = Date.now();
    const unknown = (await run(['report-problem/unknown-type'])).cases.find((c) => c.id === 'report-problem/unknown-type')!;
    expect(Date.now() - again).toBeLessThan(5000);
    expect(unknown.advice).toEqual(['report-problem.reply']);
    expect(unknown.broken[0]!.detail).toMatch(/no problem report came: the target closed the socket \(code 1008: not today\) after our message/);
  }, 30_000);

  it('transport/redirect-followed stops waiting for the POST to redirect once the target closes the socket the ping went on', async () => {
    const target = await closingAgent();
    const started = Date.now();
    const report = await runConformance({ target: target.did, resolve: documentResolver(createResolver({})), transport: 'ws', timeoutMs: 20_000, cases: ['transport/redirect-followed'] });
    // The ping's answer is the POST to redirect: with the socket closed none comes, and the wait ends there.
    expect(Date.now() - started).toBeLessThan(5000);
    const c = report.cases.find((x) => x.id === 'transport/redirect-followed')!;
    expect(c).toMatchObject({ status: 'inconclusive', detail: expect.stringMatching(/^no POST from the agent: the target closed the socket \(code 1008: not today\) after our message \(#\d+\); nothing was redirected$/) });
    expect(c.messages.find((m) => m.direction === 'sent')?.note).toMatch(/the target closed the WebSocket \(code 1008: not today\) before answering/);
  }, 30_000);

  it.each([
    ['holder', buildProposeCredential, 'request-credential'],
    ['prover', buildProposePresentation, 'presentation'],
  ] as const)('--role %s: once the agent accepted, the wait for its answer ends when it closes the socket idsync answered it on', async (role, build, awaited) => {
    // Before the agent accepts, idsync has no socket to it: the propose comes by POST to idsync's
    // HTTP endpoint. idsync's answer goes to the agent's WebSocket endpoint (--transport ws).
    const agent = await closingAgent();
    const started = Date.now();
    const report = await runConformance({
      role, resolve: documentResolver(createResolver({})), transport: 'ws', timeoutMs: 20_000, acceptTimeoutMs: 20_000,
      onInvitation: (url) => void accept(url, agent, build).catch(() => {}),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(report.target).toBe(agent.did);
    const c = report.cases[0]!;
    expect(c).toMatchObject({ status: 'inconclusive', failedRules: [], detail: `no ${awaited}: the target closed the socket (code 1008: not today) after our message (#2)` });
    expect(c.messages.find((m) => m.direction === 'sent')?.note).toMatch(/the target closed the WebSocket \(code 1008: not today\) before answering/);
  }, 30_000);
});
