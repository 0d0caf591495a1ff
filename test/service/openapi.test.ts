import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startService, type Harness } from './http-helpers.js';

describe('OpenAPI', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startService();
  });
  afterAll(() => h.close());

  it('serves a valid OpenAPI 3.1 document at /openapi.json', async () => {
    const res = await h.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe('3.1.0');
    const result = await new Validator().validate(res.json);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every API route with request and response schemas', async () => {
    const doc = (await h.call('GET', '/openapi.json')).json;
    const put = doc.paths['/api/v1/provider/users/{userId}/datapoints'].put;
    expect(put.requestBody.content['application/json'].schema.properties).toHaveProperty('datapoints');
    expect(put.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['userId', 'autoSync', 'noAutoSync']));
    expect(put.responses['200'].content['application/json'].schema.properties).toHaveProperty('firstName');
    expect(put.responses['400'].content).toHaveProperty('application/problem+json');
    expect(doc.paths['/api/v1/auth/token'].post.requestBody.content['application/json'].schema.required).toEqual(['clientId', 'clientSecret']);
    expect(doc.paths['/api/v1/provider/users/{userId}/sync'].post.responses).toHaveProperty('202');
    expect(doc.paths['/api/v1provider/users/{userId}/sync'].post.deprecated).toBe(true);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [path, item] of Object.entries<Record<string, { responses?: object }>>(doc.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const [method, op] of Object.entries(item)) expect(op.responses, `${method} ${path}`).toBeDefined();
    }
  });

  it('renders the docs page at /docs', async () => {
    const res = await fetch(`${h.url}/docs/`, { redirect: 'follow' });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/swagger/i);
  });

  it('serves the docs page assets (@fastify/static, with the engines-pinned content-disposition)', async () => {
    const res = await fetch(`${h.url}/docs/static/swagger-ui.css`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/css/);
    expect((await res.text()).length).toBeGreaterThan(1000);
  });
});
