// POST /didcomm answered in process (the fleet's link) must carry what the route answers through
// fastify: the same status, Content-Type, Retry-After and body, problem documents included, for
// every outcome a message can have; a request it does not take is left to fastify.
import { afterEach, describe, expect, it } from 'vitest';
import { IdsyncError } from '../../../src/errors.js';
import type { ServiceDidcommAgent } from '../../../src/service/didcomm/agent.js';
import { startService, type Harness } from '../http-helpers.js';

const PLAIN = 'application/didcomm-plain+json';
const FLAKY = 'https://example.org/flaky/1.0';
const message = (id: string, type = 'https://didcomm.org/trust-ping/2.0/ping', body: object = { response_requested: false }) =>
  JSON.stringify({ id, typ: PLAIN, type, body });

let harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses) await h.close();
  harnesses = [];
});

async function service(options: Parameters<typeof startService>[0] = {}): Promise<Harness> {
  const h = await startService(options);
  harnesses.push(h);
  // A handler that fails for a reason that may pass the first time, as in inbound-retry.test.ts.
  let calls = 0;
  (h.service.deps.agent as ServiceDidcommAgent).router.use({
    piuri: FLAKY,
    handlers: {
      hit: () => {
        if (++calls === 1) throw new IdsyncError('store_error', 'put failed');
      },
    },
  });
  return h;
}

/** What fastify answers (inject) and what the in-process entry answers, side by side. */
async function both(a: Harness, b: Harness, body: string, contentType = PLAIN) {
  const viaFastify = await a.service.app.inject({ method: 'POST', url: '/didcomm', headers: { 'content-type': contentType }, payload: body });
  const inProcess = await b.service.app.didcommInProcess({ url: '/didcomm', contentType, body });
  const fastify = {
    status: viaFastify.statusCode,
    contentType: viaFastify.headers['content-type'],
    retryAfter: viaFastify.headers['retry-after'],
    length: viaFastify.headers['content-length'],
    body: viaFastify.payload,
  };
  const direct = inProcess && {
    status: inProcess.status,
    contentType: inProcess.headers['content-type'],
    retryAfter: inProcess.headers['retry-after'],
    length: inProcess.headers['content-length'],
    body: inProcess.body ?? '',
  };
  return { fastify, direct };
}

describe('POST /didcomm in process', () => {
  it('answers every outcome as the route does through fastify', async () => {
    const [a, b] = [await service(), await service()];
    const cases = [
      message('m-1'), // 202
      message('u-1', 'https://example.org/nobody/1.0/x'), // 400 refused for good, with its problemCode
      message('f-1', `${FLAKY}/hit`), // 503 + Retry-After
      message('f-1', `${FLAKY}/hit`), // then taken: 202
      JSON.stringify({ nothing: 'here' }), // 400 invalid_message
      '['.repeat(200) + ']'.repeat(200), // too deep
    ];
    const statuses: number[] = [];
    for (const body of cases) {
      const { fastify, direct } = await both(a, b, body);
      expect(direct).toEqual(fastify);
      statuses.push(fastify.status);
    }
    expect(statuses).toEqual([202, 400, 503, 202, 400, 400]);
  });

  it('answers a return-routed reply as the route does, 200 with its media type', async () => {
    const [a, b] = [await service(), await service()];
    // An agent that answers every message in the HTTP response (DIDComm return_route).
    for (const h of [a, b]) {
      const agent = h.service.deps.agent as { receive?: (packed: string, info: { reply?: (p: string) => Promise<void> }) => Promise<void> };
      agent.receive = async (_packed, info) => info.reply?.(message('reply-1'));
    }
    const { fastify, direct } = await both(a, b, message('q-1'));
    expect(fastify).toMatchObject({ status: 200, body: message('reply-1') });
    expect(direct).toEqual(fastify);
  });

  it('answers the rate limit as the route does, 429 with Retry-After', async () => {
    const limit = { addressRateLimit: { didcomm: { burst: 1, perSecond: 0.01 } } };
    const [a, b] = [await service(limit), await service(limit)];
    expect((await both(a, b, message('r-1'))).direct?.status).toBe(202);
    const { fastify, direct } = await both(a, b, message('r-2'));
    expect(fastify.status).toBe(429);
    expect(direct).toEqual(fastify);
  });

  it('leaves a Content-Type with parameters, or another media type, to fastify', async () => {
    const h = await service();
    expect(await h.service.app.didcommInProcess({ url: '/didcomm', contentType: `${PLAIN}; charset=utf-8`, body: message('c-1') })).toBeUndefined();
    expect(await h.service.app.didcommInProcess({ url: '/didcomm', contentType: 'application/json', body: message('c-2') })).toBeUndefined();
    expect(await h.service.app.didcommInProcess({ url: '/didcomm', contentType: undefined, body: message('c-3') })).toBeUndefined();
  });
});
