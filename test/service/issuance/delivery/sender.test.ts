import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../../../src/clock.js';
import { openStore } from '../../../../src/store/store.js';
import { createOutbox } from '../../../../src/service/issuance/invitation-outbox.js';
import { recordingDidcommDelivery } from '../../../../src/service/issuance/delivery/didcomm.js';
import { createEmailSender } from '../../../../src/service/issuance/delivery/email.js';
import { createInvitationSender } from '../../../../src/service/issuance/delivery/sender.js';
import { createSmsSender } from '../../../../src/service/issuance/delivery/sms.js';
import type { Invitation } from '../../../../src/protocols/out-of-band.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const invitation: Invitation = {
  type: 'https://didcomm.org/out-of-band/2.0/invitation',
  id: 'inv-1',
  from: 'did:web:127.0.0.1',
  body: { goal_code: 'streamlined-vc', accept: ['didcomm/v2'] },
};
const url = 'http://127.0.0.1/connect?_oob=eyJ0eXBlIjoiIn0';

async function smtp() {
  const mails: { to: string[]; raw: string }[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
        waiters.shift()?.();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `smtp://127.0.0.1:${port}`, mails };
}

async function gateway(statuses: number[] = []) {
  const got: { body: unknown; contentType?: string }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')), contentType: req.headers['content-type'] });
      const status = statuses.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ messageId: `sms-${got.length}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  cleanup.push(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return { url: `http://127.0.0.1:${port}/sms`, got };
}

