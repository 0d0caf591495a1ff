// GET /connect shows only invitations the service issued, unchanged, and never fails with a 500
// on a crafted one (service-security.md #7). A browser that opens a bad or expired invitation gets
// a page saying so (same status), clients get problem JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { expectProblem, startService, type Harness, type Reply } from './http-helpers.js';

const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const OOB = 'https://didcomm.org/out-of-band/2.0/invitation';

let h: Harness;
let token: string;
let issued: Record<string, unknown>;
beforeAll(async () => {
  h = await startService();
  token = await h.token();
  await h.call('PUT', '/api/v1/provider/users/c1', { token, body: {} });
  const url = new URL((await h.call('POST', '/api/v1/provider/users/c1/invite', { token, body: {} })).json.invitationUrl);
  issued = JSON.parse(Buffer.from(url.searchParams.get('_oob')!, 'base64url').toString('utf8'));
});
afterAll(() => h.close());

const get = (invitation: unknown, accept = 'application/json') => h.call('GET', `/connect?_oob=${enc(invitation)}`, { headers: { accept } });

/** What a browser sends (Firefox and Chrome both name text/html first). */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** A page for people: the problem's status and code, no JSON. */
function expectErrorPage(reply: Reply, status: number, code: string): string {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
  expect(reply.headers.get('vary')).toMatch(/accept/i);
  expect(reply.text).toMatch(/^<!doctype html>/);
  expect(reply.text).toContain(`<code id="code">${code}</code>`);
  return reply.text;
}

describe('GET /connect', () => {
  it.each([-1e20, -8.64e12 - 1, 8.64e12 + 1, 1e300, 1.5, -1, '1700000000', null, true, {}])(
    'answers 400 invalid_invitation (never 500) for expires_time %s',
    async (expires) => {
      expectProblem(await get({ type: OOB, id: 'x', from: h.service.deps.serviceDid, expires_time: expires }), 400, 'invalid_invitation');
      expectProblem(await get({ ...issued, expires_time: expires }), 400, 'invalid_invitation');
      expectErrorPage(await get({ ...issued, expires_time: expires }, 'text/html'), 400, 'invalid_invitation');
    },
  );

  it('refuses an invitation from another DID with 400 foreign_invitation, as JSON and as a page', async () => {
    const foreign = { type: OOB, id: 'evil-1', from: 'did:web:evil.example', body: { goal: 'Enter your bank password at https://evil.example' } };
    expectProblem(await get(foreign), 400, 'foreign_invitation');
    const page = expectErrorPage(await get(foreign, 'text/html'), 400, 'foreign_invitation');
    // The page shows none of the foreign invitation's text.
    expect(page).not.toContain('evil.example');
    expectProblem(await get({ type: OOB, id: 'x' }), 400, 'foreign_invitation');
  });

  it('refuses an invitation that claims to be ours but was never issued, or was edited', async () => {
    const made = { type: OOB, id: 'never-issued', from: h.service.deps.serviceDid, body: { goal: 'Connect', goal_code: 'idsync.data-pipe' } };
    expectProblem(await get(made), 400, 'foreign_invitation');
    const edited = { ...issued, body: { ...(issued.body as object), goal: 'Send us your password' } };
    expectProblem(await get(edited), 400, 'invalid_invitation');
    expectErrorPage(await get(edited, 'text/html'), 400, 'invalid_invitation');
  });

  it('shows an invitation it issued, as JSON and as a page', async () => {
    const json = await get(issued);
    expect(json.status).toBe(200);
    expect(json.json).toEqual(issued);
    const page = await get(issued, 'text/html');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<svg');
  });

  it('shows an issuance workflow invitation it issued', async () => {
    const wf = await h.call('POST', '/api/v1/issuance-workflows', { token, body: { projectId: 'qa-project', datapoints: { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' } } });
    expect(wf.status).toBe(201);
    const url = new URL(wf.json.issuanceWorkflow.invitationUrl);
    const res = await h.call('GET', `/connect${url.search}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.json.from).toBe(h.service.deps.serviceDid);
  });
});

describe('GET /connect for an expired invitation', () => {
  let e: Harness;
  let path: string;
  beforeAll(async () => {
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    e = await startService({ clock, invitationTtlMs: 60_000 });
    const t = await e.token();
    await e.call('PUT', '/api/v1/provider/users/late', { token: t, body: {} });
    const url = new URL((await e.call('POST', '/api/v1/provider/users/late/invite', { token: t, body: {} })).json.invitationUrl);
    path = `${url.pathname}${url.search}`;
    clock.advance(60_000);
  });
  afterAll(() => e.close());

  it('shows a browser a page saying the invitation expired, with status 410', async () => {
    const page = expectErrorPage(await e.call('GET', path, { headers: { accept: BROWSER } }), 410, 'invitation_expired');
    expect(page).toContain('<h1>This invitation has expired</h1>');
    expect(page).toContain('2030-01-01T00:01:00.000Z');
    expect(page).not.toContain('"type"');
  });

  it('answers clients with problem JSON: JSON asked for, or no preference', async () => {
    expectProblem(await e.call('GET', path, { headers: { accept: 'application/json' } }), 410, 'invitation_expired');
    expectProblem(await e.call('GET', path, { headers: { accept: 'application/problem+json' } }), 410, 'invitation_expired');
    expectProblem(await e.call('GET', path, { headers: { accept: '*/*' } }), 410, 'invitation_expired');
  });

  it('shows a browser a page for a link cut short too', async () => {
    expectErrorPage(await e.call('GET', '/connect', { headers: { accept: BROWSER } }), 400, 'invalid_invitation');
    expectErrorPage(await e.call('GET', '/connect?_oob=%%%', { headers: { accept: BROWSER } }), 400, 'invalid_invitation');
  });
});
