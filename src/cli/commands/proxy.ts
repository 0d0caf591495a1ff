// `idsync proxy`: a fault-injecting proxy between two parties' DIDComm endpoints, for QA across
// processes (testing/fault-proxy.ts does the work). Runs until SIGINT/SIGTERM; every fault it
// applies is logged as it happens (one JSON line each with --json-log).
import type { Command } from 'commander';
import type { AppliedFault, FaultRule } from '../../testing/fault-plan.js';
import { startFaultProxy } from '../../testing/fault-proxy.js';
import { usageError } from '../errors.js';
import { parsePort, parseHost } from '../port.js';
import type { CliIo, Output } from '../output.js';
import { untilSignal } from '../signals.js';

/** The longest --delay (with its jitter) taken: a day, far longer than any test waits. */
const MAX_DELAY_MS = 86_400_000;

export interface ProxyCommandDeps {
  io: CliIo;
  output(json: boolean): Output;
  /** When the proxy stops (default: SIGINT or SIGTERM). */
  until?: () => Promise<unknown>;
  /** Clock for log timestamps (default the system clock). */
  now?: () => number;
}

export interface ProxyOptions {
  listen: string;
  target: string;
  host: string;
  drop?: string;
  delay?: string;
  duplicate?: string;
  reorder?: string;
  tamper?: string;
  disconnect?: string;
  fail503?: string;
  seed?: string;
  jsonLog?: boolean;
  json?: boolean;
}

function probability(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const p = Number(value);
  if (value.trim() === '' || !Number.isFinite(p) || p < 0 || p > 1) throw usageError('invalid_argument', `--${flag} must be a probability between 0 and 1: ${value}`);
  return p;
}

/** The plan's rules from the command line, in a fixed order (so a seed means the same thing every time). */
export function proxyRules(o: ProxyOptions): FaultRule[] {
  const rules: FaultRule[] = [];
  for (const kind of ['drop', 'duplicate', 'reorder', 'tamper', 'disconnect', 'fail503'] as const) {
    const p = probability(kind, o[kind]);
    if (p !== undefined && p > 0) rules.push({ fault: kind, probability: p });
  }
  if (o.delay !== undefined) {
    const m = /^(\d+)(?::(\d+))?$/.exec(o.delay.trim());
    if (!m) throw usageError('invalid_argument', `--delay must be MS or MS:JITTER (milliseconds): ${o.delay}`);
    // Node's timers hold at most 2^31 - 1 ms (about 24.8 days); a longer one fires at once.
    if (Number(m[1]) + Number(m[2] ?? 0) > MAX_DELAY_MS) throw usageError('invalid_argument', `--delay with its jitter must be at most ${MAX_DELAY_MS} ms (a day): ${o.delay}`);
    rules.push({ fault: 'delay', delayMs: Number(m[1]), ...(m[2] ? { jitterMs: Number(m[2]) } : {}) });
  }
  return rules;
}

function faultLine(f: AppliedFault, at: number): Record<string, unknown> {
  return { at: new Date(at).toISOString(), seq: f.seq, fault: f.fault, direction: f.direction, mediaType: f.mediaType, ...(f.type ? { type: f.type } : {}), path: f.endpoint, ...f.detail };
}

export async function runProxy(o: ProxyOptions, deps: ProxyCommandDeps): Promise<void> {
  const listen = parsePort('--listen', o.listen);
  const seed = o.seed === undefined ? 1 : Number(o.seed);
  if (!Number.isInteger(seed)) throw usageError('invalid_argument', `--seed must be an integer: ${o.seed}`);
  const rules = proxyRules(o);
  const out = deps.output(Boolean(o.json));
  // With --json-log stdout carries the fault log alone, one JSON line each, so that it can be
  // redirected to a .jsonl file: the lines for people go to stderr. --json's document stays on
  // stdout (it is JSON too).
  const human = (text: string) => (o.jsonLog ? deps.io.stderr(text + '\n') : out.say(text));
  const now = deps.now ?? Date.now;
  const proxy = await startFaultProxy({
    listen,
    host: o.host,
    target: o.target,
    plan: {
      seed,
      rules,
      onFault: (f) => {
        const line = faultLine(f, now());
        if (o.jsonLog) deps.io.stdout(JSON.stringify(line) + '\n');
        else out.say(`fault #${f.seq}: ${f.fault} ${f.direction} ${f.mediaType}${f.type ? ` ${f.type}` : ''} ${f.endpoint ?? ''}${f.detail ? ` ${JSON.stringify(f.detail)}` : ''}`);
      },
    },
  }).catch((err: unknown) => {
    throw (err as { code?: string }).code === 'invalid_argument' ? usageError('invalid_argument', (err as Error).message) : err;
  });
  try {
    const started = { listening: proxy.url, target: o.target, seed, rules };
    if (o.json) out.result(started);
    else {
      const faults = rules.length ? rules.map((r) => `${r.fault}${r.probability !== undefined ? ` ${r.probability}` : ` ${r.delayMs}ms${r.jitterMs ? `+${r.jitterMs}` : ''}`}`).join(', ') : 'none';
      for (const line of [`proxy ${proxy.url} -> ${o.target}`, `seed ${seed}; faults: ${faults}`, 'stop with Ctrl-C']) human(line);
    }
    await (deps.until ?? untilSignal)();
    const counts = Object.entries(proxy.injector.counts()).filter(([, n]) => n > 0);
    if (!o.json) human(`proxy stopping; faults applied: ${counts.length ? counts.map(([k, n]) => `${k} ${n}`).join(', ') : 'none'}`);
  } finally {
    await proxy.close();
  }
}

export function registerProxyCommand(program: Command, deps: ProxyCommandDeps): void {
  program
    .command('proxy')
    .description("a fault-injecting proxy in front of a party's DIDComm endpoint (HTTP POST bodies and WebSocket frames)")
    .requiredOption('--listen <port>', 'port to listen on (0: any free port)')
    .requiredOption('--target <url>', 'origin to forward to, e.g. http://127.0.0.1:8080 (requests keep their path)')
    .option('--host <host>', 'address to listen on', parseHost, '127.0.0.1')
    .option('--drop <p>', 'probability of dropping a DIDComm message (the sender gets 202)')
    .option('--delay <ms[:jitter]>', 'delay every DIDComm message by MS, plus up to JITTER ms')
    .option('--duplicate <p>', 'probability of forwarding a message twice')
    .option('--reorder <p>', 'probability of holding a message until the next one has gone through')
    .option('--tamper <p>', 'probability of changing one character of a message')
    .option('--disconnect <p>', 'probability of cutting the connection (WebSocket: both sockets)')
    .option('--fail503 <p>', 'probability of answering 503 with Retry-After instead of forwarding')
    .option('--seed <n>', 'seed of the fault PRNG (default 1): the same seed and message order give the same faults')
    .option('--json-log', 'log each applied fault as one JSON line on stdout (the lines for people go to stderr)')
    .option('--json', 'print one JSON line {listening, target, seed, rules} once listening')
    .action(async (opts: ProxyOptions) => runProxy(opts, deps));
}
