// Runs the CLI as users do: a child process on the TypeScript sources (tsx), capturing its output.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'src/cli/main.ts');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], options: { stdin?: string; env?: Record<string, string | undefined> } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', MAIN, ...args],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', ...options.env } },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
    child.stdin?.end(options.stdin ?? '');
  });
}

/** The single-line error contract: `idsync: <code>: <message>`, nothing else on stderr. */
export const ERROR_LINE = /^idsync: [a-z_]+: [^\n]+\n$/;

export async function tempDir(): Promise<{ path: string; file(name: string): string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'idsync-cli-'));
  return { path, file: (name) => join(path, name), remove: () => rm(path, { recursive: true, force: true }) };
}
