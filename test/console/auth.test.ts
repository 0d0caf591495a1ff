// Console access: without a session every page shows the login page and every data URL answers
// 401 problem+json, with no data; the sign-in sets an HttpOnly, SameSite=Strict session cookie on
// /console; a client without idsync:admin is refused; scripts use a bearer token; sign-out ends the
// session; changes from another site are refused; every answer carries the CSP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/console/security.js';
import { putClient } from '../../src/service/seed.js';
import { connectUser, syncDatapoints } from '../../src/testing/index.js';
import { ADA, cookieOf, signIn, startConsoleBed, type ConsoleBed } from './helpers.js';

let c: ConsoleBed;
beforeAll(async () => {
  c = await startConsoleBed();
  await connectUser(c.bed, 'ada', c.bed.wallets[0]!);
  await syncDatapoints(c.bed, 'ada', c.bed.wallets[0]!, ADA);
  await c.bed.service.client.createWorkflow({ datapoints: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09', emailAddress: 'grace@example.com' } });
});
afterAll(() => c.close());

const PAGES = ['/console/users', '/console/users/ada', '/console/workflows', '/console/messages', '/console/threads', '/console/outbox', '/console/webhooks', '/console/faults', '/console/conformance'];
const DATA = ['/console/users?fragment=1', '/console/messages?fragment=1', '/console/stream/messages', '/console/stream/changes', '/console/threads?fragment=1', '/console/webhooks?fragment=1', '/console/conformance?fragment=1', '/console/stream/conformance'];

describe('console access', () => {
  it('shows the login page, with status 401 and no data, for every page without a session', async () => {
    for (const url of PAGES) {
      const res = await c.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode, url).toBe(401);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.body, url).toContain('action="/console/login"');
      // Only the form (which returns to the URL asked for): no user, datapoint, DID or event.
      for (const data of ['Lovelace', 'DATA_SYNC', 'did:ion:', 'Grace', 'established']) expect(res.body, url).not.toContain(data);
    }
  });

  it('answers every data URL without a session with 401 problem+json, and tells htmx to go to the login page', async () => {
    for (const url of DATA) {
      const res = await c.app.inject({ method: 'GET', url, headers: { 'hx-request': 'true', accept: 'text/html, text/event-stream' } });
      expect(res.statusCode, url).toBe(401);
      expect(res.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      expect(res.json(), url).toMatchObject({ code: 'unauthorized', status: 401 });
      expect(res.headers['hx-redirect'], url).toBe('/console/login');
    }
    // A forged or stale cookie is no session.
    const forged = await c.app.inject({ method: 'GET', url: '/console/messages?fragment=1', headers: { cookie: 'idsync_console=not-a-session' } });
    expect(forged.statusCode).toBe(401);
  });

  it('refuses a state change without a session, as 401 and without doing it', async () => {
    const res = await c.app.inject({ method: 'POST', url: '/console/faults', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'fault=drop' });
    expect(res.statusCode).toBe(401);
    expect(c.faults.current).toBeUndefined();
  });

  it('signs in with the client id and secret: an HttpOnly, SameSite=Strict session cookie on /console', async () => {
    const res = await signIn(c.app);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/users');
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^idsync_console=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/console');
    const page = await c.app.inject({ method: 'GET', url: '/console/users', headers: { accept: 'text/html', cookie: cookieOf(res) } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('href="/console/users/ada"');
    // Two sign-ins, two sessions.
    expect(cookieOf(await signIn(c.app))).not.toBe(cookieOf(res));
  });

  it('refuses a wrong secret and an unknown client on the login page, and never sends anywhere but the console', async () => {
    for (const [id, secret] of [['qa-client', 'wrong'], ['nobody', 'qa-client-secret']]) {
      const res = await signIn(c.app, id, secret);
      expect(res.statusCode).toBe(401);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.body).toContain('Unknown client or wrong secret');
    }
    const away = await c.app.inject({
      method: 'POST', url: '/console/login', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'clientId=qa-client&clientSecret=qa-client-secret&next=https://elsewhere.example/',
    });
    expect(away.headers.location).toBe('/console');
  });

  it('refuses a client without idsync:admin (403) and takes JSON sign-ins from scripts', async () => {
    await putClient(c.bed.service.deps, c.bed.service.tenantId, { clientId: 'reader', clientSecret: 'reader-secret-1', scopes: ['read:provider-users'] });
    const html = await signIn(c.app, 'reader', 'reader-secret-1');
    expect(html.statusCode).toBe(403);
    expect(html.body).toContain('idsync:admin');
    const json = await c.app.inject({ method: 'POST', url: '/console/login', payload: { clientId: 'reader', clientSecret: 'reader-secret-1' } });
    expect(json.statusCode).toBe(403);
    expect(json.json()).toMatchObject({ code: 'insufficient_scope' });
    const ok = await c.app.inject({ method: 'POST', url: '/console/login', payload: { clientId: 'qa-client', clientSecret: 'qa-client-secret' } });
    expect(ok.json()).toEqual({ signedIn: 'qa-client' });
  });

  it('lets a script in with a bearer token holding idsync:admin, and refuses one without', async () => {
    const token = async (clientId: string, clientSecret: string) =>
      (await c.app.inject({ method: 'POST', url: '/api/v1/auth/token', payload: { clientId, clientSecret } })).json().accessToken as string;
    const admin = await c.app.inject({ method: 'GET', url: '/console/messages?fragment=1', headers: { authorization: `Bearer ${await token('qa-client', 'qa-client-secret')}` } });
    expect(admin.statusCode).toBe(200);
    const reader = await c.app.inject({ method: 'GET', url: '/console/messages', headers: { authorization: `Bearer ${await token('reader', 'reader-secret-1')}` } });
    expect(reader.statusCode).toBe(403);
    expect(reader.json()).toMatchObject({ code: 'insufficient_scope' });
    const bad = await c.app.inject({ method: 'GET', url: '/console/messages', headers: { authorization: 'Bearer not.a.token' } });
    expect(bad.statusCode).toBe(401);
  });

  it('ends the session at sign-out', async () => {
    const cookie = cookieOf(await signIn(c.app));
    const out = await c.app.inject({ method: 'POST', url: '/console/logout', headers: { cookie } });
    expect(out.statusCode).toBe(303);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    const after = await c.app.inject({ method: 'GET', url: '/console/users?fragment=1', headers: { cookie } });
    expect(after.statusCode).toBe(401);
  });

  it('refuses changes sent from another site, even with a session', async () => {
    const res = await c.call('POST', '/console/faults', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      payload: 'fault=drop',
    });
    expect(res.statusCode).toBe(403);
    const origin = await c.call('POST', '/console/faults', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' },
      payload: 'fault=drop',
    });
    expect(origin.statusCode).toBe(403);
    expect(c.faults.current).toBeUndefined();
  });

  it('sends its CSP on every answer, pages without inline script or style, and assets from the package', async () => {
    for (const url of [...PAGES, '/console/login', '/console/assets/htmx.js']) {
      const res = await c.call('GET', url);
      expect(res.headers['content-security-policy'], url).toBe(CONSOLE_CSP);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      if (!url.startsWith('/console/assets')) {
        // Every script is a file of this origin; no inline script, handler or style attribute.
        expect(res.body.match(/<script(?![^>]*\bsrc="\/console\/assets\/)[^>]*>/g), url).toBeNull();
        expect(res.body, url).not.toMatch(/\son[a-z]+="/);
        expect(res.body, url).not.toMatch(/\sstyle="/);
        expect(res.body.match(/<(?:script|link)[^>]+(?:src|href)="https?:/g), url).toBeNull();
      }
    }
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("default-src 'none'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe|https?:|\*/);
    for (const [name, type] of [['htmx.js', 'text/javascript'], ['hx-sse.js', 'text/javascript'], ['console.js', 'text/javascript'], ['console.css', 'text/css'], ['narrow.css', 'text/css']]) {
      const res = await c.app.inject({ method: 'GET', url: `/console/assets/${name}` });
      expect(res.statusCode, name).toBe(200);
      expect(res.headers['content-type'], name).toContain(type);
    }
    const none = await c.app.inject({ method: 'GET', url: '/console/assets/..%2Fpackage.json', headers: { accept: 'application/json' } });
    expect(none.statusCode).toBe(404);
    expect(none.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(none.json()).toMatchObject({ code: 'not_found' });
  });

  it('never shows a client secret or a private key', async () => {
    const secrets = ['qa-client-secret', 'reader-secret-1'];
    for (const url of PAGES) {
      const res = await c.call('GET', url);
      for (const s of secrets) expect(res.body, url).not.toContain(s);
      expect(res.body, url).not.toMatch(/&quot;d&quot;: &quot;[A-Za-z0-9_-]{20,}/);
      expect(res.body, url).not.toMatch(/whsec_/);
    }
  });
});
