// The service over real HTTP on 127.0.0.1 (createService with the DIDComm agent from its
// `agent: (deps) => …` factory), driven through the REST API, with hand-written holders that resolve the
// service's did:web over HTTP: one with its own HTTP endpoint, one that collects by pickup.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { httpTransport, startHttpEndpoint, type HttpEndpoint } from '../../../src/didcomm/transport/http.js';
import { b64uDecodeText } from '../../../src/encoding.js';
import { wsTransport, type WsTransport } from '../../../src/didcomm/transport/ws.js';
import { createPing } from '../../../src/protocols/trust-ping.js';
import { createService, type Service } from '../../../src/service/app.js';
import type { ServiceEvent } from '../../../src/service/context.js';
import { createServiceAgent, type ServiceDidcommAgent } from '../../../src/service/didcomm/agent.js';
import { openStore, type Store } from '../../../src/store/store.js';
import { CLIENT, DATAPOINTS, named, PROJECT } from './harness.js';
import { createHolder, type Holder } from './holder.js';

interface Env {
  store: Store;
  service: Service;
  agent: ServiceDidcommAgent;
  url: string;
  webhooks: ServiceEvent[];
  endpoints: HttpEndpoint[];
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  holder(o?: { offline?: boolean; ws?: boolean }): Promise<Holder>;
}

let env: Env;
let sockets: WsTransport[] = [];
beforeEach(async () => {
  const store = await openStore();
  const webhooks: ServiceEvent[] = [];
  // The seam: createService builds the agent from the finished deps (it reads the DID lazily, so listen() may follow).
  let agent: ServiceDidcommAgent | undefined;
  const service = await createService({
    store, env: CLIENT, rateLimit: false,
    agent: (deps) => (agent = createServiceAgent(deps)),
    events: { emit: async (e) => void webhooks.push(e) },
  });
  const url = await service.listen({ port: 0, host: '127.0.0.1' });
  const raw = async (method: string, path: string, body?: unknown, token?: string) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
  const token = (await raw('POST', '/api/v1/auth/token', { clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret })).json.accessToken as string;
  const endpoints: HttpEndpoint[] = [];
  sockets = [];
  env = {
    store, service, agent: agent!, url, webhooks, endpoints,
    call: (method, path, body) => raw(method, path, body, token),
    async holder(o = {}) {
      let holder: Holder | undefined;
      const endpoint = o.offline ? undefined : await startHttpEndpoint({ port: 0, handler: (p, i) => holder!.router.inbound(p, i) });
      if (endpoint) endpoints.push(endpoint);
      const ws = o.ws ? wsTransport({ onInbound: (p, i) => holder!.router.inbound(p, i) }) : undefined;
      if (ws) sockets.push(ws);
      holder = createHolder({
        clock: systemClock,
        transport: ws ?? httpTransport(),
        serviceEndpoint: ws ? `${url.replace(/^http/, 'ws')}/didcomm` : `${url}/didcomm`,
        ...(endpoint ? { endpoint: endpoint.url } : {}),
        serviceDid: () => service.deps.serviceDid,
      });
      return holder;
    },
  };
});
afterEach(async () => {
  for (const s of sockets) await s.close();
  for (const e of env.endpoints) await e.close();
  await env.service.close();
  await env.store.close();
});

const decodeOob = (url: string) => JSON.parse(b64uDecodeText(new URL(url).searchParams.get('_oob')!));

async function invited(userId: string) {
  expect((await env.call('PUT', `/api/v1/provider/users/${userId}`, { settings: { isSyncOn: true } })).status).toBeLessThan(300);
  expect((await env.call('PUT', `/api/v1/provider/users/${userId}/datapoints?autoSync=false`, { datapoints: DATAPOINTS })).status).toBe(200);
  const invite = await env.call('POST', `/api/v1/provider/users/${userId}/invite`, {});
  expect(invite.status).toBe(200);
  return decodeOob(invite.json.invitationUrl);
}

