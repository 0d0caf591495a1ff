// `idsync mediator`: run idsync's DIDComm v2 mediator alone (src/mediator/server.ts) on a LevelDB
// folder until SIGTERM/SIGINT, which close the server (HTTP and WebSocket), let live pushes
// finish, and close the store. What a sender was answered 2xx for is on disk before that answer.
// Prints the mediator's DID and its out-of-band invitation to mediate; the last line (or, with
// --json, the one JSON line) says where it listens.
import type { Command } from 'commander';
import { envCrashPoint } from '../../crash-point.js';
import { toIdsyncError } from '../../errors.js';
import { addressInUse } from '../../listen.js';
import { startMediator, type RunningMediator } from '../../mediator/server.js';
import type { MediatorConsole } from '../../console/mediator-console.js';
import type { MediatorPolicy } from '../../mediator/policy.js';
import { openStore } from '../../store/store.js';
import type { EnvelopeEngine } from '../../didcomm/types.js';
import { parseDuration } from '../duration.js';
import { MAX_WAIT_MS } from '../../wait.js';
import { engineOf, engineOption } from '../engine-option.js';
import { usageError } from '../errors.js';
import { HTTP_SCHEMES, parseBaseUrlOption } from '../url-option.js';
import { createOutput, processIo, type CliIo } from '../output.js';
import { parsePort, parseHost } from '../port.js';
import { untilSignal } from '../signals.js';
import { makeDir } from '../../make-dir.js';

export interface MediatorCommandOptions {
  port: string;
  host: string;
  data: string;
  publicUrl?: string;
  deny?: string[];
  maxKeys?: string;
  maxQueue?: string;
  maxMessageBytes?: string;
  maxDelay?: string;
  /** --forward-onwards. */
  forwardOnwards?: boolean;
  allowPrivateEndpoints?: boolean;
  engine?: EnvelopeEngine;
  /** --console: the mediator's web console on a port of its own. */
  console?: boolean;
  /** --console-port (default: any free port). */
  consolePort?: string;
  json?: boolean;
}

export interface MediatorRunDeps {
  io: CliIo;
  /** Resolves when the mediator should stop (default: SIGTERM or SIGINT). */
  until: Promise<unknown>;
  /** Called with the running mediator (tests). */
  onMediator?: (m: RunningMediator) => void;
}

function positiveInt(flag: string, value: string | undefined, min = 1): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw usageError('invalid_argument', `${flag} must be an integer of at least ${min}: ${value}`);
  return n;
}

/** The policy the flags set; a flag not given keeps the mediator's default (policy.ts). */
export function policyOptions(opts: MediatorCommandOptions): Partial<MediatorPolicy> {
  const out: Partial<MediatorPolicy> = {};
  if (opts.deny?.length) {
    for (const d of opts.deny) if (!d.trim()) throw usageError('invalid_argument', '--deny needs a DID pattern such as did:key:*');
    out.deny = opts.deny;
  }
  const maxKeys = positiveInt('--max-keys', opts.maxKeys);
  if (maxKeys !== undefined) out.maxKeys = maxKeys;
  const maxQueue = positiveInt('--max-queue', opts.maxQueue);
  if (maxQueue !== undefined) out.maxQueue = maxQueue;
  const maxMessageBytes = positiveInt('--max-message-bytes', opts.maxMessageBytes, 64);
  if (maxMessageBytes !== undefined) out.maxMessageBytes = maxMessageBytes;
  const maxDelayMs = parseDuration('--max-delay', opts.maxDelay, MAX_WAIT_MS);
  if (maxDelayMs !== undefined) out.maxDelayMs = maxDelayMs;
  if (opts.forwardOnwards) out.onwards = true;
  return out;
}

