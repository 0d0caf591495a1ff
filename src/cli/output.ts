// What a command prints. With --json stdout carries exactly one JSON document (the result);
// without it, lines for people. Errors never go through here (see cli/errors.ts).

/** Where the CLI writes and reads; process streams in production, buffers when embedded. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** All of standard input as text (for `-` file arguments). */
  readStdin(): Promise<string>;
  /** The environment commands read (IDSYNC_* for the service); the process's when absent. */
  readonly env?: Record<string, string | undefined>;
}

export const processIo: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return Buffer.concat(chunks).toString('utf8');
  },
  env: process.env,
};

/**
 * The exit status of a process whose stdout reader went away (`idsync rules | head -1`): 128 +
 * SIGPIPE, what a shell reports for `git log | head` and any program SIGPIPE ended.
 */
export const EXIT_CLOSED_PIPE = 141;

/**
 * Makes a closed pipe end the process quietly instead of with Node's "Unhandled 'error' event"
 * and a stack trace. stdout closed: nobody reads what follows, so the command stops at once with
 * EXIT_CLOSED_PIPE (a long-running one, such as the proxy, at its next line). stderr closed: there
 * is nowhere to report anything, so its write errors are dropped and the command ends with its
 * own status. Any other stdout failure gets the CLI's one error line.
 */
export function endQuietlyOnClosedPipes(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream, exit: (code: number) => void): void {
  stderr.on('error', () => {});
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return exit(EXIT_CLOSED_PIPE);
    stderr.write(`idsync: internal_error: cannot write to standard output (${err.code ?? err.message})\n`);
    exit(1);
  });
}

export interface Output {
  readonly json: boolean;
  /** A line for people; dropped with --json so that stdout stays one JSON document. */
  say(text?: string): void;
  /** The command's result: one compact JSON line with --json, otherwise `human(value)` (default: indented JSON). */
  result<T>(value: T, human?: (value: T) => string): void;
}

export function createOutput(io: CliIo, json: boolean): Output {
  return {
    json,
    say(text = '') {
      if (!json) io.stdout(text + '\n');
    },
    result(value, human) {
      if (json) io.stdout(JSON.stringify(value) + '\n');
      else io.stdout(withNewline(human ? human(value) : pretty(value)));
    },
  };
}

export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : text + '\n';
}
