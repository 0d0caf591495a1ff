import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.js';
import { createKeyDid } from '../../../src/did/key.js';
import { b64uDecodeText } from '../../../src/encoding.js';
import { CLIENT, expectProblem, startService, type Harness } from '../http-helpers.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '10/12/1815', nationality: 'GB' };

async function harness(options: Parameters<typeof startService>[0] = {}): Promise<Harness & { clock: ManualClock; all: string }> {
  const clock = new ManualClock(Date.now());
  const h = await startService({ clock, ...options });
  cleanup.push(() => h.close());
  return Object.assign(h, { clock, all: await h.token() });
}

async function create(h: Harness & { all: string }, body: Record<string, unknown> = {}) {
  return h.call('POST', '/api/v1/issuance-workflows', { token: h.all, body: { projectId: CLIENT.projectId, datapoints: DATAPOINTS, ...body } });
}

describe('issuance workflow API', () => {
  it('creates a workflow: 201 {issuanceWorkflow} with an OOB invitation URL under the public URL', async () => {
    const h = await harness();
    const res = await create(h, { userId: 'u-1', expiresIn: 60_000, statusChangeTerms: { status: 'REVOKED', statusUpdateTrigger: 'WORKFLOW_COMPLETION' } });
    expect(res.status).toBe(201);
    const wf = res.json.issuanceWorkflow;
    expect(wf).toMatchObject({ status: 'CREATED', projectId: CLIENT.projectId, userId: 'u-1', expiresIn: 60_000, datapoints: { birthDate: '1815-12-10' } });
    expect(wf.tenantId).toBeUndefined();
    expect(res.headers.get('location')).toBe(`/api/v1/issuance-workflows/${wf.id}`);
    const url = new URL(wf.invitationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${h.url}/connect`);
    const inv = JSON.parse(b64uDecodeText(url.searchParams.get('_oob')!));
    expect(inv).toMatchObject({ id: wf.invitation.id, from: h.service.deps.serviceDid, body: { goal_code: 'streamlined-vc' } });

    const got = await h.call('GET', `/api/v1/issuance-workflows/${wf.id}`, { token: h.all });
    expect(got.status).toBe(200);
    expect(got.json.issuanceWorkflow).toEqual(wf);
  });

  it('answers 400 with field errors for datapoints the profile rejects, 404 for an unknown project', async () => {
    const h = await harness();
    const bad = expectProblem(await create(h, { datapoints: { firstName: 'Ada', shoeSize: '42' } }), 400, 'invalid_datapoints');
    expect(bad.errors.map((e: { field: string }) => e.field).sort()).toEqual(['body/datapoints/birthDate', 'body/datapoints/lastName', 'body/datapoints/shoeSize']);
    expectProblem(await create(h, { projectId: 'nope' }), 404, 'project_not_found');
    const schema = expectProblem(await create(h, { expiresIn: 'soon' }), 400, 'invalid_request');
    expect(schema.errors[0].field).toBe('body/expiresIn');
    expectProblem(await create(h, { userDID: 'not-a-did' }), 400, 'invalid_request');
  });

  it('enforces the issuance scopes', async () => {
    const h = await harness();
    const sendOnly = await h.token(['send:issuance-workflows']);
    const createOnly = await h.token(['create:issuance-workflows']);
    expectProblem(await h.call('POST', '/api/v1/issuance-workflows', { token: sendOnly, body: { projectId: CLIENT.projectId, datapoints: DATAPOINTS } }), 403, 'insufficient_scope');
    const wf = (await h.call('POST', '/api/v1/issuance-workflows', { token: createOnly, body: { projectId: CLIENT.projectId, datapoints: DATAPOINTS } })).json.issuanceWorkflow;
    const send = { destinations: [{ channel: 'Email', target: 'a@example.com' }] };
    expectProblem(await h.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, { token: createOnly, body: send }), 403, 'insufficient_scope');
    expect((await h.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, { token: sendOnly, body: send })).status).toBe(200);
    expectProblem(await h.call('GET', `/api/v1/issuance-workflows/${wf.id}`), 401, 'unauthorized');
  });

  it('sends on combined channels, records every message in the dev outbox, and moves to INVITATION_SENT', async () => {
    const h = await harness();
    // The DIDComm agent resolves the DID; a did:key names no endpoint, so the invitation waits for pickup.
    const holder = createKeyDid().did;
    const wf = (await create(h, { userDID: holder })).json.issuanceWorkflow;
    const res = await h.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, {
      token: h.all,
      body: { destinations: [{ channel: 'DIDCOMM' }, { channel: 'Email', target: 'Ada@Example.com' }, { channel: 'sms', target: '+44 20 7946 0958' }] },
    });
    expect(res.status).toBe(200);
    expect(res.json.deliveries.map((d: { channel: string; to: string; status: string }) => [d.channel, d.to, d.status])).toEqual([
      ['DIDCOMM', holder, 'queued'],
      ['EMAIL', 'ada@example.com', 'recorded'],
      ['SMS', '+442079460958', 'recorded'],
    ]);
    expect(res.json.issuanceWorkflow.status).toBe('INVITATION_SENT');
    expect(res.json.issuanceWorkflow.destinations).toHaveLength(3);

    const outbox = await h.call('GET', '/dev/outbox?to=ada@example.com', { token: h.all });
    expect(outbox.status).toBe(200);
    expect(outbox.json.entries).toHaveLength(1);
    expect(outbox.json.entries[0]).toMatchObject({ channel: 'EMAIL', invitationUrl: wf.invitationUrl, workflowId: wf.id, status: 'recorded' });
    expect(outbox.json.entries[0].text).toContain(wf.invitationUrl);
    const sms = await h.call('GET', `/dev/outbox?to=${encodeURIComponent('+442079460958')}&channel=SMS`, { token: h.all });
    expect(sms.json.entries.map((e: { channel: string }) => e.channel)).toEqual(['SMS']);
    expectProblem(await h.call('GET', '/dev/outbox?channel=fax', { token: h.all }), 400, 'invalid_request');
    // Filters are looked up by index: a NUL, or a prefix of a real one, matches nothing and breaks nothing.
    for (const q of ['to=%00', 'workflowId=%00%00', `workflowId=${encodeURIComponent(wf.id.slice(0, 4))}`, 'to=ada@example.co']) {
      const none = await h.call('GET', `/dev/outbox?${q}`, { token: h.all });
      expect([none.status, none.json.entries]).toEqual([200, []]);
    }
    expectProblem(await h.call('GET', '/dev/outbox', { token: await h.token(['send:issuance-workflows']) }), 403, 'insufficient_scope');
  });

  it('validates destinations: 400 invalid_destination with a field per bad entry', async () => {
    const h = await harness();
    const wf = (await create(h)).json.issuanceWorkflow;
    const res = await h.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, {
      token: h.all,
      body: { destinations: [{ channel: 'DIDCOMM' }, { channel: 'EMAIL', target: 'nope' }, { channel: 'SMS', target: '12345' }, { channel: 'FAX', target: 'x' }] },
    });
    const p = expectProblem(res, 400, 'invalid_destination');
    expect(p.errors.map((e: { field: string }) => e.field)).toEqual([
      'body/destinations/0/target',
      'body/destinations/1/target',
      'body/destinations/2/target',
      'body/destinations/3/channel',
    ]);
    expectProblem(await h.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, { token: h.all, body: { destinations: [] } }), 400, 'invalid_request');
    expectProblem(await h.call('POST', '/api/v1/issuance-workflows/nope/send-invitation', { token: h.all, body: { destinations: [{ channel: 'EMAIL', target: 'a@example.com' }] } }), 404, 'workflow_not_found');
  });

  it('answers 409 when sending for an expired workflow', async () => {
    const h = await harness();
    const wf = (await create(h, { expiresIn: 1_000 })).json.issuanceWorkflow;
    h.clock.advance(1_000);
    const p = expectProblem(
      await h.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, { token: h.all, body: { destinations: [{ channel: 'EMAIL', target: 'a@example.com' }] } }),
      409,
      'invalid_transition',
    );
    expect(p.status).toBe(409);
    expect((await h.call('GET', `/api/v1/issuance-workflows/${wf.id}`, { token: h.all })).json.issuanceWorkflow).toMatchObject({ status: 'EXPIRED', failure: { code: 'expired' } });
  });

  it('lists workflows with filters and cursor paging', async () => {
    const h = await harness();
    const ids: string[] = [];
    for (const userId of ['a', 'b', 'a']) {
      ids.push((await create(h, { userId })).json.issuanceWorkflow.id);
      h.clock.advance(1);
    }
    const p1 = await h.call('GET', '/api/v1/issuance-workflows?limit=2', { token: h.all });
    expect(p1.json.counts.total).toBe(3);
    expect(p1.json.issuanceWorkflows.map((w: { id: string }) => w.id)).toEqual(ids.slice(0, 2));
    const p2 = await h.call('GET', `/api/v1/issuance-workflows?limit=2&cursor=${p1.json.paging.nextCursor}`, { token: h.all });
    expect(p2.json.issuanceWorkflows.map((w: { id: string }) => w.id)).toEqual([ids[2]]);
    expect(p2.json.paging.nextCursor).toBeUndefined();
    const filtered = await h.call('GET', '/api/v1/issuance-workflows?userId=a&status=CREATED', { token: h.all });
    expect(filtered.json.issuanceWorkflows.map((w: { id: string }) => w.id)).toEqual([ids[0], ids[2]]);
    expectProblem(await h.call('GET', '/api/v1/issuance-workflows?cursor=bm9wZQ', { token: h.all }), 400, 'invalid_request');
    expectProblem(await h.call('GET', '/api/v1/issuance-workflows?status=DONE', { token: h.all }), 400, 'invalid_request');
  });

  it('delivers by SMTP and the SMS gateway when configured, and records failures without a 500', async () => {
    const mails: string[] = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, cb) {
        stream.on('data', () => {});
        stream.on('end', () => {
          mails.push(session.envelope.rcptTo[0].address);
          cb();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => smtp.close(() => r())));
    const smsBodies: unknown[] = [];
    let smsStatus = 200;
    const gw = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        smsBodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(smsStatus).end('{}');
      });
    });
    await new Promise<void>((r) => gw.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => { gw.closeAllConnections(); gw.close(() => r()); }));
    const h = await harness({
      smtpUrl: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
      smsGatewayUrl: `http://127.0.0.1:${(gw.address() as AddressInfo).port}/send`,
    });
    const wf = (await create(h)).json.issuanceWorkflow;
    const send = (body: unknown) => h.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, { token: h.all, body });
    const ok = await send({ destinations: [{ channel: 'EMAIL', target: 'ada@example.com' }, { channel: 'SMS', target: '+15551234567' }] });
    expect(ok.json.deliveries.map((d: { status: string }) => d.status)).toEqual(['sent', 'sent']);
    expect(mails).toEqual(['ada@example.com']);
    expect(smsBodies[0]).toMatchObject({ to: '+15551234567' });
    smsStatus = 500;
    const failed = await send({ destinations: [{ channel: 'SMS', target: '+15551234567' }] });
    expect(failed.status).toBe(200);
    expect(failed.json.deliveries[0]).toMatchObject({ status: 'failed', error: { code: 'sms_send_failed' } });
    const entries = (await h.call('GET', '/dev/outbox?channel=SMS', { token: h.all })).json.entries;
    expect(entries.map((e: { status: string }) => e.status)).toEqual(['sent', 'failed']);
  });

  it('records an SMS sent while the workflow expired, and answers with it: no 409 hiding a message that went out', async () => {
    const sms: unknown[] = [];
    let clock!: ManualClock;
    // The gateway takes the text, and the workflow's time runs out before it answers.
    const gw = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        sms.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        clock.advance(120_000);
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((r) => gw.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => { gw.closeAllConnections(); gw.close(() => r()); }));
    const h = await harness({ smsGatewayUrl: `http://127.0.0.1:${(gw.address() as AddressInfo).port}/send` });
    clock = h.clock;
    const wf = (await create(h, { expiresIn: 60_000 })).json.issuanceWorkflow;
    const sent = await h.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, { token: h.all, body: { destinations: [{ channel: 'SMS', target: '+15551234567' }] } });
    expect(sent.status).toBe(200);
    expect(sms).toHaveLength(1);
    expect(sent.json.deliveries.map((d: { status: string }) => d.status)).toEqual(['sent']);
    expect(sent.json.issuanceWorkflow).toMatchObject({ status: 'EXPIRED', destinations: [expect.objectContaining({ channel: 'SMS', status: 'sent' })] });
    // Once final, a new send-invitation is refused before anything goes out.
    expectProblem(await h.call('POST', `/api/v1/issuance-workflows/${wf.id}/send-invitation`, { token: h.all, body: { destinations: [{ channel: 'SMS', target: '+15551234567' }] } }), 409, 'invalid_transition');
    expect(sms).toHaveLength(1);
  });
});