export async function runMediator(opts: MediatorCommandOptions, deps: MediatorRunDeps): Promise<void> {
  const port = parsePort('--port', opts.port);
  if (opts.consolePort !== undefined && !opts.console) throw usageError('invalid_argument', "--console-port needs --console: it is the web console's port");
  const consolePort = opts.consolePort === undefined ? 0 : parsePort('--console-port', opts.consolePort);
  if (opts.publicUrl !== undefined) parseBaseUrlOption('--public-url', opts.publicUrl, HTTP_SCHEMES);
  const policy = policyOptions(opts);
  await makeDir(opts.data);
  const store = await openStore({ path: opts.data });
  // Crash tests: IDSYNC_TEST_CRASH_AT=mediator:forward-queued|mediator:delivered|mediator:received (crash-point.ts).
  const crashPoint = envCrashPoint(deps.io.env ?? {});
  let running: RunningMediator;
  try {
    running = await startMediator({
      store,
      port,
      host: opts.host,
      policy,
      ...(opts.publicUrl ? { publicUrl: opts.publicUrl } : {}),
      ...(opts.allowPrivateEndpoints ? { addressPolicy: { allowPrivate: true } } : {}),
      ...engineOf(opts),
      ...(crashPoint ? { crashPoint } : {}),
    });
  } catch (err) {
    await store.close();
    // The hint in the words of this command's flags.
    throw toIdsyncError(err).code === 'address_in_use' ? addressInUse(opts.host, port, 'stop it, or choose another --port', err) : err;
  }
  let web: MediatorConsole | undefined;
  try {
    // Loaded only when asked for: a mediator starts without the console's modules.
    if (opts.console) web = await (await import('../../console/mediator-console.js')).startMediatorConsole(running.agent, { store, host: opts.host, port: consolePort });
    const out = createOutput(deps.io, Boolean(opts.json));
    out.say(`DID ${running.did}`);
    // The short form first: it is the one a person copies (wallet create --mediator, a QR code).
    out.say(`invitation to mediate: ${running.shortInvitationUrl}`);
    out.say(`  in full: ${running.invitationUrl}`);
    out.say(`data in ${opts.data}`);
    if (web) out.say(`console ${web.url} (access code ${web.accessCode}; it is shown only here)`);
    // The last line of the banner (or the one JSON document): scripts wait for it.
    out.result(
      {
        listening: running.url,
        publicUrl: running.publicUrl,
        did: running.did,
        invitationUrl: running.invitationUrl,
        shortInvitationUrl: running.shortInvitationUrl,
        data: opts.data,
        ...(web ? { console: { url: web.url, accessCode: web.accessCode } } : {}),
      },
      () => `idsync mediator listening on ${running.url}`,
    );
    deps.onMediator?.(running);
    await deps.until;
    if (!opts.json) deps.io.stdout('idsync mediator stopping\n');
  } finally {
    try {
      await web?.close();
      await running.close();
    } finally {
      await store.close();
    }
  }
}

export function registerMediatorCommand(program: Command, deps: { io?: CliIo } = {}): void {
  program
    .command('mediator')
    .description("run idsync's DIDComm v2 mediator: coordinate-mediation 2.0/3.0, routing forward, Message Pickup 3.0 with live mode")
    .option('--port <port>', 'TCP port (0: any free port)', '8090')
    .option('--host <host>', 'address to listen on', parseHost, '127.0.0.1')
    .option('--data <dir>', 'LevelDB folder', './.idsync/mediator')
    .option('--public-url <url>', 'URL recipients and senders reach the mediator at; its DID names it (default http://<host>:<port>)')
    .option('--deny <pattern...>', 'answer mediate-request with mediate-deny for requester DIDs matching a pattern (* matches anything), e.g. did:key:*')
    .option('--max-keys <n>', 'recipient DIDs one party may register; an update that would pass it is refused whole (default 1000)')
    .option('--max-queue <n>', 'messages one recipient may have waiting; one more is refused (default 1000)')
    .option('--max-message-bytes <n>', 'largest forwarded message taken, in bytes (default 262144); larger ones get 413')
    .option('--max-delay <duration>', 'longest delay_milli honoured, e.g. 10m (default 1h); a longer one is refused')
    .option('--forward-onwards', 'pass forwards for DIDs nobody registered here on to the endpoint those DIDs name (a mediator in a chain; off: refused)')
    .option('--console', "also serve the mediator's web console (parties, queues, messages with their verdicts) on a port of its own; prints its URL and an access code")
    .option('--console-port <port>', "the console's port (default: any free port)")
    .option('--allow-private-endpoints', 'let the mediator send to endpoints in private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7)')
    .addOption(engineOption())
    .option('--json', 'print one JSON line once listening: {listening, publicUrl, did, invitationUrl, shortInvitationUrl, data, console?}')
    .action(async (opts: MediatorCommandOptions) => {
      const io = deps.io ?? processIo;
      await runMediator(opts, { io, until: untilSignal() });
    });
}