// RFC 2045 §6.7: soft line breaks and =XX escapes.
function quotedPrintable(raw: string): string {
  return raw.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

async function outbox() {
  const store = await openStore();
  cleanup.push(() => store.close());
  return createOutbox({ store, clock: new ManualClock(), ids: sequentialIds('ob') });
}

describe('invitation delivery', () => {
  it('only records when no transport is configured', async () => {
    const ob = await outbox();
    const sender = createInvitationSender({ outbox: ob });
    const results = await sender.send(
      [{ channel: 'EMAIL', target: 'a@example.com' }, { channel: 'SMS', target: '+15551234567' }, { channel: 'DIDCOMM', target: 'did:key:z6Mk' }],
      { invitation, invitationUrl: url, workflowId: 'wf-1' },
    );
    expect(results.map((r) => r.status)).toEqual(['recorded', 'recorded', 'recorded']);
    const entries = await ob.list({ workflowId: 'wf-1' });
    expect(entries.map((e) => [e.channel, e.to, e.status])).toEqual([
      ['EMAIL', 'a@example.com', 'recorded'],
      ['SMS', '+15551234567', 'recorded'],
      ['DIDCOMM', 'did:key:z6Mk', 'recorded'],
    ]);
    expect(entries[0].text).toContain(url);
    expect(entries[0].subject).toBeTruthy();
    expect(entries[1].text).toContain(url);
  });

  it('sends e-mail over SMTP and records it', async () => {
    const server = await smtp();
    const ob = await outbox();
    const email = createEmailSender({ smtpUrl: server.url, from: 'issuer@idsync.test' });
    cleanup.push(() => email.close());
    const [r] = await createInvitationSender({ outbox: ob, email }).send([{ channel: 'EMAIL', target: 'alice@example.com' }], {
      invitation,
      invitationUrl: url,
    });
    expect(r.status).toBe('sent');
    expect(server.mails).toHaveLength(1);
    expect(server.mails[0].to).toEqual(['alice@example.com']);
    expect(quotedPrintable(server.mails[0].raw)).toContain(url);
    expect((await ob.get(r.outboxId))?.messageId).toBeTruthy();
  });

  it('records a failed SMTP send with its error and does not throw', async () => {
    const ob = await outbox();
    // A port nothing listens on: connection refused.
    const email = createEmailSender({ smtpUrl: 'smtp://127.0.0.1:1', timeoutMs: 2_000 });
    cleanup.push(() => email.close());
    const [r] = await createInvitationSender({ outbox: ob, email }).send([{ channel: 'EMAIL', target: 'a@example.com' }], {
      invitation,
      invitationUrl: url,
    });
    expect(r.status).toBe('failed');
    expect(r.error?.code).toBe('email_send_failed');
    expect(await ob.get(r.outboxId)).toMatchObject({ status: 'failed', error: { code: 'email_send_failed' } });
  });

  it('refuses an SMTP or gateway URL that is not one, or of another scheme, with invalid_config at creation', () => {
    for (const [make, message] of [
      [() => createEmailSender({ smtpUrl: 'not a url' }), 'smtp URL is not a URL'],
      [() => createEmailSender({ smtpUrl: 'http://127.0.0.1:25' }), 'smtp URL must use smtp: or smtps:'],
      [() => createSmsSender({ gatewayUrl: '::' }), 'SMS gateway URL is not a URL'],
      [() => createSmsSender({ gatewayUrl: 'smtp://127.0.0.1:25' }), 'SMS gateway URL must use http: or https:'],
      // fetch refuses such a URL: every SMS would fail as "unreachable".
      [() => createSmsSender({ gatewayUrl: 'http://user:key@127.0.0.1:9/sms' }), 'SMS gateway URL must not carry a user name or password (give an API key as a header instead)'],
    ] as const) {
      expect(make).toThrow(expect.objectContaining({ code: 'invalid_config', message }));
    }
  });

  it('posts SMS to the gateway as JSON {to, text}', async () => {
    const gw = await gateway();
    const ob = await outbox();
    const sms = createSmsSender({ gatewayUrl: gw.url });
    const [r] = await createInvitationSender({ outbox: ob, sms }).send([{ channel: 'SMS', target: '+15551234567' }], {
      invitation,
      invitationUrl: url,
    });
    expect(r.status).toBe('sent');
    expect(gw.got).toHaveLength(1);
    expect(gw.got[0].contentType).toBe('application/json');
    expect(gw.got[0].body).toMatchObject({ to: '+15551234567' });
    expect((gw.got[0].body as { text: string }).text).toContain(url);
    expect((await ob.get(r.outboxId))?.messageId).toBe('sms-1');
  });

  it('records a gateway error as failed', async () => {
    const gw = await gateway([502]);
    const ob = await outbox();
    const [r] = await createInvitationSender({ outbox: ob, sms: createSmsSender({ gatewayUrl: gw.url }) }).send(
      [{ channel: 'SMS', target: '+15551234567' }],
      { invitation, invitationUrl: url },
    );
    expect(r).toMatchObject({ status: 'failed', error: { code: 'sms_send_failed' } });
  });

  it('reads a gateway answer within a bound, and follows no redirect (to a metadata address or anywhere)', async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? '');
      req.resume();
      if (req.url === '/endless') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (res.write(chunk)) if (res.destroyed) return;
          res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        return pump();
      }
      if (req.url === '/to-metadata') return res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (req.url === '/to-elsewhere') return res.writeHead(307, { location: '/elsewhere' }).end();
      res.writeHead(200).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(() => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const before = process.memoryUsage().rss;
    // Taken (2xx): the SMS is sent, its id is only not known.
    expect(await createSmsSender({ gatewayUrl: `${base}/endless` }).send({ to: '+15551234567', text: 'x' })).toEqual({});
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    for (const path of ['/to-metadata', '/to-elsewhere']) {
      await expect(createSmsSender({ gatewayUrl: `${base}${path}` }).send({ to: '+15551234567', text: 'x' })).rejects.toMatchObject({ code: 'sms_send_failed', message: 'SMS gateway answered HTTP 307' });
    }
    expect(hits).toEqual(['/endless', '/to-metadata', '/to-elsewhere']);
  });

  it('hands DIDCOMM destinations to the DIDComm delivery', async () => {
    const ob = await outbox();
    const rec = recordingDidcommDelivery();
    const [r] = await createInvitationSender({ outbox: ob, didcomm: rec.deliver }).send([{ channel: 'DIDCOMM', target: 'did:key:z6Mk' }], {
      invitation,
      invitationUrl: url,
    });
    expect(r.status).toBe('queued');
    expect(rec.sent).toEqual([{ targetDid: 'did:key:z6Mk', invitation }]);
    const delivered = createInvitationSender({ outbox: ob, didcomm: async () => 'delivered' });
    expect((await delivered.send([{ channel: 'DIDCOMM', target: 'did:key:z6Mk' }], { invitation, invitationUrl: url }))[0].status).toBe('sent');
  });
});
