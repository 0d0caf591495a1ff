// `idsync service` flags for createService's limits and outbound endpoint policy: how the command
// line reads them, and that they reach the running service.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { limitOptions, parseSecretChecks, registerServiceCommand, runService, type ServiceCommandOptions } from '../../src/cli/commands/service.js';
import type { CliIo } from '../../src/cli/output.js';
import { isIdsyncError } from '../../src/errors.js';
import { tempDir } from './run-cli.js';

/** The options commander hands the action for `idsync service ...args`, without running it. */
async function parsed(args: string[]): Promise<ServiceCommandOptions> {
  const program = new Command('idsync').exitOverride();
  registerServiceCommand(program);
  let seen: ServiceCommandOptions | undefined;
  program.commands.find((c) => c.name() === 'service')!.action((opts: ServiceCommandOptions) => void (seen = opts));
  await program.parseAsync(['service', ...args], { from: 'user' });
  return seen!;
}

const quietIo: CliIo = { stdout: () => undefined, stderr: () => undefined, readStdin: async () => '' };

describe('idsync service limit and endpoint flags', () => {
  it('leaves every limit and the endpoint policy to createService without flags', async () => {
    expect(limitOptions(await parsed([]))).toEqual({});
  });

  it('reads the per-address limits, secret checks and endpoint policy', async () => {
    const opts = await parsed([
      '--rate-limit', 'off',
      '--didcomm-rate-limit', '50:10',
      '--token-rate-limit', 'off',
      '--secret-checks', '4:8',
      '--allow-private-endpoints',
      '--no-loopback-endpoints',
    ]);
    expect(limitOptions(opts)).toEqual({
      rateLimit: false,
      addressRateLimit: { didcomm: { burst: 50, perSecond: 10 }, token: false },
      secretChecks: { concurrency: 4, queue: 8 },
      outboundEndpoints: { allowPrivate: true, allowLoopback: false },
    });
  });

  it('names only the per-address limit a flag sets, so the other keeps its default', async () => {
    expect(limitOptions(await parsed(['--token-rate-limit', '30:2']))).toEqual({ addressRateLimit: { token: { burst: 30, perSecond: 2 } } });
    expect(limitOptions(await parsed(['--allow-private-endpoints']))).toEqual({ outboundEndpoints: { allowPrivate: true } });
  });

  it('refuses malformed values with usage errors naming the flag', () => {
    for (const [opts, flag] of [
      [{ didcommRateLimit: 'lots' }, '--didcomm-rate-limit'],
      [{ tokenRateLimit: '0:5' }, '--token-rate-limit'],
      [{ secretChecks: '0:4' }, '--secret-checks'],
      [{ secretChecks: '2' }, '--secret-checks'],
    ] as const) {
      let err: unknown;
      try {
        limitOptions({ port: '0', host: '127.0.0.1', data: '.', ...opts });
      } catch (e) {
        err = e;
      }
      expect(isIdsyncError(err) && err.code, flag).toBe('invalid_argument');
      expect(isIdsyncError(err) && err.details?.usage).toBe(true);
      expect((err as Error).message).toContain(flag);
    }
    expect(parseSecretChecks('1:0')).toEqual({ concurrency: 1, queue: 0 });
  });

  it('hands the endpoint policy to the running service', async () => {
    const dir = await tempDir();
    try {
      let policy: unknown;
      await runService(
        { port: '0', host: '127.0.0.1', data: dir.file('service'), allowPrivateEndpoints: true, loopbackEndpoints: false },
        { io: quietIo, env: {}, until: Promise.resolve(), onService: (service) => (policy = service.deps.outboundEndpoints) },
      );
      expect(policy).toEqual({ allowLoopback: false, allowPrivate: true });
    } finally {
      await dir.remove();
    }
  });

  it('reads --engine and hands it to the running service', async () => {
    expect((await parsed(['--engine', 'didcomm-node'])).engine).toBe('didcomm-node');
    await expect(parsed(['--engine', 'wasm'])).rejects.toThrow(/Allowed choices are native, didcomm-node/);
    const dir = await tempDir();
    try {
      let engine: unknown;
      await runService(
        { port: '0', host: '127.0.0.1', data: dir.file('service'), engine: 'didcomm-node' },
        { io: quietIo, env: {}, until: Promise.resolve(), onService: (service) => (engine = service.deps.envelopeEngine) },
      );
      expect(engine).toBe('didcomm-node');
    } finally {
      await dir.remove();
    }
  });
});
