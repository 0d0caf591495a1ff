// Schema fields listed as string literals (a workflow's status, an outbox entry's status, a data
// profile field's key and format) type as those literals for a QA test: a union built from an
// array typed them `never`. Checked by compiling types/literal-types.check.ts with tsc.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';

function tsc(project: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: ROOT }, (err, stdout, stderr) => {
      resolve({ code: typeof err?.code === 'number' ? err.code : 0, output: stdout + stderr });
    });
  });
}

it('types literal-list schema fields as their literals', async () => {
  const run = await tsc(join(ROOT, 'test/testing/types/literal-tsconfig.json'));
  expect(run.output).toBe('');
  expect(run.code).toBe(0);
}, 60_000);
