// DIDComm v2.1 §Transports (HTTPS): "HTTPS Redirects SHOULD be followed. Only temporary redirects
// (307) are acceptable." The harness, as a sender, follows a 307 with the same POST (up to
// MAX_REDIRECTS times) and judges the endpoint by the answer it reaches; another redirect is the
// advice rule transport.redirect-temporary, and what it redirected was not seen.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPeerDid } from '../../src/did/peer.js';
import { agentLink, MAX_REDIRECTS } from '../../src/harness/agent-link.js';
import type { ExchangedMessage } from '../../src/harness/types.js';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runConformance } from '../../src/harness/run.js';
import { runCli } from '../cli/run-cli.js';
import { startWrongAgent } from './wrong-agent.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** An endpoint: `answer` gets each POST's path and body and says what to answer. */
async function endpoint(answer: (path: string, body: string) => { status: number; headers?: Record<string, string> }): Promise<{ url: string; posts: { path: string; body: string }[] }> {
  const posts: { path: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      posts.push({ path: req.url ?? '', body });
      const a = answer(req.url ?? '', body);
      res.writeHead(a.status, a.headers ?? {}).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, posts };
}

const entry = (): ExchangedMessage => ({ seq: 1, direction: 'sent', atMs: 0, via: 'http-post', mode: 'unreadable' }) as ExchangedMessage;
const junkCase = async (did: string) => {
  const run = await runCli(['conformance', 'run', '--target', did, '--case', 'transport/junk', '--json', '--timeout', '1000']);
  const doc = JSON.parse(run.stdout) as { cases: { id: string; status: string; detail?: string; failedRules: string[]; advice?: string[] }[] };
  return doc.cases.find((c) => c.id === 'transport/junk')!;
};

describe('redirects of the agent under test', () => {
  it('follows a 307 with the same POST, and records where it went', async () => {
    const ep = await endpoint((path) => (path === '/didcomm' ? { status: 307, headers: { location: '/moved' } } : { status: 202 }));
    const e = entry();
    const link = agentLink({ endpoint: () => ({ uri: `${ep.url}/didcomm`, transport: 'http' }), unreachable: () => undefined, postTimeoutMs: 5000, maxAnswerBytes: 1024, take: async () => ({}) as never, onAnswered: () => undefined });
    const o = await link.send('{"a":1}', 'application/didcomm-encrypted+json', e);
    expect(o.status).toBe(202);
    expect(o.redirects).toEqual([{ status: 307, location: `${ep.url}/moved` }]);
    expect(ep.posts).toEqual([{ path: '/didcomm', body: '{"a":1}' }, { path: '/moved', body: '{"a":1}' }]);
    expect(e.note).toContain(`redirected (HTTP 307) to ${ep.url}/moved`);
  });

  it(`stops after ${MAX_REDIRECTS} redirects, and follows no other kind`, async () => {
    const loop = await endpoint(() => ({ status: 307, headers: { location: '/again' } }));
    const link = (uri: string) => agentLink({ endpoint: () => ({ uri, transport: 'http' }), unreachable: () => undefined, postTimeoutMs: 5000, maxAnswerBytes: 1024, take: async () => ({}) as never, onAnswered: () => undefined });
    const o = await link(`${loop.url}/didcomm`).send('x', 'text/plain', entry());
    expect(o.status).toBe(307);
    expect(o.redirects).toHaveLength(MAX_REDIRECTS);
    expect(loop.posts).toHaveLength(MAX_REDIRECTS + 1);
    for (const status of [301, 302, 303, 308]) {
      const moved = await endpoint(() => ({ status, headers: { location: '/elsewhere' } }));
      const r = await link(`${moved.url}/didcomm`).send('x', 'text/plain', entry());
      expect(r, String(status)).toMatchObject({ status, location: `${moved.url}/elsewhere` });
      expect(r.redirects).toBeUndefined();
      expect(moved.posts).toHaveLength(1);
    }
  });

  it('judges junk by the answer a 307 leads to', async () => {
    const ep = await endpoint((path) => (path === '/didcomm' ? { status: 307, headers: { location: '/real' } } : { status: 400 }));
    const c = await junkCase(createPeerDid({ endpoint: `${ep.url}/didcomm` }).did);
    expect(c.status).toBe('passed');
    expect(ep.posts.filter((p) => p.path === '/real')).toHaveLength(3);
  });

  it('gives advice on a permanent redirect, and leaves the junk case inconclusive: the endpoint\'s answer was not seen', async () => {
    const ep = await endpoint(() => ({ status: 308, headers: { location: '/new-home' } }));
    const c = await junkCase(createPeerDid({ endpoint: `${ep.url}/didcomm` }).did);
    expect(c.status).toBe('inconclusive');
    expect(c.detail).toMatch(/redirected instead of answering \(not JSON: HTTP 308/);
    expect(c.advice).toEqual(['transport.redirect-temporary']);
    expect(c.failedRules).toEqual([]);
    // Each POST once: a 308 is not followed.
    expect(ep.posts.map((p) => p.path)).toEqual(['/didcomm', '/didcomm', '/didcomm']);
  });

  describe('transport/redirect-followed: the agent as a sender', () => {
    const runCase = async (faults: Parameters<typeof startWrongAgent>[0]) => {
      const agent = await startWrongAgent(faults);
      cleanup.push(() => agent.close());
      const report = await runConformance({ target: agent.did, resolve: documentResolver(createResolver({})), cases: ['transport/redirect-followed'], timeoutMs: 1500 });
      return report.cases.find((c) => c.id === 'transport/redirect-followed')!;
    };

    it('passes an agent whose POST answered 307 comes again, the same bytes, at the Location (fetch follows a 307 keeping method and body)', async () => {
      const c = await runCase([]);
      expect(c).toMatchObject({ status: 'passed', failedRules: [], warnings: [] });
      const redirected = c.messages.find((m) => m.httpStatus === 307)!;
      expect(redirected).toMatchObject({ direction: 'received', via: 'endpoint', type: 'https://didcomm.org/trust-ping/2.0/ping-response' });
      expect(redirected.note).toMatch(/^answered 307 Temporary Redirect to http:\/\/127\.0\.0\.1:\d+\/didcomm\/moved\//);
      // The same message, read once: when it came again at the Location.
      expect(c.messages.filter((m) => m.direction === 'received' && m.id === redirected.id && m.httpStatus === undefined)).toHaveLength(1);
    });

    it('warns on an agent that does not follow it: "HTTPS Redirects SHOULD be followed"', async () => {
      const c = await runCase(['no-redirects']);
      expect(c).toMatchObject({ status: 'passed', failedRules: [], warnings: ['transport.redirect-followed'] });
      expect(c.broken[0]!.detail).toMatch(/^the POST answered 307 did not come again at http:\/\/127\.0\.0\.1:\d+\/didcomm\/moved\/\S+ within 1500 ms$/);
    });
  });
});
