// Fuzzing `wallet serve`'s control API with its own routes: seeded bodies and queries of any JSON
// shape (invitation URLs that do not parse, name nothing reachable or hold no URL at all; ids and
// timeouts of every type) sent to a running serve process with its token. Nothing a user sends
// may crash a server or produce a 500: every answer is a 2xx or a 4xx problem with a code, and
// the process still answers afterwards.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode } from '../../src/encoding.js';
import { startCli, type RunningCli } from '../e2e/processes.js';
import { draw } from '../fuzz-kit.js';
import { runCli, tempDir } from './run-cli.js';

const INVITATION = JSON.stringify({ type: 'https://didcomm.org/out-of-band/2.0/invitation', id: 'i-1', from: 'did:example:nobody', body: {} });
/** Strings the routes read: invitation URLs of every kind, and a few that no URL can hold. */
const URLS = [
  `https://example.org/c?_oob=${b64uEncode(INVITATION)}`,
  'http://127.0.0.1:1/i?_oobid=x',
  'http://127.0.0.1:1/c?_oob=e30',
  'http://[::1/?_oobid=x',
  'didcomm://x',
  'did:peer:2',
  '_oob=%%',
  `https://example.org/c?_oob=${'A'.repeat(70_000)}`,
];
const ROUTES: [method: string, path: string, members: string[]][] = [
  // Accepting is where most of the reading is: it comes up three times as often.
  ['POST', '/accept', ['url', 'timeoutMs', 'wait']],
  ['POST', '/accept', ['url', 'timeoutMs', 'wait']],
  ['POST', '/accept', ['url', 'timeoutMs', 'wait']],
  ['POST', '/approve', ['id', 'wait', 'timeoutMs']],
  ['POST', '/decline', ['id', 'reason']],
  ['POST', '/pickup', ['from']],
  ['GET', '/messages', ['thid']],
  ['GET', '/status', []],
  ['GET', '/credentials', []],
  ['GET', '/pending', []],
];
const RUNS = 120;

let dir: Awaited<ReturnType<typeof tempDir>>;
let serve: RunningCli | undefined;

beforeAll(async () => {
  dir = await tempDir();
  const created = await runCli(['wallet', 'create', '--data', dir.file('wallet')]);
  if (created.code !== 0) throw new Error(created.stderr);
  serve = startCli(['wallet', 'serve', '--data', dir.file('wallet'), '--port', '0', '--json']);
  await serve.line(/^\{/);
});
afterAll(async () => {
  await serve?.stop();
  await dir?.remove();
});

describe('fuzzing the wallet serve control API', () => {
  it(`answers ${RUNS} seeded requests to its routes with 2xx or a coded 4xx, and goes on`, async () => {
    const { url, token } = JSON.parse(await readFile(join(dir.file('wallet'), 'serve.json'), 'utf8')) as { url: string; token: string };
    const d = draw(5, () => URLS);
    const bad: string[] = [];
    const statuses = new Set<number>();
    for (let i = 0; i < RUNS; i++) {
      const [method, path, members] = d.pick(ROUTES);
      const body: Record<string, unknown> = {};
      for (const m of members) if (d.rnd() < 0.85) body[m] = m === 'url' && d.rnd() < 0.7 ? d.pick(URLS) : m === 'timeoutMs' && d.rnd() < 0.7 ? d.pick([50, 500, 500, 0, -1, 1e308, 1.5]) : d.value();
      const target = method === 'GET' && 'thid' in body ? `${path}?thid=${encodeURIComponent(String(body.thid))}` : path;
      const res = await fetch(url + target, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      statuses.add(res.status);
      // 431: a query longer than node's header limit is refused by its HTTP parser, before any route.
      const ok = res.status < 300 || res.status === 431 || (res.status < 500 && /"code":"[a-z_]+"/.test(text) && res.headers.get('content-type') === 'application/problem+json');
      if (!ok) bad.push(`${method} ${target.slice(0, 60)} ${JSON.stringify(body).slice(0, 160)} -> ${res.status} ${text.slice(0, 160)}`);
    }
    expect(bad).toEqual([]);
    // The runs reached both the routes' answers and their refusals.
    expect([...statuses].some((s) => s < 300)).toBe(true);
    expect([...statuses].some((s) => s >= 400)).toBe(true);
    const status = await fetch(`${url}/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(status.status).toBe(200);
    expect(serve!.child.exitCode).toBeNull();
  }, 240_000);
});
