// createService `plugins`: more routes on the service's own server, given the composed deps, and
// mounted before the server is ready (what the web console is built on).
import { describe, expect, it } from 'vitest';
import { createService } from '../../src/service/app.js';
import { openStore } from '../../src/store/store.js';
import { CLIENT } from './http-helpers.js';

describe('service plugins', () => {
  it('mount routes that see the composed deps, beside the API', async () => {
    const store = await openStore();
    const service = await createService({
      store,
      env: CLIENT,
      rateLimit: false,
      publicUrl: 'http://127.0.0.1:9',
      plugins: [
        (app, deps) => {
          app.get('/extra', async () => ({ did: deps.serviceDid, users: typeof deps.users.list, webhooks: Boolean(deps.webhooks) }));
        },
      ],
    });
    try {
      const res = await service.app.inject({ method: 'GET', url: '/extra' });
      expect(res.json()).toEqual({ did: service.deps.serviceDid, users: 'function', webhooks: true });
      expect((await service.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally {
      await service.close();
      await store.close();
    }
  });
});
