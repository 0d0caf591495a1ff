import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./request-alone-main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('request() in a process with nothing else to do', () => {
  // `wallet create --mediator` through `idsync proxy --drop 1`: the mediate-request got a 202 and
  // no grant, and the CLI exited with status 13 and no line at all instead of mediation_failed.
  it('times out with a coded error instead of letting the process exit unanswered', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', MAIN], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    expect({ status: run.status, out: run.stdout.trim() }).toEqual({ status: 0, out: 'timeout' });
  });
});
