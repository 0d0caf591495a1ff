// `idsync fleet`: N simulated holder wallets against a service (an embedded twin by default, or
// --service URL with IDSYNC_CLIENT_ID / IDSYNC_CLIENT_SECRET / IDSYNC_PROJECT_ID), a progress
// line on stderr while it runs, then the step table; --json prints the summary document as the
// last (only) line of stdout; --report DIR writes report.json and report.html.
import type { Command } from 'commander';
import type { EnvelopeEngine } from '../../didcomm/types.js';
import { runFleet, type FleetOptions } from '../../fleet/fleet.js';
import { fleetTable, progressLine, seconds, writeReport } from '../../fleet/report.js';
import { loadScenario } from '../../fleet/scenario-ref.js';
import { BUILTIN_SCENARIOS } from '../../fleet/scenarios.js';
import { openArrivalCount } from '../../fleet/runner.js';
import { SERVICE_STORE_MEMORY_FLOWS } from '../../fleet/target.js';
import type { LoadModel } from '../../fleet/types.js';
import { engineOption } from '../engine-option.js';
import { IdsyncError } from '../../errors.js';
import { asUsage, usageError } from '../errors.js';
import { makeWritableDir } from '../../make-dir.js';
import { STOP_SIGNALS } from '../signals.js';
import { HTTP_SCHEMES, parseBaseUrlOption } from '../url-option.js';
import type { CliIo, Output } from '../output.js';
import { parseDuration } from './service.js';
import { MAX_WAIT_MS } from '../../wait.js';

export interface FleetCommandDeps {
  io: CliIo;
  output(json: boolean): Output;
  env?: NodeJS.ProcessEnv;
}

export interface FleetCliOptions {
  scenario: string;
  /** Unset: DIDCOMM (no commander default, so that one given where it has no effect is seen). */
  channel?: string;
  module?: string;
  wallets?: string;
  concurrency?: string;
  rate?: string;
  duration?: string;
  ramp?: string;
  workers: string;
  service?: string;
  /** Unset: link. */
  embeddedTransport?: string;
  /** --mediated: true (a mediator started for the run) or a running mediator's invitation URL / DID. */
  mediated?: boolean | string;
  /** Unset: auto. */
  serviceStore?: string;
  timeout: string;
  report?: string;
  maxFailed?: string;
  engine?: EnvelopeEngine;
  progress?: boolean;
  json?: boolean;
}

/**
 * Limits far beyond any run this machine class can make, so that a mistyped value is refused
 * instead of exhausting memory (a flow list of 1e12) or queueing arrivals for ever.
 */
const MAX_FLOWS = 1_000_000;
const MAX_WORKERS = 256;