describe('over HTTP', () => {
  it('Data Pipe, manual sync, verified credential, user synced and linked', async () => {
    const holder = await env.holder();
    const invitation = await invited('u1');
    await holder.acceptDataPipe(invitation);
    // DATA_PIPE_INITIATED {thid: invitation id, userId} on invite; DATA_PIPE_ESTABLISHED {thid: request id, userId, pthid: invitation id}.
    expect(named(env.webhooks, 'DATA_PIPE_INITIATED').map((e) => e.params)).toEqual([{ thid: invitation.id, userId: 'u1' }]);
    expect(named(env.webhooks, 'DATA_PIPE_ESTABLISHED').map((e) => e.params)).toEqual([{ thid: expect.any(String), userId: 'u1', pthid: invitation.id }]);
    const user = (await env.call('GET', '/api/v1/provider/users/u1')).json;
    expect(user).toMatchObject({ userDID: holder.did.did, shortUserDID: holder.did.shortDid });
    expect((await env.call('POST', '/api/v1/provider/users/u1/invite', {})).json).toMatchObject({ isSessionEstablished: true });

    const done = env.agent.waitFor('sync-completed');
    const started = await env.call('POST', '/api/v1/provider/users/u1/sync');
    expect(started.status).toBe(202);
    expect(await done).toMatchObject({ operationId: started.json.operationId });
    expect(holder.credentials[0].result.verified).toBe(true);

    const context = (await env.call('GET', '/api/v1/provider/users/u1/sync-context')).json;
    expect(context).toMatchObject({ isSyncOn: true, isSessionEstablished: true, isLinked: true });
    const after = (await env.call('GET', '/api/v1/provider/users/u1')).json;
    expect(after.syncContext.datapointsSynced).toEqual(after.syncContext.datapointsLatest);
    expect(named(env.webhooks, 'DATA_PIPE_ESTABLISHED', 'DATA_SYNC_STARTED', 'DATA_SYNC_COMPLETED').map((e) => e.event)).toEqual([
      'DATA_PIPE_ESTABLISHED',
      'DATA_SYNC_STARTED',
      'DATA_SYNC_COMPLETED',
    ]);
  });

  it('an issuance workflow sent by DIDCOMM completes when the holder answers the invitation', async () => {
    const holder = await env.holder();
    const created = await env.call('POST', '/api/v1/issuance-workflows', { projectId: PROJECT, datapoints: DATAPOINTS });
    expect(created.status).toBe(201);
    const wf = created.json.issuanceWorkflow;
    const invitation = new Promise<{ id: string; from: string }>((resolve) =>
      holder.router.events.on('received', (e: { message: { type: string; id: string; from: string } }) => {
        if (e.message.type.endsWith('/out-of-band/2.0/invitation')) resolve(e.message);
      }),
    );
    const sent = await env.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, { destinations: [{ channel: 'DIDCOMM', target: holder.did.did }] });
    expect(sent.status).toBeLessThan(300);
    expect(sent.json.issuanceWorkflow.destinations[0]).toMatchObject({ channel: 'DIDCOMM', status: 'sent' });
    const done = env.agent.waitFor('workflow-completed');
    await holder.propose(await invitation);
    await done;
    const after = (await env.call('GET', `/api/v1/issuance-workflows/${wf.id}`)).json.issuanceWorkflow;
    expect(after).toMatchObject({ status: 'COMPLETED', credentialId: holder.credentials[0].id });
  });

  it('a holder without an endpoint collects over HTTP with pickup; live mode over HTTP is refused', async () => {
    const holder = await env.holder({ offline: true });
    await holder.acceptDataPipe(await invited('u2'));
    const done = env.agent.waitFor('sync-completed');
    expect((await env.call('POST', '/api/v1/provider/users/u2/sync')).status).toBe(202);
    await env.agent.idle();
    expect(await env.agent.queue.count(holder.did.did)).toBe(1);
    // Any message with return_route "all" and no answer of its own brings the oldest queued one back.
    const asked = holder.router.waitFor('received', (e: { message: { type: string } }) => e.message.type.endsWith('/request-presentation'));
    await holder.send(createPing({ responseRequested: false }, { clock: systemClock }));
    await asked;
    await env.agent.idle();
    // The presentation went back; what waits now is the next step, the offer.
    expect((await env.agent.queue.list(holder.did.did)).map((q) => q.type)).toEqual(['https://didcomm.org/issue-credential/3.0/offer-credential']);
    await env.agent.idle();
    for (let i = 0; i < 5 && holder.credentials.length === 0; i++) {
      await holder.pickup();
      await env.agent.idle();
    }
    await done;
    expect((await env.call('GET', '/api/v1/provider/users/u2/sync-context')).json.isLinked).toBe(true);
    const problem = new Promise((resolve) => holder.events.once('problem', resolve));
    await holder.goLive();
    expect(await problem).toMatchObject({ code: 'e.m.live-mode-not-supported' });
  });

  it('over a WebSocket in live mode, messages arriving for the wallet are pushed on its socket', async () => {
    const holder = await env.holder({ offline: true, ws: true });
    await holder.acceptDataPipe(await invited('u3'));
    const status = new Promise<{ liveDelivery?: boolean }>((resolve) => holder.events.once('pickup-status', resolve));
    await holder.goLive();
    expect(await status).toMatchObject({ messageCount: 0, liveDelivery: true });
    const pushed = env.agent.waitFor<{ type: string; via: string }>('message-delivered', (e) => e.via === 'live');
    const done = env.agent.waitFor('sync-completed');
    expect((await env.call('POST', '/api/v1/provider/users/u3/sync')).status).toBe(202);
    expect(await pushed).toMatchObject({ type: 'https://didcomm.org/present-proof/3.0/request-presentation' });
    await done;
    expect(holder.credentials[0].result.verified).toBe(true);
    expect(await env.agent.queue.count(holder.did.did)).toBe(0);
  });
});
