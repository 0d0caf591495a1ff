// Long-running CLI processes for whole-flow tests across processes: start `idsync …` on the
// TypeScript sources, wait for a line on its stdout (event based), stop it with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
 * server restarted on the same port (its did:web names it). The port is chosen below the kernel's
 * ephemeral range: a port from that range (what listen(0) gives) can be taken in the meantime as
 * the local end of any outbound connection on the machine (parallel tests make thousands), and a
 * restart on it then fails with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  const low = Math.min(ephemeralLow(), 65_536);
  const from = Math.min(10_000, low - 1_000);
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (handed.has(port)) continue;
    if (await listensFree(port)) {
      handed.add(port);
      return port;
    }
  }
  throw new Error(`no free port found in ${from}–${low - 1}`);
}

/** Ports already handed out by this test file's process, never handed twice. */
const handed = new Set<number>();

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 11_000 ? low : 32_768;
  } catch {
    return 32_768; // Linux's default lower bound; other systems' ranges start higher.
  }
}

function listensFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}
