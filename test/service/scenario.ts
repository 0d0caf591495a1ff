// A set of writes across the service's durable state, made over HTTP, and the check that it
// all reads back after a restart: users, datapoints, workflows, queued deliveries.
import { expect } from 'vitest';
import type { CallOptions, Reply } from './http-helpers.js';

type Call = (method: string, path: string, options?: CallOptions) => Promise<Reply>;

export interface Written {
  token: string;
  workflowId: string;
  webhookId: string;
}

function ok(res: Reply, what: string): Reply {
  if (res.status < 200 || res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res;
}

export async function writeScenario(call: Call, client: { clientId: string; clientSecret: string; projectId: string }): Promise<Written> {
  const token = ok(await call('POST', '/api/v1/auth/token', { body: { clientId: client.clientId, clientSecret: client.clientSecret } }), 'token').json.accessToken;
  ok(await call('PUT', '/api/v1/provider/users/durable-1', { token, body: { settings: { isSyncOn: true } } }), 'put user');
  ok(await call('PUT', '/api/v1/provider/users/durable-2', { token, body: {} }), 'put user 2');
  ok(await call('PUT', '/api/v1/provider/users/durable-1/datapoints', { token, body: { datapoints: { firstName: 'Dora', lastName: 'Rable', birthDate: '1980-05-06' } } }), 'datapoints');
  // Port 9 (discard) refuses connections: deliveries stay queued for retry.
  const webhookId = ok(await call('POST', '/admin/webhooks', { token, body: { url: 'http://127.0.0.1:9/hook' } }), 'webhook').json.id;
  ok(await call('POST', '/api/v1/provider/users/durable-1/invite', { token, body: {} }), 'invite');
  const wf = ok(await call('POST', '/api/v1/issuance-workflows', { token, body: { projectId: client.projectId, datapoints: { firstName: 'Dora', lastName: 'Rable', birthDate: '06/05/1980' } } }), 'workflow');
  const workflowId = wf.json.issuanceWorkflow.id;
  ok(await call('POST', `/api/v1/issuance-workflows/${workflowId}/send-invitation`, {
    token,
    body: { destinations: [{ channel: 'EMAIL', target: 'dora@example.com' }, { channel: 'SMS', target: '+4915112345678' }] },
  }), 'send');
  return { token, workflowId, webhookId };
}

export async function checkScenario(call: Call, written: Written): Promise<void> {
  const { token, workflowId, webhookId } = written;
  const users = await call('GET', '/api/v1/provider/users', { token });
  expect(users.status).toBe(200);
  expect(users.json.users.map((u: { userId: string }) => u.userId)).toEqual(['durable-1', 'durable-2']);
  expect(users.json.users[0].settings.isSyncOn).toBe(true);
  const dp = await call('GET', '/api/v1/provider/users/durable-1/datapoints', { token });
  expect(dp.json).toMatchObject({ firstName: 'Dora', lastName: 'Rable', birthDate: '1980-05-06' });
  const wf = await call('GET', `/api/v1/issuance-workflows/${workflowId}`, { token });
  expect(wf.status).toBe(200);
  expect(wf.json.issuanceWorkflow.id).toBe(workflowId);
  const outbox = await call('GET', `/dev/outbox?workflowId=${workflowId}`, { token });
  expect(outbox.json.entries.map((e: { channel: string }) => e.channel).sort()).toEqual(['EMAIL', 'SMS']);
  const deliveries = await call('GET', `/admin/webhooks/${webhookId}/deliveries`, { token });
  expect(deliveries.status).toBe(200);
  expect(deliveries.json.deliveries.length).toBeGreaterThan(0);
  expect(deliveries.json.deliveries.every((d: { state: string }) => d.state !== 'dead')).toBe(true);
}
