// Runs the CLI and captures its output. By default in this process: `run(args, io)` from
// src/cli/program.ts is everything main.ts does apart from handing it process.argv and setting
// process.exitCode, and a child process costs ~0.85 s (tsx start-up) where the command itself
// takes milliseconds. `{ process: true }` runs it as users do, a child process on the TypeScript
// sources: for what only a process shows (exit status as the shell sees it, real stdin/stdout,
// the command ending by itself); test/cli/process-contract.test.ts and test/e2e keep those.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../../src/cli/output.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'src/cli/main.ts');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  stdin?: string;
  /**
   * Variables added to the environment. In-process they reach commands as io.env only: a command
   * that reads one of them from process.env instead fails the run (it would see the wrong value).
   */
  env?: Record<string, string | undefined>;
  /** Run `node --import tsx src/cli/main.ts` in a child process instead of in this one. */
  process?: boolean;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  // Relative paths in arguments mean ROOT (the child's cwd); in-process they mean our cwd.
  return options.process || resolve(process.cwd()) !== resolve(ROOT) ? runCliProcess(args, options) : runCliInProcess(args, options);
}

export function runCliProcess(args: string[], options: Omit<CliOptions, 'process'> = {}): Promise<CliRun> {
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

/** One in-process run's buffers; output nobody routed through io is added to every active run. */
interface Capture {
  stdout: string;
  stderr: string;
}
const active = new Set<Capture>();
let unhook: (() => void) | undefined;

export async function runCliInProcess(args: string[], options: Omit<CliOptions, 'process'> = {}): Promise<CliRun> {
  const capture: Capture = { stdout: '', stderr: '' };
  const env = { ...process.env, NO_COLOR: '1', ...options.env };
  const io: CliIo = {
    stdout: (text) => void (capture.stdout += text),
    stderr: (text) => void (capture.stderr += text),
    readStdin: async () => options.stdin ?? '',
    env,
  };
  // Loaded on first use: files that take only ROOT or tempDir from here need not load the CLI.
  const { run } = await import('../../src/cli/program.js');
  const signalListeners = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') };
  if (active.size === 0) unhook = hookStrayOutput();
  active.add(capture);
  const watch = watchEnv(Object.keys(options.env ?? {}));
  try {
    const code = await run(args, io);
    const direct = watch.read();
    if (direct.length > 0) throw new Error(`idsync ${args.join(' ')} read ${direct.map((k) => `process.env.${k}`).join(', ')} directly, not io.env: in-process it cannot see the env given to runCli`);
    return { code, stdout: capture.stdout, stderr: capture.stderr };
  } finally {
    watch.stop();
    active.delete(capture);
    if (active.size === 0) unhook?.();
    // A long-running command (service, wallet serve) that failed after it began waiting for a
    // stop signal leaves its listener; in a process that exits it would not matter.
    for (const [signal, before] of Object.entries(signalListeners)) {
      for (const listener of process.listeners(signal as NodeJS.Signals)) if (!before.includes(listener)) process.off(signal, listener);
    }
  }
}

/** Catches reads of `keys` through process.env (a proxy while any watch is on). */
const watches = new Set<{ keys: Set<string>; read: Set<string> }>();
const realEnv = process.env;
function watchEnv(keys: string[]): { read(): string[]; stop(): void } {
  const watch = { keys: new Set(keys), read: new Set<string>() };
  if (keys.length === 0) return { read: () => [], stop: () => {} };
  if (watches.size === 0) {
    process.env = new Proxy(realEnv, {
      get(target, key, receiver) {
        // Thrown as well as noted: a command that went on with the wrong value might never end.
        if (typeof key === 'string' && [...watches].some((w) => w.keys.has(key))) {
          for (const w of watches) if (w.keys.has(key)) w.read.add(key);
          throw new Error(`process.env.${key} read by an in-process CLI run that was given it as io.env`);
        }
        return Reflect.get(target, key, receiver);
      },
    });
  }
  watches.add(watch);
  return {
    read: () => [...watch.read],
    stop() {
      watches.delete(watch);
      if (watches.size === 0) process.env = realEnv;
    },
  };
}

/**
 * In a child process whatever writes to the process streams or the console lands in its stdout or
 * stderr, where "stdout is one JSON document" and "one line on stderr" would catch it. In-process
 * it would bypass io, so it is caught here and added to the runs under way (a stray line from one
 * of several concurrent runs thus shows in all of them: a false failure, never a false pass).
 */
function hookStrayOutput(): () => void {
  const stray = (stream: 'stdout' | 'stderr') => (text: unknown) => {
    for (const c of active) c[stream] += typeof text === 'string' ? text : Buffer.isBuffer(text) ? text.toString('utf8') : String(text);
  };
  const out = process.stdout.write;
  const err = process.stderr.write;
  process.stdout.write = ((chunk: unknown) => (stray('stdout')(chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown) => (stray('stderr')(chunk), true)) as typeof process.stderr.write;
  const methods = { log: 'stdout', info: 'stdout', debug: 'stdout', error: 'stderr', warn: 'stderr', trace: 'stderr' } as const;
  const saved = new Map<keyof typeof methods, (...a: unknown[]) => void>();
  for (const [name, stream] of Object.entries(methods) as Array<[keyof typeof methods, 'stdout' | 'stderr']>) {
    saved.set(name, console[name]);
    console[name] = (...a: unknown[]) => stray(stream)(a.map(String).join(' ') + '\n');
  }
  return () => {
    process.stdout.write = out;
    process.stderr.write = err;
    for (const [name, fn] of saved) console[name] = fn;
  };
}

/** The single-line error contract: `idsync: <code>: <message>`, nothing else on stderr. */
export const ERROR_LINE = /^idsync: [a-z_]+: [^\n]+\n$/;

export async function tempDir(): Promise<{ path: string; file(name: string): string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'idsync-cli-'));
  return { path, file: (name) => join(path, name), remove: () => rm(path, { recursive: true, force: true }) };
}
