import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { b64uEncode } from '../../src/encoding.js';
import { basicProtocols } from '../../src/protocols/basic.js';
import {
  OUT_OF_BAND,
  acceptsDidcommV2,
  attachedMessages,
  createInvitation,
  encodeInvitationUrl,
  encodeShortInvitationUrl,
  outOfBandProtocol,
  parseInvitationUrl,
  validateInvitation,
  type Invitation,
} from '../../src/protocols/out-of-band.js';
import { testNetwork, type Network } from './parties.js';

const ISSUER = 'did:example:issuer';
const deps = { clock: new ManualClock(), ids: sequentialIds('oob') };
const invitation = createInvitation({ from: ISSUER, goal_code: 'streamlined-vc', goal: 'Connect' }, deps);

let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    hits.push(url.search);
    const id = url.searchParams.get('_oobid');
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    switch (id) {
      case 'json':
        return send(200, 'application/json', JSON.stringify(invitation));
      case 'redirect':
        return send(302, 'text/plain', '', { location: encodeInvitationUrl(`${base}/connect`, invitation) });
      case 'relative':
        return send(303, 'text/plain', '', { location: '/i?_oobid=json' });
      case 'loop':
        return send(302, 'text/plain', '', { location: '/i?_oobid=loop' });
      case 'bad-location':
        return send(302, 'text/plain', '', { location: 'http://[::1' });
      case 'text-bad-url':
        return send(200, 'text/plain', 'http://[::1');
      case 'text-url':
        return send(200, 'text/plain', encodeInvitationUrl('https://example.org/connect', invitation));
      case 'html':
        return send(200, 'text/html', '<html><body>Install a wallet</body></html>');
      case 'not-invitation':
        return send(200, 'application/json', JSON.stringify({ hello: 'world' }));
      default:
        return send(404, 'text/plain', 'not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

let net: Network | undefined;
afterEach(async () => net?.close());

describe('out-of-band 2.0', () => {
  it('creates an invitation that accepts didcomm/v2 by default', () => {
    expect(invitation).toEqual({
      type: OUT_OF_BAND.invitation,
      id: 'oob-1',
      from: ISSUER,
      body: { goal_code: 'streamlined-vc', goal: 'Connect', accept: ['didcomm/v2'] },
      created_time: deps.clock.now() / 1000,
    });
    expect(acceptsDidcommV2(invitation)).toBe(true);
    expect(acceptsDidcommV2({ ...invitation, body: { accept: ['didcomm/aip2;env=rfc19'] } })).toBe(false);
    expect(createInvitation({ from: ISSUER, expiresInMs: 60_000 }, deps).expires_time).toBe(deps.clock.now() / 1000 + 60);
    expect(() => createInvitation({ from: 'not-a-did' })).toThrow(expect.objectContaining({ code: 'invalid_invitation' }));
  });

  it('round-trips an invitation through its URL and keeps other query parameters', async () => {
    const url = encodeInvitationUrl('https://api.example.com/connect?lang=en', invitation);
    expect(url).toMatch(/^https:\/\/api\.example\.com\/connect\?lang=en&_oob=[A-Za-z0-9_-]+$/);
    expect(new URL(url).searchParams.get('_oob')).toBe(b64uEncode(JSON.stringify(invitation)));
    expect(await parseInvitationUrl(url)).toEqual(invitation);
  });

  it('tolerates padded and standard base64 in _oob', async () => {
    // A goal whose encoding has '+' and '/' in standard base64 and needs padding.
    let inv: Invitation = invitation;
    for (let i = 0; ; i++) {
      inv = createInvitation({ from: ISSUER, goal: `Connect ~~~??? ${i}`, id: `id-${i}` });
      const std = Buffer.from(JSON.stringify(inv)).toString('base64');
      if (/[+/]/.test(std) && std.endsWith('=')) break;
    }
    const std = Buffer.from(JSON.stringify(inv)).toString('base64');
    expect(await parseInvitationUrl(`https://x.example/c?_oob=${encodeURIComponent(std)}`)).toEqual(inv);
    // Unescaped: '+' arrives as a space in a query string.
    expect(await parseInvitationUrl(`https://x.example/c?_oob=${std}`)).toEqual(inv);
    expect(await parseInvitationUrl(`https://x.example/c?_oob=${b64uEncode(JSON.stringify(inv))}==`)).toEqual(inv);
  });

  it('accepts the invitation JSON or its base64url directly', async () => {
    expect(await parseInvitationUrl(JSON.stringify(invitation))).toEqual(invitation);
    expect(await parseInvitationUrl(b64uEncode(JSON.stringify(invitation)))).toEqual(invitation);
  });

  it('reads an invitation without a body (OPTIONAL in v2.1) as one with an empty body, in every form', async () => {
    const { body: _body, ...bodiless } = invitation;
    const url = `https://issuer.example/connect?_oob=${b64uEncode(JSON.stringify(bodiless))}`;
    for (const read of [validateInvitation(bodiless), await parseInvitationUrl(url), await parseInvitationUrl(JSON.stringify(bodiless))]) {
      expect(read).toEqual({ ...bodiless, body: {} });
      // No accept list: every profile is accepted.
      expect(acceptsDidcommV2(read)).toBe(true);
    }
  });

  it('resolves an _oobid short URL that returns the invitation JSON', async () => {
    const url = encodeShortInvitationUrl(`${base}/i`, 'json');
    expect(url).toBe(`${base}/i?_oobid=json`);
    expect(await parseInvitationUrl(url)).toEqual(invitation);
  });

  it('resolves an _oobid short URL that redirects to the long form, without fetching the long form', async () => {
    hits.length = 0;
    expect(await parseInvitationUrl(`${base}/i?_oobid=redirect`)).toEqual(invitation);
    expect(hits).toEqual(['?_oobid=redirect']);
    expect(await parseInvitationUrl(`${base}/i?_oobid=relative`)).toEqual(invitation);
    expect(await parseInvitationUrl(`${base}/i?_oobid=text-url`)).toEqual(invitation);
  });

  it('uses an injected fetch for short URLs', async () => {
    const seen: string[] = [];
    const fetchShort = async (url: string) => {
      seen.push(url);
      return new Response(JSON.stringify(invitation), { headers: { 'content-type': 'application/json' } });
    };
    expect(await parseInvitationUrl('https://short.example/x?_oobid=abc', { fetchShort })).toEqual(invitation);
    expect(seen).toEqual(['https://short.example/x?_oobid=abc']);
  });

  it.each([
    ['an empty string', ''],
    ['text', 'hello there'],
    ['a URL without _oob', 'https://example.org/connect'],
    ['_oob that is not base64', 'https://example.org/c?_oob=%%%***'],
    ['_oob that is not JSON', `https://example.org/c?_oob=${b64uEncode('not json')}`],
    ['_oob JSON that is not an invitation', `https://example.org/c?_oob=${b64uEncode(JSON.stringify({ hello: 1 }))}`],
    ['an invitation without from', `https://example.org/c?_oob=${b64uEncode(JSON.stringify({ ...invitation, from: undefined }))}`],
    ['an invitation of another type', `https://example.org/c?_oob=${b64uEncode(JSON.stringify({ ...invitation, type: 'https://didcomm.org/out-of-band/1.1/invitation' }))}`],
    ['an invitation with accept not an array', `https://example.org/c?_oob=${b64uEncode(JSON.stringify({ ...invitation, body: { accept: 'didcomm/v2' } }))}`],
    ['JSON that is not an invitation', '{"a":1}'],
    ['an empty _oobid', 'https://example.org/c?_oobid='],
  ])('refuses %s with invalid_invitation', async (_, url) => {
    await expect(parseInvitationUrl(url)).rejects.toMatchObject({ code: 'invalid_invitation' });
  });

  it.each([
    ['a 404', 'missing'],
    ['a redirect loop', 'loop'],
    ['an HTML page', 'html'],
    ['JSON that is not an invitation', 'not-invitation'],
  ])('refuses a short URL answering %s with invalid_invitation', async (_, id) => {
    await expect(parseInvitationUrl(`${base}/i?_oobid=${id}`)).rejects.toMatchObject({ code: 'invalid_invitation' });
  });

  it('says which answer of a short URL was no URL: a redirect Location, or the text it returned', async () => {
    await expect(parseInvitationUrl(`${base}/i?_oobid=bad-location`)).rejects.toMatchObject({ code: 'invalid_invitation', details: { reason: 'redirect' } });
    await expect(parseInvitationUrl(`${base}/i?_oobid=text-bad-url`)).rejects.toMatchObject({ code: 'invalid_invitation', details: { reason: 'not_an_invitation' } });
  });

  it('refuses a short URL nobody answers with invalid_invitation', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(parseInvitationUrl(`http://127.0.0.1:${port}/i?_oobid=x`)).rejects.toMatchObject({ code: 'invalid_invitation', details: { reason: 'fetch_failed' } });
  });

  it('lists the messages attached to an invitation', () => {
    const request = { id: 'r-1', type: 'https://didcomm.org/present-proof/3.0/request-presentation', body: {} };
    const inv = createInvitation({
      from: ISSUER,
      attachments: [
        { id: 'a', media_type: 'application/json', data: { json: request } },
        { id: 'b', media_type: 'application/json', data: { base64: b64uEncode(JSON.stringify(request)) } },
        { id: 'c', media_type: 'image/png', data: { base64: 'iVBORw0KGgo' } },
      ],
    });
    expect(attachedMessages(inv)).toEqual([request, request]);
  });

  it('receives an invitation sent as a DIDComm message', async () => {
    net = testNetwork();
    const service = await net.party('service');
    const wallet = await net.party('wallet');
    service.router.use(...basicProtocols());
    wallet.router.use(...basicProtocols(), outOfBandProtocol());
    const received = wallet.router.waitFor<{ invitation: Invitation }>('invitation');
    const inv = createInvitation({ from: service.did, goal_code: 'streamlined-vc' });
    await service.router.send(inv, { to: wallet.did });
    expect((await received).invitation.id).toBe(inv.id);
  });
});
