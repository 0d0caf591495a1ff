// Conformance from the console, over the twin's socket: a run started from the page's form
// against the console's wallet and followed on its stream to its end; its report served under the
// console's CSP with its styles as a file, report.json and junit.xml to download; the history of
// runs and two of them compared; a bad target and a full queue refused as problem+json (a person
// sees it on the page); cancel; and every conformance URL closed without a session.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceConsole } from '../../src/console/index.js';
import { CONSOLE_CSP } from '../../src/console/security.js';
import { openStore } from '../../src/store/store.js';
import { startServiceTwin } from '../../src/testing/service-twin.js';
import type { ConformanceRunRecord } from '../../src/store/conformance-runs.js';
import { startWrongAgent, type WrongAgent } from '../harness/wrong-agent.js';
import { cookieOf, signIn, startConsoleBed, type ConsoleBed } from './helpers.js';

let c: ConsoleBed;
let wrong: WrongAgent;
let silent: WrongAgent;
beforeAll(async () => {
  c = await startConsoleBed({ testbed: { transport: 'http' } });
  [wrong, silent] = await Promise.all([startWrongAgent(['ping-thid']), startWrongAgent(['silent'])]);
}, 60_000);
afterAll(async () => {
  await c?.close();
  await wrong?.close();
  await silent?.close();
});

const ENDED = ['finished', 'cancelled', 'failed', 'interrupted'];
const form = (fields: Record<string, string>) => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
const json = (body: unknown) => ({ headers: { 'content-type': 'application/json', accept: 'application/json' }, payload: JSON.stringify(body) });

interface Session {
  url: string;
  app: FastifyInstance;
  cookie: string;
}

async function record(s: Session, id: string): Promise<ConformanceRunRecord> {
  return (await s.app.inject({ method: 'GET', url: `/console/conformance/runs/${id}`, headers: { accept: 'application/json', cookie: s.cookie } })).json().run;
}

