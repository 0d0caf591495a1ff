import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRateLimit, registerServiceCommand, runService, type ServiceCommandOptions } from '../../src/cli/commands/service.js';
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
      expect.arrayContaining(['--port', '--host', '--data', '--public-url', '--fixtures', '--smtp', '--sms-gateway']),
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

  it('parses --rate-limit', () => {
    expect(parseRateLimit(undefined)).toBeUndefined();
    expect(parseRateLimit('off')).toBe(false);
    expect(parseRateLimit('10:2.5')).toEqual({ burst: 10, perSecond: 2.5 });
  });
});
