// An empty --data names no folder: refused, where it used to mean the working folder (a wallet
// made in ./store, a service run in memory without a word).
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './run-cli.js';
import { join } from 'node:path';

describe('an empty --data', () => {
  it('is refused by the wallet commands (exit 2) and by the servers, and nothing is written', async () => {
    for (const args of [['wallet', 'create'], ['wallet', 'serve'], ['wallet', 'status'], ['wallet', 'credentials']]) {
      const run = await runCli([...args, '--data', '']);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(/^idsync: invalid_argument: --data must name the wallet's folder: it is empty\n$/);
    }
    for (const command of ['service', 'mediator']) {
      const run = await runCli([command, '--port', '0', '--data', '']);
      expect(run.code, command).toBe(1);
      expect(run.stderr, command).toMatch(/^idsync: folder_unusable: no folder given: the name is empty\n$/);
    }
    expect(existsSync(join(ROOT, 'store'))).toBe(false);
    expect(existsSync('store')).toBe(false);
  });
});
