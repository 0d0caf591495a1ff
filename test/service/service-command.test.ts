import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parseDuration, parseRateLimit, registerServiceCommand, runService, type ServiceCommandOptions } from '../../src/cli/commands/service.js';
import type { Service } from '../../src/service/app.js';
import type { ServiceDidcommAgent } from '../../src/service/didcomm/agent.js';
import { CLIENT, callUrl } from './http-helpers.js';
import { isIdsyncError } from '../../src/errors.js';
import type { CliIo } from '../../src/cli/output.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/service-fixtures.json', import.meta.url));

function bufferIo(): CliIo & { out: string[] } {
  const out: string[] = [];
  return { out, stdout: (t) => void out.push(t), stderr: (t) => void out.push(t), readStdin: async () => '' };
}

describe('idsync service command', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'idsync-cmd-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const opts = (extra: Partial<ServiceCommandOptions> = {}): ServiceCommandOptions => ({ port: '0', host: '127.0.0.1', data: join(dir, 'data'), ...extra });

  it('is registered with its options', () => {
    const program = new Command('idsync');
    registerServiceCommand(program);
    const cmd = program.commands.find((c) => c.name() === 'service');
    expect(cmd?.options.map((o) => o.long)).toEqual(
      expect.arrayContaining(['--port', '--host', '--data', '--public-url', '--fixtures', '--smtp', '--sms-gateway', '--invitation-ttl']),
    );
  });

  it('serves with fixtures and a public URL until told to stop, then closes the store', async () => {
    const io = bufferIo();
    let stop!: () => void;
    const until = new Promise<void>((r) => (stop = r));
    let seen = '';
    const done = runService(opts({ fixtures: FIXTURES, publicUrl: 'https://idsync.example/' }), {
      io,
      env: {},
      until,
      onListening: (url) => {
        seen = url;
        stop();
      },
    });
    await done;
    expect(seen).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const text = io.out.join('');
    expect(text).toContain('DID did:web:idsync.example');
    expect(text).not.toContain('IDSYNC_CLIENT_SECRET');
    // The store was closed: a second run can open it.
    await runService(opts(), { io: bufferIo(), env: {}, until: Promise.resolve() });
  });

  it('refuses bad arguments with usage errors and a bad fixtures file with invalid_config', async () => {
    const run = (o: Partial<ServiceCommandOptions>) => runService(opts(o), { io: bufferIo(), env: {}, until: Promise.resolve() }).catch((e: unknown) => e);
    for (const [o, code] of [
      [{ port: '70000' }, 'invalid_argument'],
      [{ publicUrl: 'not a url' }, 'invalid_argument'],
      [{ rateLimit: 'lots' }, 'invalid_argument'],
      [{ fixtures: join(dir, 'missing.json') }, 'invalid_config'],
    ] as const) {
      const err = await run(o);
      expect(isIdsyncError(err) && err.code).toBe(code);
    }
    await writeFile(join(dir, 'bad.json'), '{nope');
    const err = await run({ fixtures: join(dir, 'bad.json') });
    expect(isIdsyncError(err) && err.code).toBe('invalid_config');
  });

  it('refuses fixtures that list a tenant, client, project or data profile twice, before writing any of them', async () => {
    const client = (clientId: string) => ({ clientId, clientSecret: 'secret-123' });
    const cases: Array<[unknown, string]> = [
      [{ tenants: [{ id: 'acme' }, { id: 'acme', name: 'again' }] }, 'tenant acme is listed twice'],
      // The same client under two tenants: before, the first tenant was written and the second refused.
      [{ tenants: [{ id: 'acme', clients: [client('qa')] }, { id: 'other', clients: [client('qa')] }] }, 'client qa is listed twice'],
      [{ tenants: [{ id: 'acme', projects: [{ id: 'p' }, { id: 'p', name: 'again' }] }] }, 'tenant acme: project p is listed twice'],
      [{ tenants: [{ id: 'acme', dataProfiles: [{ id: 'd', name: 'D', fields: [{ key: 'firstName', required: true }] }, { id: 'd', name: 'D2', fields: [{ key: 'lastName', required: true }] }] }] }, 'tenant acme: data profile d is listed twice'],
    ];
    for (const [fixtures, message] of cases) {
      const data = join(dir, `dup-${cases.findIndex((c) => c[0] === fixtures)}`);
      const file = join(dir, 'dup.json');
      await writeFile(file, JSON.stringify(fixtures));
      const err = await runService(opts({ fixtures: file, data }), { io: bufferIo(), env: {}, until: Promise.resolve() }).catch((e: unknown) => e);
      expect(isIdsyncError(err) && err.code, message).toBe('invalid_config');
      expect((err as Error).message, message).toBe(`invalid fixtures: ${message}`);
    }
    // Nothing was written: the same folder then serves the file without the duplicate.
    const file = join(dir, 'once.json');
    await writeFile(file, JSON.stringify({ tenants: [{ id: 'other', clients: [client('qa')] }] }));
    await runService(opts({ fixtures: file, data: join(dir, 'dup-1') }), { io: bufferIo(), env: {}, until: Promise.resolve() });
  });

  it('runs the DIDComm agent and hands --smtp and --sms-gateway to invitation delivery; stopping closes agent and store', async () => {
    const mails: string[] = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        stream.on('data', () => undefined);
        stream.on('end', () => {
          mails.push(...session.envelope.rcptTo.map((r) => r.address));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const sms: unknown[] = [];
    const gateway = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        sms.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"messageId":"m-1"}');
      });
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    try {
      let stop!: () => void;
      const until = new Promise<void>((r) => (stop = r));
      let service: Service | undefined;
      let url = '';
      let listening!: () => void;
      const ready = new Promise<void>((r) => (listening = r));
      const run = runService(
        opts({
          data: join(dir, 'delivery'),
          smtp: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
          smsGateway: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/sms`,
          invitationTtl: '2d',
        }),
        {
          io: bufferIo(),
          env: { IDSYNC_CLIENT_ID: CLIENT.clientId, IDSYNC_CLIENT_SECRET: CLIENT.clientSecret, IDSYNC_PROJECT_ID: CLIENT.projectId },
          until,
          onService: (s) => (service = s),
          onListening: (u) => {
            url = u;
            listening();
          },
        },
      );
      await Promise.race([ready, run]);
      const agent = service!.deps.agent as ServiceDidcommAgent;
      expect(typeof agent.router.receive).toBe('function');
      expect(service!.deps.invitationTtlMs).toBe(2 * 86_400_000);
      let agentClosed = false;
      const close = agent.close.bind(agent);
      agent.close = async () => {
        await close();
        agentClosed = true;
      };

      const token = (await callUrl(url, 'POST', '/api/v1/auth/token', { body: { clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret } })).json.accessToken;
      const created = await callUrl(url, 'POST', '/api/v1/issuance-workflows', { token, body: { projectId: CLIENT.projectId, datapoints: { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' } } });
      expect(created.status).toBe(201);
      const sent = await callUrl(url, 'POST', `/api/v1/issuance-workflows/${created.json.issuanceWorkflow.id}/send-invitation`, {
        token,
        body: { destinations: [{ channel: 'EMAIL', target: 'ada@example.com' }, { channel: 'SMS', target: '+44 20 7946 0958' }] },
      });
      expect(sent.status).toBe(200);
      expect(sent.json.deliveries.map((d: { channel: string; status: string }) => [d.channel, d.status])).toEqual([['EMAIL', 'sent'], ['SMS', 'sent']]);
      expect(mails).toEqual(['ada@example.com']);
      expect(sms).toEqual([expect.objectContaining({ to: '+442079460958' })]);

      stop();
      await run;
      expect(agentClosed).toBe(true);
      // The store was closed: a second run can open it.
      await runService(opts({ data: join(dir, 'delivery') }), { io: bufferIo(), env: {}, until: Promise.resolve() });
    } finally {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      gateway.closeAllConnections();
      await new Promise<void>((resolve) => gateway.close(() => resolve()));
    }
  });

  it('parses --invitation-ttl durations', () => {
    expect(parseDuration('--invitation-ttl', undefined)).toBeUndefined();
    expect(parseDuration('--invitation-ttl', '30d')).toBe(30 * 86_400_000);
    expect(parseDuration('--invitation-ttl', '12h')).toBe(12 * 3_600_000);
    expect(parseDuration('--invitation-ttl', '60000')).toBe(60_000);
    for (const bad of ['0', '-1d', 'soon', '5y']) {
      const err = (() => {
        try {
          parseDuration('--invitation-ttl', bad);
        } catch (e) {
          return e;
        }
      })();
      expect(isIdsyncError(err) && err.code).toBe('invalid_argument');
    }
  });

  it('parses --rate-limit', () => {
    expect(parseRateLimit(undefined)).toBeUndefined();
    expect(parseRateLimit('off')).toBe(false);
    expect(parseRateLimit('10:2.5')).toEqual({ burst: 10, perSecond: 2.5 });
  });
});
