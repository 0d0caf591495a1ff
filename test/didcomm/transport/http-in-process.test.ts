// The HTTP transport's in-process path (http-fetch.ts IN_PROCESS, the fleet's link): a server in
// this process is sent the same request as plain data, and its answer must be read exactly as the
// same answer in a fetch Response: replies, retry-later, refusals, redirects, limits, timeouts.
import { describe, expect, it } from 'vitest';
import { httpTransport } from '../../../src/didcomm/transport/http.js';
import { IN_PROCESS, type InProcessFetch, type PlainRequest, type PlainResponse } from '../../../src/http-fetch.js';
import { plain } from './helpers.js';

const ENDPOINT = 'http://svc.test/didcomm';
const PLAIN_TYPE = 'application/didcomm-plain+json';

/** A fetch that answers with Responses built from `answer`. */
function responseFetch(answer: (req: PlainRequest) => PlainResponse): typeof fetch {
  return (async (url: string, init: RequestInit) => {
    const res = answer({ method: init.method!, url, headers: init.headers as Record<string, string>, body: init.body as string });
    return new Response([101, 204, 205, 304].includes(res.status) ? null : (res.body ?? ''), { status: res.status, headers: res.headers });
  }) as typeof fetch;
}

/** A fetch that must never be called as one: every request goes to the in-process exchange. */
function inProcessFetch(answer: (req: PlainRequest) => PlainResponse | Promise<PlainResponse>, seen: PlainRequest[] = []): typeof fetch {
  const f = (async () => {
    throw new Error('fetch called');
  }) as unknown as InProcessFetch;
  f[IN_PROCESS] = (url) => (url.startsWith('http://svc.test/') ? async (req) => (seen.push(req), answer(req)) : undefined);
  return f;
}

async function outcome(p: Promise<string[]>): Promise<unknown> {
  try {
    return { replies: await p };
  } catch (err) {
    const e = err as { code?: string; details?: unknown };
    return { code: e.code, details: e.details, cause: String((err as Error).cause ?? '') };
  }
}

describe('http transport, a server in this process', () => {
  const reply = JSON.stringify({ id: 'r1', type: 'https://didcomm.org/trust-ping/2.0/ping-response', body: {} });
  const answers: Record<string, (req: PlainRequest) => PlainResponse> = {
    accepted: () => ({ status: 202, headers: { 'content-length': '0' } }),
    'return-routed': () => ({ status: 200, headers: { 'content-type': `${PLAIN_TYPE}; charset=utf-8` }, body: reply }),
    'json packed': () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: reply }),
    'html page': () => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<p>hi</p>' }),
    'retry later': () => ({ status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': '7' }, body: '{"code":"temporarily_unavailable"}' }),
    'rate limited': () => ({ status: 429, headers: { 'retry-after': '2' }, body: '' }),
    refused: () => ({ status: 400, headers: { 'content-type': 'application/problem+json' }, body: '{"code":"unsupported_message_type","problemCode":"e.p.msg.unsupported"}' }),
    'too large': () => ({ status: 200, headers: { 'content-type': PLAIN_TYPE }, body: reply + ' '.repeat(300) }),
    'redirected once': (req): PlainResponse => (req.url.endsWith('/moved') ? { status: 202, headers: {} } : { status: 307, headers: { location: '/didcomm/moved' } }),
    'no content with a body': () => ({ status: 204, headers: {}, body: reply }),
  };

  for (const [name, answer] of Object.entries(answers)) {
    it(`reads "${name}" as it reads the same answer in a Response`, async () => {
      const seen: PlainRequest[] = [];
      const viaResponse = await outcome(httpTransport({ fetch: responseFetch(answer), maxReplyBytes: 256 }).send(ENDPOINT, plain()));
      const inProcess = await outcome(httpTransport({ fetch: inProcessFetch(answer, seen), maxReplyBytes: 256 }).send(ENDPOINT, plain()));
      expect(inProcess).toEqual(viaResponse);
      expect(seen[0]).toEqual({ method: 'POST', url: ENDPOINT, headers: { 'content-type': PLAIN_TYPE }, body: plain() });
    });
  }

  it('gives up with transport_timeout when the server does not answer in time', async () => {
    const never = inProcessFetch(() => new Promise<PlainResponse>(() => {}));
    await expect(httpTransport({ fetch: never, timeoutMs: 20 }).send(ENDPOINT, plain())).rejects.toMatchObject({ code: 'transport_timeout' });
  });

  it("labels the message with its packer's media type when the sender gives one, without judging its shape", async () => {
    const seen: PlainRequest[] = [];
    const f = inProcessFetch(() => ({ status: 202, headers: {} }), seen);
    await httpTransport({ fetch: f }).send(ENDPOINT, plain(), { mediaType: 'application/didcomm-signed+json' });
    expect(seen[0]!.headers).toEqual({ 'content-type': 'application/didcomm-signed+json' });
    // Without one it is judged from the JSON shape, and what is no DIDComm message is refused.
    await expect(httpTransport({ fetch: f }).send(ENDPOINT, 'not json')).rejects.toMatchObject({ code: 'transport_invalid_message' });
  });

  it('sends an endpoint the fetch does not reach in process through fetch', async () => {
    const f = inProcessFetch(() => ({ status: 202, headers: {} }));
    await expect(httpTransport({ fetch: f }).send('http://elsewhere.test/didcomm', plain())).rejects.toMatchObject({ message: expect.stringContaining('fetch called') });
  });
});