/** The run's record once it has ended, read again each time its stream says it moved (no polling on a timer). */
async function untilEnded(id: string, s: Session = { url: c.bed.service.url, app: c.app, cookie: c.cookie }): Promise<ConformanceRunRecord> {
  const ctl = new AbortController();
  const guard = setTimeout(() => ctl.abort(), 60_000);
  try {
    const res = await fetch(`${s.url}/console/stream/conformance?run=${id}`, { headers: { accept: 'text/event-stream', cookie: s.cookie }, signal: ctl.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    for (;;) {
      const rec = await record(s, id);
      if (ENDED.includes(rec.state)) return rec;
      if ((await reader.read()).done) throw new Error('the stream ended before the run');
    }
  } finally {
    clearTimeout(guard);
    ctl.abort();
  }
}

let first: ConformanceRunRecord;

describe('conformance runs in the console', () => {
  it("starts a run against the console's wallet with one click and follows it to its end", async () => {
    const page = await c.call('GET', '/console/conformance');
    expect(page.body).toContain('data-quick="wallet"');
    expect(page.body).toContain('data-quick="service"');
    const res = await c.call('POST', '/console/conformance/runs', form({ quick: 'wallet' }));
    expect(res.statusCode).toBe(303);
    const id = /^\/console\/conformance\/runs\/([\w-]+)$/.exec(res.headers.location as string)![1]!;
    first = await untilEnded(id);
    expect(first).toMatchObject({ state: 'finished', exitCode: 0, target: c.bed.wallets[0]!.did, label: 'the console’s wallet', requestedBy: 'qa-client', hasReport: true });
    expect(first.summary).toMatchObject({ failed: 0, inconclusive: 0 });
    const run = await c.call('GET', res.headers.location as string);
    expect(run.body).toContain('data-case="trust-ping/response"');
    expect(run.body).toContain('<span class="status status-passed">passed</span>');
    expect(run.body).toContain('exit status 0');
    expect(run.body).toContain('id="open-report"');
    expect(run.body).not.toContain('id="cancel-run"');
  }, 60_000);

  it("serves the run's report under the console's CSP with its styles as a file, and its files to download", async () => {
    const base = `/console/conformance/runs/${first.id}`;
    const report = await c.call('GET', `${base}/report`);
    expect(report.statusCode).toBe(200);
    expect(report.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(report.headers['content-type']).toMatch(/^text\/html/);
    expect(report.body).toContain(`<link rel="stylesheet" href="${base}/report.css">`);
    expect(report.body).not.toMatch(/<style|<script|\sstyle="|\son[a-z]+="/);
    expect(report.body).toContain('<h1>idsync conformance report</h1>');
    expect(report.body).toContain(`<a href="${base}">`);
    const css = await c.call('GET', `${base}/report.css`);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.body).toContain('.msg:target{display:block}');

    const file = await c.call('GET', `${base}/report.json`);
    expect(file.headers['content-disposition']).toBe('attachment; filename="report.json"');
    const doc = JSON.parse(file.body);
    expect(doc.cases.map((x: { id: string }) => x.id)).toEqual(first.cases.map((x) => x.id));
    expect(doc.target).toBe(first.target);
    const junit = await c.call('GET', `${base}/junit.xml`);
    expect(junit.headers['content-disposition']).toBe('attachment; filename="junit.xml"');
    expect(junit.headers['content-type']).toMatch(/^application\/xml/);
    expect(junit.body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="idsync conformance /);
    expect(junit.body).toContain('failures="0"');
  });

  it('keeps the history, and compares two runs: what fails now that did not before, with its quoted sentence', async () => {
    // A script starts the second: JSON in, 202 and the run out.
    const res = await c.call('POST', '/console/conformance/runs', json({ target: wrong.did, suites: ['trust-ping'], timeoutMs: 2000 }));
    expect(res.statusCode).toBe(202);
    const second = await untilEnded(res.json().run.id);
    expect(res.headers.location).toBe(`/console/conformance/runs/${second.id}`);
    expect(second).toMatchObject({ state: 'finished', exitCode: 1 });
    const list = await c.call('GET', '/console/conformance');
    const order = [...list.body.matchAll(/<tr id="run-([\w-]+)">/g)].map((m) => m[1]);
    expect(order).toEqual([second.id, first.id]);
    expect(list.body).toContain('id="compare"');
    const cmp = await c.call('GET', `/console/conformance/compare?base=${first.id}&run=${second.id}`);
    expect(cmp.statusCode).toBe(200);
    const failing = cmp.body.slice(cmp.body.indexOf('<h2>Newly failing</h2>'), cmp.body.indexOf('<h2>Newly passing</h2>'));
    expect(failing).toContain('<code>trust-ping/response</code></td><td><code>trust-ping.response-thid</code>');
    expect(failing).toContain('<span class="verdict verdict-fail">fail</span>');
    expect(failing).toMatch(/<blockquote>All subsequent messages in a thread MUST include a `thid` header/);
    expect(failing).toContain('href="https://identity.foundation/didcomm-messaging/spec/v2.1/#threads"');
    // The cases only the first ran show as not run in the second.
    expect(cmp.body).toMatch(/<tr class="changed"><td><code>envelope\/authcrypt<\/code><\/td><td><span class="status status-passed">passed<\/span><\/td><td><span class="muted">not run<\/span>/);
    // The run page shows the rule broken with its quote too.
    const run = await c.call('GET', `/console/conformance/runs/${second.id}`);
    expect(run.body).toMatch(/<li><span class="verdict verdict-fail">fail<\/span> <code>trust-ping\.response-thid<\/code> <blockquote>All subsequent messages/);
  }, 60_000);

  it('refuses a bad target, and a run beyond the queue, as problem+json; a person reads why on the page', async () => {
    const bad = await c.call('POST', '/console/conformance/runs', json({ target: 'hello' }));
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(bad.json()).toMatchObject({ code: 'invalid_request', status: 400 });
    const badForm = await c.call('POST', '/console/conformance/runs', form({ target: 'hello' }));
    expect(badForm.statusCode).toBe(303);
    expect(badForm.headers.location).toMatch(/^\/console\/conformance\?failed=invalid_request/);
    expect((await c.call('GET', badForm.headers.location as string)).body).toContain('the target must be a DID or an out-of-band invitation URL');

    const slow = { target: silent.did, suites: ['trust-ping'], timeoutMs: 1000 };
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await c.call('POST', '/console/conformance/runs', json(slow))).json().run.id);
    const refused = await c.call('POST', '/console/conformance/runs', json(slow));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json()).toMatchObject({ code: 'conformance_busy', status: 429, title: 'Too many conformance runs' });
    const refusedForm = await c.call('POST', '/console/conformance/runs', form({ target: silent.did }));
    expect(refusedForm.headers.location).toMatch(/failed=conformance_busy/);

    // Cancelled from the last queued to the running one: each recorded as such.
    for (const id of [...ids].reverse()) expect((await c.call('POST', `/console/conformance/runs/${id}/cancel`, json({}))).statusCode).toBe(202);
    for (const id of ids) expect((await untilEnded(id)).state).toBe('cancelled');
    const page = await c.call('GET', `/console/conformance/runs/${ids[2]}`);
    expect(page.body).toContain('data-state="cancelled"');
    expect((await c.call('GET', `/console/conformance/runs/${ids[2]}/report`)).statusCode).toBe(409);
    expect((await c.call('GET', '/console/conformance/runs/no-such-run')).statusCode).toBe(404);
    expect((await c.call('POST', `/console/conformance/runs/${ids[2]}/cancel`, json({}))).statusCode).toBe(409);
  }, 60_000);

  it('shows nothing of runs without a session', async () => {
    const base = `/console/conformance/runs/${first.id}`;
    for (const url of ['/console/conformance', base, `${base}/report`, `${base}/report.css`, `${base}/report.json`, `${base}/junit.xml`, `/console/conformance/compare?base=${first.id}&run=${first.id}`, '/console/stream/conformance']) {
      const res = await c.app.inject({ method: 'GET', url, headers: { accept: 'application/json' } });
      expect(res.statusCode, url).toBe(401);
      expect(res.body, url).not.toContain(first.target);
    }
    const start = await c.app.inject({ method: 'POST', url: '/console/conformance/runs', ...json({ target: wrong.did }) });
    expect(start.statusCode).toBe(401);
  });

  it("keeps the history and the reports across a restart of the twin on its LevelDB folder", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idsync-console-runs-'));
    const start = async () => {
      const store = await openStore({ path: dir });
      let app!: FastifyInstance;
      const twin = await startServiceTwin({ store, transport: 'http', plugins: [serviceConsole(), (a) => void (app = a as unknown as FastifyInstance)] });
      const s: Session = { url: twin.url, app, cookie: cookieOf(await signIn(app)) };
      return { s, close: async () => (await twin.close(), await store.close()) };
    };
    try {
      const one = await start();
      const res = await one.s.app.inject({ method: 'POST', url: '/console/conformance/runs', ...json({ quick: 'service', suites: ['trust-ping'] }), headers: { ...json({}).headers, cookie: one.s.cookie } });
      expect(res.statusCode).toBe(202);
      const ran = await untilEnded(res.json().run.id, one.s);
      expect(ran).toMatchObject({ state: 'finished', label: 'the twin’s own agent', exitCode: 0 });
      await one.close();

      const two = await start();
      try {
        const list = await two.s.app.inject({ method: 'GET', url: '/console/conformance', headers: { accept: 'text/html', cookie: two.s.cookie } });
        expect(list.body).toContain(`<tr id="run-${ran.id}">`);
        const file = await two.s.app.inject({ method: 'GET', url: `/console/conformance/runs/${ran.id}/report.json`, headers: { cookie: two.s.cookie } });
        expect(JSON.parse(file.body).cases.map((x: { id: string }) => x.id)).toEqual(ran.cases.map((x) => x.id));
      } finally {
        await two.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
