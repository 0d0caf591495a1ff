// Fuzzing the console's pages as a signed-in browser would reach them, after a sync gave them
// something to show: every route with path parameters (real ids, and strings that have broken
// parsers) and query strings drawn from a seeded generator (filters, cursors, limits, the
// verdict and direction selectors), as HTML and as JSON, and the forms a console page posts.
// Nothing may answer 5xx, and afterwards the pages still show the user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectUser, waitForCredential } from '../../src/testing/index.js';
import { draw } from '../fuzz-kit.js';
import { ADA, startConsoleBed, type ConsoleBed } from './helpers.js';

const GETS = [
  '/console', '/console/overview', '/console/users', '/console/users/:userId', '/console/messages', '/console/messages/:seq', '/console/threads',
  '/console/threads/:thid', '/console/outbox', '/console/outbox/:id', '/console/webhooks', '/console/workflows', '/console/workflows/:id', '/console/faults',
  '/console/conformance', '/console/conformance/compare', '/console/conformance/runs', '/console/conformance/runs/:id', '/console/conformance/runs/:id/report',
  '/console/conformance/runs/:id/report.json', '/console/conformance/runs/:id/junit.xml', '/console/conformance/runs/:id/report.css', '/console/assets/:name',
];
const POSTS = ['/console/faults', '/console/faults/off', '/console/outbox/:id/accept', '/console/webhooks/deliveries/:id/redeliver', '/console/conformance/runs/:id/cancel'];
const QUERY_KEYS = ['user', 'thid', 'type', 'verdict', 'direction', 'after', 'before', 'limit', 'cursor', 'q', 'did', 'status', 'a', 'b', 'rule', 'page', 'seq', 'since'];

describe('fuzzing the console', () => {
  let c: ConsoleBed;
  const known: string[] = [];

  beforeAll(async () => {
    c = await startConsoleBed();
    const wallet = c.bed.wallets[0]!;
    await connectUser(c.bed, 'ada', wallet);
    await c.bed.service.client.putDatapoints('ada', ADA);
    await waitForCredential(wallet, (x) => x.claims.firstName === 'Ada');
    const logged = await wallet.messages();
    known.push('ada', wallet.did, ...logged.flatMap((m) => [m.seq, m.id, m.thid ?? '']).filter(Boolean).slice(0, 20));
  });
  afterAll(() => c.close());

  it('answers every page, query and form under 500', async () => {
    const { rnd, pick, value } = draw(Number(process.env.FUZZ_SEED ?? 20261129), () => known);
    const param = () => encodeURIComponent(rnd() < 0.6 ? pick(known) : String(value(2)));
    const fill = (route: string) => route.replace(/:[a-zA-Z]+/g, param);
    const query = () => {
      const q = new URLSearchParams();
      for (let n = Math.floor(rnd() * 4); n > 0; n--) q.append(pick(QUERY_KEYS), rnd() < 0.3 ? pick(known) : String(value(2)));
      const s = q.toString();
      return s ? `?${s}` : '';
    };
    const bad: string[] = [];
    for (let i = 0; i < 300; i++) {
      const post = rnd() < 0.15;
      const url = `${fill(post ? pick(POSTS) : pick(GETS))}${query()}`;
      const accept = pick(['text/html', 'application/json', '*/*', 'text/event-stream;q=0']);
      const res = post
        ? await c.call('POST', url, {
            headers: { accept, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
            payload: new URLSearchParams({ point: String(value(2)), fault: String(value(2)), rate: String(value(2)), [pick(QUERY_KEYS)]: String(value(2)) }).toString(),
          })
        : await c.call('GET', url, { headers: { accept } });
      if (res.statusCode >= 500) bad.push(`${post ? 'POST' : 'GET'} ${url.slice(0, 200)}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    expect(bad).toEqual([]);
  });

  it('still shows the user', async () => {
    const res = await c.call('GET', '/console/users');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('ada');
  });
});
