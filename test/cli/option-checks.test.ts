// Options checked before a command starts: a URL of the wrong scheme, an option that needs a
// partner option, an input file that cannot be read. Each is a usage error (exit 2, one line on
// stderr), so that no URL of the wrong kind reaches a DID document or an invitation, and no
// unreadable input file reads as a verdict where exit 1 is one (`message check`,
// `conformance run`).
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseUrlOption, SMTP_SCHEMES } from '../../src/cli/url-option.js';
import { createPeerDid } from '../../src/did/peer.js';
import { configUrl } from '../../src/service/config/config-url.js';
import { runCli } from './run-cli.js';

const NOWHERE = '/nonexistent/never-created';

async function usage(args: string[], message: RegExp): Promise<void> {
  const run = await runCli(args);
  expect(run.code, args.join(' ')).toBe(2);
  expect(run.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
  expect(run.stderr, args.join(' ')).toMatch(message);
}

describe('URL options', () => {
  it('take only the schemes the option can use, with a host', () => {
    expect(parseUrlOption('--smtp', 'smtp://127.0.0.1:2525', SMTP_SCHEMES).port).toBe('2525');
    expect(() => parseUrlOption('--smtp', 'http://x', SMTP_SCHEMES)).toThrow('--smtp must be a URL of smtp, smtps: http://x');
    expect(() => parseUrlOption('--smtp', 'smtp://', SMTP_SCHEMES)).toThrow('--smtp names no host: smtp://');
    expect(() => parseUrlOption('--smtp', 'x', SMTP_SCHEMES)).toThrow('--smtp is not a URL: x');
    // The library refuses an SMTP URL without a host too: nodemailer would try localhost at the first e-mail.
    expect(() => configUrl('smtp://', 'smtp URL', ['smtp:'])).toThrow('smtp URL names no host');
  });

  it('are refused before anything starts by service, mediator and did create', async () => {
    await usage(['service', '--port', '0', '--smtp', 'http://x', '--data', NOWHERE], /^idsync: invalid_argument: --smtp must be a URL of smtp, smtps: http:\/\/x$/m);
    await usage(['service', '--port', '0', '--smtp', 'smtp://', '--data', NOWHERE], /^idsync: invalid_argument: --smtp names no host: smtp:\/\/$/m);
    await usage(['service', '--port', '0', '--public-url', 'ftp://x', '--data', NOWHERE], /--public-url must be a URL of http, https: ftp:\/\/x/);
    await usage(['service', '--port', '0', '--sms-gateway', 'mailto:a@b', '--data', NOWHERE], /--sms-gateway must be a URL of http, https/);
    await usage(['mediator', '--port', '0', '--public-url', 'ftp://x', '--data', NOWHERE], /^idsync: invalid_argument: --public-url must be a URL of http, https: ftp:\/\/x$/m);
    // A public URL is a base the servers append their paths to: a query, a fragment or a password
    // would end up inside every URL and DID they print (…/path?q%2Finvitation=&_oobid=…).
    for (const cmd of ['service', 'mediator']) {
      await usage([cmd, '--port', '0', '--public-url', 'http://127.0.0.1:1/path?q', '--data', NOWHERE], /^idsync: invalid_argument: --public-url is a base URL, without a query: http:\/\/127\.0\.0\.1:1\/path\?q$/m);
      await usage([cmd, '--port', '0', '--public-url', 'http://127.0.0.1:1/#x', '--data', NOWHERE], /^idsync: invalid_argument: --public-url is a base URL, without a fragment/m);
      const secret = await runCli([cmd, '--port', '0', '--public-url', 'http://me:secret@127.0.0.1:1', '--data', NOWHERE]);
      expect(secret.code).toBe(2);
      expect(secret.stderr).toMatch(/^idsync: invalid_argument: --public-url must not carry a user name or password/m);
      expect(secret.stderr).not.toContain('secret');
    }
    // DIDComm v2.1 §Service Endpoint: the uri "MUST contain a URI for a transport specified in the [transports] section".
    await usage(['did', 'create', '--method', 'peer', '--endpoint', 'ftp://x'], /^idsync: invalid_argument: --endpoint must be a URL of http, https, ws, wss: ftp:\/\/x$/m);
    const ws = await runCli(['did', 'create', '--method', 'peer', '--endpoint', 'wss://mediator.example/ws', '--json']);
    expect(ws.code).toBe(0);
  });
});

describe('options that need a partner', () => {
  it('are refused without it', async () => {
    await usage(['wallet', 'create', '--data', NOWHERE, '--mediator-form', 'routing-keys'], /^idsync: invalid_argument: --mediator-form needs --mediator/);
    await usage(['wallet', 'create', '--data', NOWHERE, '--mediation-version', '2.0'], /^idsync: invalid_argument: --mediation-version needs --mediator/);
    await usage(['wallet', 'serve', '--data', NOWHERE, '--console-port', '0'], /^idsync: invalid_argument: --console-port needs --console/);
  });
});

describe('input files of commands whose exit 1 is a verdict', () => {
  it('message check: a bad --profile or an unreadable file is exit 2, not "not conformant"', async () => {
    await usage(['message', 'check', '--profile', 'bogus', NOWHERE], /^idsync: invalid_argument: --profile must be liberal or strict, not bogus$/m);
    await usage(['message', 'check', join(NOWHERE, 'message.json')], /^idsync: file_not_found: /);
    await usage(['message', 'check', '-', '--secrets', join(NOWHERE, 'keys.json')], /^idsync: file_not_found: /);
  });

  it('conformance run: an --expect or --baseline that cannot be used is exit 2, not "a case failed"', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idsync-options-'));
    const bad = join(dir, 'expect.json');
    await writeFile(bad, '{}');
    const target = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';
    await usage(['conformance', 'run', '--target', target, '--expect', bad], /^idsync: invalid_argument: --expect .* must be a JSON array/);
    await usage(['conformance', 'run', '--target', target, '--expect', join(dir, 'none.json')], /^idsync: file_not_found: --expect /);
    await usage(['conformance', 'run', '--target', target, '--baseline', bad], /^idsync: \w+: --baseline /);
    await usage(['conformance', 'run', '--target', target, '--dids', join(dir, 'none.json')], /^idsync: file_not_found: /);
  });
});

describe('wallet create behind a mediator that grants nothing', () => {
  it('keeps nothing, so the same command can run again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idsync-options-'));
    const data = join(dir, 'w');
    // A well-formed mediator DID whose endpoint refuses connections: the store is opened first.
    const mediator = createPeerDid({ endpoint: 'http://127.0.0.1:1/didcomm' }).did;
    for (let attempt = 0; attempt < 2; attempt++) {
      const run = await runCli(['wallet', 'create', '--data', data, '--mediator', mediator]);
      expect(run.code, `attempt ${attempt}`).toBe(1);
      // The second attempt meets the same refusal, not wallet_exists.
      expect(run.stderr, `attempt ${attempt}`).toMatch(/^idsync: mediation_failed: /);
    }
    const status = await runCli(['wallet', 'status', '--data', data]);
    expect(status.stderr).toMatch(/^idsync: wallet_not_found: /);
    // Nor the folder the create made (and status does not make one).
    expect(existsSync(data)).toBe(false);
  });
});
