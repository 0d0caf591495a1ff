// The testing client's types name every datapoint: syncContext.datapointsSynced and
// datapointsLatest are the spec's nested datapoints ("User sync context"), not an object that
// knows only residentialAddress. Checked by compiling types/client-types.check.ts with tsc.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';

function tsc(project: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: ROOT }, (err, stdout, stderr) => {
      resolve({ code: typeof err?.code === 'number' ? err.code : 0, output: stdout + stderr });
    });
  });
}

describe("the testing client's datapoint types", () => {
  it('type syncContext datapoints as the nested datapoints', async () => {
    const run = await tsc(join(ROOT, 'test/testing/types/tsconfig.json'));
    expect(run.output).toBe('');
    expect(run.code).toBe(0);
  });
});
