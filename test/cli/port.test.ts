// Every command that listens reads its port the same way: a whole number 0-65535 (0: any free
// port), anything else one line on stderr naming the flag, and exit status 2.
import { describe, expect, it } from 'vitest';
import { parseHost, parsePort } from '../../src/cli/port.js';
import { runCli } from './run-cli.js';

describe('a port on the command line', () => {
  it('takes 0-65535 and refuses the rest', () => {
    expect(parsePort('--port', '0')).toBe(0);
    expect(parsePort('--port', '65535')).toBe(65535);
    for (const bad of ['65536', '-1', '80.5', 'http', '', ' ', '0x50', '1e3']) expect(() => parsePort('--port', bad), bad).toThrow(/--port must be a port 0-65535/);
  });

  it('is refused the same way by service, mediator, wallet serve and proxy', async () => {
    const runs: Array<[string[], string]> = [
      [['service', '--port', '70000', '--data', '/nonexistent/never-created'], '--port'],
      [['mediator', '--port', 'x', '--data', '/nonexistent/never-created'], '--port'],
      [['wallet', 'serve', '--port', '-1', '--data', '/nonexistent/never-created'], '--port'],
      [['wallet', 'serve', '--console', '--console-port', '1e9', '--data', '/nonexistent/never-created'], '--console-port'],
      [['proxy', '--listen', '99999', '--target', 'http://127.0.0.1:1'], '--listen'],
    ];
    for (const [args, flag] of runs) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(run.stderr, args.join(' ')).toContain(`idsync: invalid_argument: ${flag} must be a port 0-65535`);
    }
  });

  it('refuses an empty --host (node would listen on every interface) in every command that listens', async () => {
    expect(parseHost(' 127.0.0.1 ')).toBe('127.0.0.1');
    for (const bad of ['', '  ', 'a b']) expect(() => parseHost(bad), bad).toThrow(/--host must be an address or host name/);
    for (const args of [
      ['service', '--port', '0', '--host', '', '--data', '/nonexistent/never-created'],
      ['mediator', '--port', '0', '--host', '', '--data', '/nonexistent/never-created'],
      ['wallet', 'serve', '--host', '', '--data', '/nonexistent/never-created'],
      ['proxy', '--listen', '0', '--host', '', '--target', 'http://127.0.0.1:1'],
    ]) {
      const run = await runCli(args);
      expect(run.code, args[0]).toBe(2);
      expect(run.stderr, args[0]).toMatch(/^idsync: invalid_argument: --host must be an address or host name to listen on/);
    }
  });
});

