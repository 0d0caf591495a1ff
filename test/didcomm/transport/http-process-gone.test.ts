// A handler whose process died (details.processGone, what the testbed's crashed parties throw)
// gets no answer at all: the connection is reset, as a killed process's is, instead of a 503
// whose Retry-After would hold the sender back for seconds.
import { afterEach, expect, it } from 'vitest';
import { IdsyncError } from '../../../src/errors.js';
import { handleHttpInbound, startHttpEndpoint, type HttpEndpoint } from '../../../src/didcomm/transport/http.js';

const PLAIN = JSON.stringify({ id: '1', type: 'https://didcomm.org/trust-ping/2.0/ping', body: {} });
const gone = () => new IdsyncError('store_closed', 'the store is gone (the process using it crashed)', { details: { processGone: true } });
let endpoint: HttpEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

it('abandons the answer to a message whose handler threw or resolved with processGone', async () => {
  const req = { body: PLAIN, contentType: 'application/didcomm-plain+json' };
  expect(await handleHttpInbound(req, async () => Promise.reject(gone()))).toMatchObject({ abandon: true });
  expect(await handleHttpInbound(req, async () => ({ retryable: true, error: gone() }) as never)).toMatchObject({ abandon: true });
  // Any other store failure still asks the sender to come back later.
  expect(await handleHttpInbound(req, async () => Promise.reject(new IdsyncError('store_closed', 'closed', { details: { retryable: true } })))).toMatchObject({ status: 503 });
});

it('resets the connection of an HTTP endpoint whose handler died', async () => {
  endpoint = await startHttpEndpoint({ port: 0, handler: async () => Promise.reject(gone()) });
  const sent = fetch(endpoint.url, { method: 'POST', headers: { 'content-type': 'application/didcomm-plain+json' }, body: PLAIN });
  await expect(sent).rejects.toThrow(/fetch failed/);
});