function positiveInt(flag: string, v: string | undefined, fallback?: number, max = MAX_FLOWS): number {
  if (v === undefined && fallback !== undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw usageError('invalid_argument', `${flag} must be a whole number ≥ 1: ${v}`);
  if (n > max) throw usageError('invalid_argument', `${flag} must be at most ${max}: ${v}`);
  return n;
}

/** --max-failed: how many failed flows the run tolerates before its exit status says it failed (default 0). */
function maxFailed(v: string | undefined): number {
  if (v === undefined) return 0;
  const n = Number(v);
  if (!/^\s*\d+\s*$/.test(v) || !Number.isSafeInteger(n)) throw usageError('invalid_argument', `--max-failed must be a whole number ≥ 0: ${v}`);
  return n;
}

function duration(flag: string, v: string): number {
  // Every fleet duration ends up in a timer (the guard of a wait, the arrivals' schedule).
  const ms = parseDuration(flag, v, MAX_WAIT_MS);
  if (ms === undefined || !(ms >= 0)) throw usageError('invalid_argument', `${flag} must be a duration (30s, 2m, or milliseconds): ${v}`);
  return ms;
}

/**
 * How long the open model's arrivals go on, or its ramp: 30s, 2m, 500ms, and a bare number in
 * seconds, as --rate is per second (`--rate 2 --duration 5` is ten flows, not an empty run of 5 ms).
 */
function loadDuration(flag: string, v: string): number {
  const text = v.trim();
  if (!/^\d+(?:\.\d+)?(?:ms|s|m|h|d)?$/.test(text)) throw usageError('invalid_argument', `${flag} must be a duration such as 30s, 2m or 500ms (a bare number is seconds): ${v}`);
  return duration(flag, /\d$/.test(text) ? `${text}s` : text);
}

/** The load model from the flags: --rate makes it open, else closed. */
export function loadModel(o: FleetCliOptions): LoadModel {
  if (o.rate !== undefined) {
    if (o.wallets !== undefined || o.concurrency !== undefined) throw usageError('invalid_argument', '--rate (open model) goes with --duration and --ramp, not --wallets/--concurrency');
    const rate = Number(String(o.rate).replace(/\/s$/, ''));
    if (!(rate > 0)) throw usageError('invalid_argument', `--rate must be flows per second > 0: ${o.rate}`);
    const durationMs = loadDuration('--duration', o.duration ?? '30s');
    if ((rate * durationMs) / 1000 > MAX_FLOWS) throw usageError('invalid_argument', `--rate × --duration must be at most ${MAX_FLOWS} flows: ${o.rate}/s for ${durationMs} ms`);
    if (durationMs <= 0) throw usageError('invalid_argument', '--duration must be > 0');
    const model: LoadModel = { kind: 'open', ratePerSecond: rate, durationMs, ...(o.ramp ? { rampMs: loadDuration('--ramp', o.ramp) } : {}) };
    // An empty run has nothing to measure, and its "0 failed" would pass a CI job.
    if (openArrivalCount(model) < 1) {
      const ramp = model.rampMs ? ` with a ${seconds(model.rampMs)} ramp (rising from 0)` : '';
      throw usageError('invalid_argument', `--rate ${rate}/s for ${seconds(durationMs)}${ramp} starts no flow: give a longer --duration or a higher --rate`);
    }
    return model;
  }
  if (o.duration !== undefined || o.ramp !== undefined) throw usageError('invalid_argument', '--duration and --ramp belong to the open model (--rate)');
  const wallets = positiveInt('--wallets', o.wallets, 100);
  return { kind: 'closed', wallets, concurrency: Math.min(wallets, positiveInt('--concurrency', o.concurrency, Math.min(wallets, 50))) };
}

/** A DID, or an absolute http(s) URL: what names a running mediator (whether it is one is found out by asking it). */
function isDidOrUrl(text: string): boolean {
  if (/^did:[a-z0-9]+:\S+$/.test(text.trim())) return true;
  try {
    return ['http:', 'https:'].includes(new URL(text.trim()).protocol);
  } catch {
    return false;
  }
}

function serviceFrom(url: string | undefined, env: NodeJS.ProcessEnv): FleetOptions['service'] {
  if (!url) return undefined;
  // A value that is no http(s) URL is the user's mistake (exit 2), not a service that is down.
  parseBaseUrlOption('--service', url, HTTP_SCHEMES);
  const missing = ['IDSYNC_CLIENT_ID', 'IDSYNC_CLIENT_SECRET'].filter((k) => !env[k]);
  if (missing.length) throw usageError('invalid_config', `--service needs client credentials: set ${missing.join(' and ')} (and IDSYNC_PROJECT_ID for issuance)`);
  return { url, credentials: { clientId: env.IDSYNC_CLIENT_ID!, clientSecret: env.IDSYNC_CLIENT_SECRET!, ...(env.IDSYNC_PROJECT_ID ? { projectId: env.IDSYNC_PROJECT_ID } : {}) } };
}

export async function runFleetCommand(o: FleetCliOptions, deps: FleetCommandDeps): Promise<void> {
  if (!o.module && !(BUILTIN_SCENARIOS as readonly string[]).includes(o.scenario)) throw usageError('invalid_argument', `--scenario must be one of ${BUILTIN_SCENARIOS.join(', ')}: ${o.scenario}`);
  // An option that would change nothing is the user's mistake, said, not ignored: a CI job that
  // passes --channel EMAIL to a sync, or a store to a running service, measures something else.
  if (o.channel !== undefined && (o.module || o.scenario !== 'issuance')) throw usageError('invalid_argument', `--channel is the built-in issuance scenario's (invitations by DIDCOMM or EMAIL), not ${o.module ? 'a module\'s' : `${o.scenario}'s`}`);
  if (o.service !== undefined && o.serviceStore !== undefined) throw usageError('invalid_argument', '--service-store is where the embedded twin keeps its state; --service names a running service, which keeps its own');
  if (o.service !== undefined && o.embeddedTransport !== undefined) throw usageError('invalid_argument', '--embedded-transport is how wallets reach the embedded twin; --service names a running service, reached over HTTP');
  const channel = (o.channel ?? 'DIDCOMM').toUpperCase();
  if (channel !== 'DIDCOMM' && channel !== 'EMAIL') throw usageError('invalid_argument', `--channel must be DIDCOMM or EMAIL: ${o.channel}`);
  const workers = o.workers === 'auto' ? 'auto' : positiveInt('--workers', o.workers, undefined, MAX_WORKERS);
  const model = loadModel(o);
  const tolerated = maxFailed(o.maxFailed);
  const service = serviceFrom(o.service, deps.env ?? deps.io.env ?? process.env);
  const embeddedTransport = o.embeddedTransport ?? 'link';
  if (embeddedTransport !== 'link' && embeddedTransport !== 'http') throw usageError('invalid_argument', `--embedded-transport must be link or http: ${embeddedTransport}`);
  const serviceStore = o.serviceStore ?? 'auto';
  if (serviceStore !== 'auto' && serviceStore !== 'memory' && serviceStore !== 'disk') throw usageError('invalid_argument', `--service-store must be auto, memory or disk: ${serviceStore}`);
  if (typeof o.mediated === 'string' && !isDidOrUrl(o.mediated)) {
    throw usageError('invalid_argument', `--mediated takes a running mediator's DID or its invitation URL (or nothing, for one started for the run): ${o.mediated}`);
  }
  // A scenario module that is missing or no scenario is the user's mistake (exit 2), said with
  // the option's name before anything starts: not a failed import deep inside the run.
  if (o.module) await asUsage(() => loadScenario({ module: o.module! }, '--module'));
  // The report's folder is checked before the load: one nothing can be written to would
  // otherwise be found only after the run, its results lost.
  if (o.report) await asUsage(() => makeWritableDir(o.report!));
  const out = deps.output(Boolean(o.json));
  const total = model.kind === 'closed' ? model.wallets : undefined;
  const tty = (process.stderr as { isTTY?: boolean }).isTTY === true;
  let lastLine = 0;
  // Ctrl-C or SIGTERM stops the run the way its end does (no new flows; the threads, the
  // mediator and the temporary folders closed and removed), where the process dying at once left
  // the folders behind. A second signal, the listeners gone, ends the process as usual.
  const stop = new AbortController();
  let stoppedBy: string | undefined;
  const stopListeners = STOP_SIGNALS.map((signal) => [signal, () => {
    stoppedBy = signal;
    deps.io.stderr(`\n${signal}: stopping the fleet (again to end it at once)\n`);
    stop.abort();
  }] as const);
  for (const [signal, listener] of stopListeners) process.once(signal, listener);
  const result = await runFleet({
    signal: stop.signal,
    scenario: o.module ? { module: o.module } : { builtin: o.scenario, channel },
    model,
    workers,
    timeoutMs: duration('--timeout', o.timeout),
    ...(service ? { service } : { embeddedTransport, serviceStore }),
    ...(o.engine ? { envelopeEngine: o.engine } : {}),
    ...(o.mediated ? { mediated: o.mediated } : {}),
    onProgress: (p) => {
      if (o.progress === false) return;
      // A TTY gets one line rewritten in place; a log gets a line every two seconds.
      if (tty) deps.io.stderr(`\r${progressLine(p, total)}   `);
      else if (p.elapsedMs - lastLine >= 2000) {
        lastLine = p.elapsedMs;
        deps.io.stderr(progressLine(p, total) + '\n');
      }
    },
  }).finally(() => {
    for (const [signal, listener] of stopListeners) process.off(signal, listener);
  });
  if (tty && o.progress !== false) deps.io.stderr('\n');
  if (o.report) {
    const files = await writeReport(o.report, result);
    out.say(`report: ${files.html} and ${files.json}`);
  }
  out.result(result.summary, () => fleetTable(result));
  // After the report: a run whose flows failed fails the command (exit 1), so a CI job that runs
  // a fleet sees it; the report, printed first, says which steps and errors.
  const { failed, completed, errors } = result.summary;
  if (stoppedBy) {
    const cut = result.summary.stopped ? `, ${result.summary.stopped} in flight cut short` : '';
    throw new IdsyncError('aborted', `stopped by ${stoppedBy} after ${completed} completed and ${failed} failed flows${cut}; the run's threads and temporary folders are gone`);
  }
  if (failed > tolerated) {
    const commonest = Object.entries(errors).sort((a, b) => b[1] - a[1])[0];
    throw new IdsyncError('fleet_failed', `${failed} of ${failed + completed} flows failed${tolerated ? ` (--max-failed ${tolerated})` : ''}${commonest ? `; most often ${commonest[0]} (${commonest[1]})` : ''}`, {
      details: { failed, completed, errors },
    });
  }
}

export function registerFleetCommand(program: Command, deps: FleetCommandDeps): void {
  program
    .command('fleet')
    .description('load a service with simulated holder wallets: connect, sync or issuance flows, closed or open model, on every core')
    .option('--scenario <name>', `flow of each wallet: ${BUILTIN_SCENARIOS.join(' | ')}`, 'sync')
    .option('--channel <channel>', 'issuance invitations by DIDCOMM or EMAIL (default DIDCOMM; --scenario issuance only)')
    .option('--module <file>', 'a module exporting a scenario of your own ({name, steps, run}) as `scenario` or default')
    .option('--wallets <n>', 'closed model: wallets, each running the flow once (default 100)')
    .option('--concurrency <c>', 'closed model: flows running at once (default min(wallets, 50))')
    .option('--rate <r>', 'open model: new wallets per second (e.g. 40 or 40/s)')
    .option('--duration <d>', 'open model: how long arrivals go on: 30s, 2m, 500ms; a bare number is seconds (default 30s)')
    .option('--ramp <d>', 'open model: the rate rises linearly from 0 over this long (30s, 2m, 500ms; a bare number is seconds)')
    .option('--workers <n>', 'auto (one per core, less one for an embedded service) or a number; 1 runs in this thread', 'auto')
    .option('--service <url>', 'a running service (credentials from IDSYNC_CLIENT_ID, IDSYNC_CLIENT_SECRET, IDSYNC_PROJECT_ID); default: an embedded twin')
    .option('--embedded-transport <how>', 'how wallets reach the embedded twin: link (requests handed between threads, no sockets; the default) or http (loopback sockets, its HTTP stack measured too)')
    .option('--mediated [mediator]', "wallets behind a mediator: idsync's own, started for the run, or a running one's invitation URL or DID; they collect live over Message Pickup 3.0")
    .option('--service-store <where>', `where the embedded twin keeps its state: memory, disk (a temporary LevelDB) or auto (disk beyond ${SERVICE_STORE_MEMORY_FLOWS.toLocaleString('en')} flows; the default)`)
    .option('--timeout <d>', 'guard for each wait inside a flow: 120s, 2m; a bare number is milliseconds', '120s')
    .option('--report <dir>', 'write report.json and report.html (latency histogram and throughput as SVG) into DIR')
    .option('--no-progress', 'no progress line on stderr')
    .addOption(engineOption())
    .option('--max-failed <n>', 'failed flows the run tolerates; more fail the command (exit 1) after the report (default 0)')
    .option('--json', 'print one JSON document: {scenario, wallets, workers, completed, failed, durationMs, flowsPerSecond, steps, errors, memoryPerWalletKB}')
    .action(async (opts: FleetCliOptions) => runFleetCommand(opts, deps));
}
