// Long-running CLI processes for whole-flow tests across processes: start `idsync …` on the
// TypeScript sources, wait for a line on its stdout (event based), stop it with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { restartablePort } from '../../src/testing/restartable-port.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'src/cli/main.ts');

export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching `pattern` (already printed or still to come). */
  line(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export function startCli(args: string[], env: Record<string, string> = {}): RunningCli {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let closed = false;
  const waiters: Array<() => void> = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  // 'close' comes after the process exited and its output streams ended.
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      closed = true;
      resolve(code);
      wake();
    }),
  );
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString('utf8');
    wake();
  });
  child.stderr!.on('data', (d: Buffer) => void (err += d.toString('utf8')));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    line(pattern, timeoutMs = 25_000) {
      return new Promise((resolve, reject) => {
        // A guard only: the line arrives as output, and the wait ends as soon as it does.
        const timer = setTimeout(() => reject(new Error(`no stdout line matching ${pattern} within ${timeoutMs} ms; stdout: ${out.slice(-500)} stderr: ${err.slice(-500)}`)), timeoutMs);
        const check = () => {
          const hit = out.split('\n').find((l) => pattern.test(l));
          if (hit !== undefined) {
            clearTimeout(timer);
            resolve(hit);
          } else if (closed) {
            clearTimeout(timer);
            reject(new Error(`exited ${child.exitCode} before printing ${pattern}; stderr: ${err.slice(-500)}`));
          } else {
            waiters.push(check);
          }
        };
        check();
      });
    },
    async stop() {
      if (!closed) child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * A TCP port free right now on 127.0.0.1, for an endpoint published before anyone listens or a
 * server restarted on the same port (its did:web names it): below the kernel's ephemeral range
 * (restartable-port.ts says why), never the same twice in one test process.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = restartablePort();
    if (handed.has(port)) continue;
    if (await listensFree(port)) {
      handed.add(port);
      return port;
    }
  }
  throw new Error('no free port found below the ephemeral range');
}

const handed = new Set<number>();

function listensFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}
