// A message whose handler failed for a reason that may pass (the router leaves its id free and
// says `retryable`) is answered 503 with Retry-After on POST /didcomm, so that the sender sends
// it again; the retry is then handled. Over the WebSocket there is no status to answer with: it
// is logged. (docs/service.md "The service's DID and DIDComm endpoints".)
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ServiceDidcommAgent } from '../../../src/service/didcomm/agent.js';
import { IdsyncError } from '../../../src/errors.js';
import { expectProblem, startService, type Harness } from '../http-helpers.js';
import { recordingLogger } from '../recording-logger.js';

const FLAKY = 'https://example.org/flaky/1.0';
const plain = { 'content-type': 'application/didcomm-plain+json' };
const message = (id: string) => JSON.stringify({ id, typ: 'application/didcomm-plain+json', type: `${FLAKY}/hit`, body: {} });

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The service's agent with a handler that fails with a store error the first `failures` times. */
function flaky(harness: Harness, failures = 1) {
  const calls = { n: 0 };
  (harness.service.deps.agent as ServiceDidcommAgent).router.use({
    piuri: FLAKY,
    handlers: {
      hit: () => {
        calls.n++;
        if (calls.n <= failures) throw new IdsyncError('store_error', 'put to svc-dc-threads: disk full');
      },
    },
  });
  return calls;
}

describe('POST /didcomm asks for a retry of a message that failed for a reason that may pass', () => {
  it('answers 503 with Retry-After and handles the same message when it is sent again', async () => {
    h = await startService();
    const calls = flaky(h);
    const first = await h.call('POST', '/didcomm', { raw: true, body: message('m-1'), headers: plain });
    const body = expectProblem(first, 503, 'temporarily_unavailable');
    expect(first.headers.get('retry-after')).toBe('5');
    expect(body.retryAfter).toBe(5);
    expect(JSON.stringify(body)).not.toContain('disk full');

    expect((await h.call('POST', '/didcomm', { raw: true, body: message('m-1'), headers: plain })).status).toBe(202);
    expect(calls.n).toBe(2);
    // Handled now: a third copy is a replay, accepted and not handled again.
    expect((await h.call('POST', '/didcomm', { raw: true, body: message('m-1'), headers: plain })).status).toBe(202);
    expect(calls.n).toBe(2);
  });

  it('answers 400 with its code, not 503, to a message refused for good whose sender cannot be told', async () => {
    h = await startService();
    const unknownType = JSON.stringify({ id: 'u-1', typ: 'application/didcomm-plain+json', type: 'https://example.org/nobody/1.0/x', body: {} });
    const res = await h.call('POST', '/didcomm', { raw: true, body: unknownType, headers: plain });
    expect(expectProblem(res, 400, 'unsupported_message_type').problemCode).toBe('e.p.msg.unsupported');
  });

  it('documents the 503 in the OpenAPI of POST /didcomm', async () => {
    h = await startService();
    const spec = (await h.call('GET', '/openapi.json')).json;
    expect(Object.keys(spec.paths['/didcomm'].post.responses)).toContain('503');
  });

  it('logs it over the WebSocket, where no status can be answered', async () => {
    const log = recordingLogger();
    h = await startService({ logger: log.logger });
    const calls = flaky(h);
    const warned = log.next((l) => l.level === 'warn' && l.data.code === 'temporarily_unavailable');
    const ws = new WebSocket(`${h.url.replace(/^http/, 'ws')}/didcomm`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(message('w-1'));
    const line = await warned;
    expect(line.data).toMatchObject({ transport: 'ws', cause: 'store_error' });
    expect(calls.n).toBe(1);
    const closed = new Promise((r) => ws.once('close', r));
    ws.close();
    await closed;
  });
});
