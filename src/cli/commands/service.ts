// `idsync service`: run the service twin (REST API and its DIDComm agent: Data Pipe, sync,
// issuance, mediator) on a LevelDB folder until SIGTERM/SIGINT, which close the server, the
// agent (after its work in flight) and the store. Reads IDSYNC_CLIENT_ID / IDSYNC_CLIENT_SECRET /
// IDSYNC_PROJECT_ID to seed a client (all three, or none); without them a demo tenant is created
// once the service listens on first start and its credentials are printed once (demo-tenant.ts:
// a start that fails or dies before printing them leaves credentials owed to the next one).
// The flags map onto createService's options (service/app.ts).
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { openStore } from '../../store/store.js';
import { createService, type CreateServiceOptions, type Service } from '../../service/app.js';
import { checkEnvSeed, type EnvSeed } from '../../service/seed.js';
import { printDemoCredentials } from '../../service/demo-tenant.js';
import { envCrashPoint } from '../../crash-point.js';
import type { RateLimitOptions } from '../../service/http/rate-limit.js';
import type { WorkGateOptions } from '../../service/http/work-gate.js';
import type { EnvelopeEngine } from '../../didcomm/types.js';
import { IdsyncError, toIdsyncError } from '../../errors.js';
import { addressInUse, reachableUrlHost } from '../../listen.js';
import { parsePort, parseHost } from '../port.js';
import { engineOption } from '../engine-option.js';
import { usageError } from '../errors.js';
import { HTTP_SCHEMES, parseBaseUrlOption, parseUrlOption, SMTP_SCHEMES } from '../url-option.js';
import { parseDuration } from '../duration.js';

export { parseDuration };
import { untilSignal } from '../signals.js';
import { processIo, type CliIo } from '../output.js';
import { makeDir } from '../../make-dir.js';

export interface ServiceCommandOptions {
  port: string;
  host: string;
  data: string;
  publicUrl?: string;
  fixtures?: string;
  smtp?: string;
  smsGateway?: string;
  rateLimit?: string;
  /** Per remote address: POST /didcomm and WebSocket upgrades and frames. */
  didcommRateLimit?: string;
  /** Per remote address: token requests. */
  tokenRateLimit?: string;
  secretChecks?: string;
  /** --allow-private-endpoints */
  allowPrivateEndpoints?: boolean;
  /** false with --no-loopback-endpoints (commander sets true otherwise). */
  loopbackEndpoints?: boolean;
  invitationTtl?: string;
  log?: boolean;
  /** --engine: the DIDComm agent's envelope engine. */
  engine?: EnvelopeEngine;
  /** --console: the web console at /console, with faults switchable from it. */
  console?: boolean;
}

export interface ServiceRunDeps {
  io: CliIo;
  env: Record<string, string | undefined>;
  /** Resolves when the service should stop (default: SIGTERM or SIGINT). */
  until: Promise<unknown>;
  /** Called with the URL once the service listens. */
  onListening?: (url: string) => void;
  /** Called with the running service (tests look at its deps). */
  onService?: (service: Service) => void;
}

/** `off` or `BURST:PER_SECOND`, e.g. `120:20`. */
export function parseRateLimit(value: string | undefined, flag = '--rate-limit'): RateLimitOptions | false | undefined {
  if (value === undefined) return undefined;
  if (value === 'off') return false;
  const m = /^(\d+):(\d+(?:\.\d+)?)$/.exec(value);
  if (!m || Number(m[1]) < 1 || Number(m[2]) <= 0) throw usageError('invalid_argument', `${flag} must be off or BURST:PER_SECOND: ${value}`);
  return { burst: Number(m[1]), perSecond: Number(m[2]) };
}

/** `CONCURRENCY:QUEUE`, e.g. `2:32`: client secret checks at once, and waiting. */
export function parseSecretChecks(value: string | undefined): WorkGateOptions | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+):(\d+)$/.exec(value);
  if (!m || Number(m[1]) < 1) throw usageError('invalid_argument', `--secret-checks must be CONCURRENCY:QUEUE with CONCURRENCY >= 1: ${value}`);
  return { concurrency: Number(m[1]), queue: Number(m[2]) };
}

/** The limits and endpoint policy the flags set; an option no flag names is left out (createService's default). */
export function limitOptions(opts: ServiceCommandOptions): Pick<CreateServiceOptions, 'rateLimit' | 'addressRateLimit' | 'secretChecks' | 'outboundEndpoints'> {
  const out: ReturnType<typeof limitOptions> = {};
  const rateLimit = parseRateLimit(opts.rateLimit);
  if (rateLimit !== undefined) out.rateLimit = rateLimit;
  const didcomm = parseRateLimit(opts.didcommRateLimit, '--didcomm-rate-limit');
  const token = parseRateLimit(opts.tokenRateLimit, '--token-rate-limit');
  if (didcomm !== undefined || token !== undefined) {
    out.addressRateLimit = { ...(didcomm !== undefined ? { didcomm } : {}), ...(token !== undefined ? { token } : {}) };
  }
  const secretChecks = parseSecretChecks(opts.secretChecks);
  if (secretChecks) out.secretChecks = secretChecks;
  // docs/service.md "Outbound endpoints": only these two are choices; link-local and metadata stay refused.
  if (opts.allowPrivateEndpoints || opts.loopbackEndpoints === false) {
    out.outboundEndpoints = { ...(opts.allowPrivateEndpoints ? { allowPrivate: true } : {}), ...(opts.loopbackEndpoints === false ? { allowLoopback: false } : {}) };
  }
  return out;
}

function checkUrl(flag: string, value: string | undefined, schemes: readonly string[]): void {
  if (value !== undefined) parseUrlOption(flag, value, schemes);
}

async function readFixtures(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new IdsyncError('invalid_config', `cannot read fixtures file ${file}`, { cause });
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new IdsyncError('invalid_config', `fixtures file ${file} is not JSON`, { cause });
  }
}

async function consoleOptions() {
  const [{ serviceConsole }, { faultSwitch }, { faultyServiceAgent }] = await Promise.all([
    import('../../console/service-console.js'),
    import('../../testing/fault-switch.js'),
    import('../../testing/faulty-service-agent.js'),
  ]);
  const faults = faultSwitch();
  const options: Partial<CreateServiceOptions> = { plugins: [serviceConsole({ faults })], agent: (deps) => faultyServiceAgent(deps, faults) };
  return { faults, options };
}

export async function runService(opts: ServiceCommandOptions, deps: ServiceRunDeps): Promise<void> {
  const port = parsePort('--port', opts.port);
  if (opts.publicUrl !== undefined) parseBaseUrlOption('--public-url', opts.publicUrl, HTTP_SCHEMES);
  checkUrl('--smtp', opts.smtp, SMTP_SCHEMES);
  checkUrl('--sms-gateway', opts.smsGateway, HTTP_SCHEMES);
  const limits = limitOptions(opts);
  const invitationTtlMs = parseDuration('--invitation-ttl', opts.invitationTtl);
  const fixtures = opts.fixtures ? await readFixtures(opts.fixtures) : undefined;
  const publicUrl = opts.publicUrl ?? (port !== 0 ? `http://${reachableUrlHost(opts.host)}:${port}` : undefined);
  const env: EnvSeed = { clientId: deps.env.IDSYNC_CLIENT_ID, clientSecret: deps.env.IDSYNC_CLIENT_SECRET, projectId: deps.env.IDSYNC_PROJECT_ID };
  // Before the data folder is touched: a partial set must not leave a demo tenant behind.
  const envSeeded = checkEnvSeed(env);

  // With the console: its plugin, and the agent's transports behind a fault switch it turns on and
  // off. Loaded only then: the service starts without the console's modules.
  const withConsole = opts.console ? await consoleOptions() : undefined;
  const faults = withConsole?.faults;

  await makeDir(opts.data);
  const store = await openStore({ path: opts.data });
  let service;
  try {
    service = await createService({
      store,
      publicUrl,
      fixtures,
      ...limits,
      // Invitation delivery (send-invitation EMAIL / SMS) goes through these.
      smtpUrl: opts.smtp,
      smsGatewayUrl: opts.smsGateway,
      ...(invitationTtlMs !== undefined ? { invitationTtlMs } : {}),
      logger: Boolean(opts.log),
      ...(opts.engine ? { envelopeEngine: opts.engine } : {}),
      env,
      // Made below once the service listens: its credentials are shown by the start that serves.
      demoTenant: false,
      ...withConsole?.options,
    });
  } catch (err) {
    await store.close();
    throw err;
  }
  try {
    const url = await service.listen({ port, host: opts.host }).catch((err: unknown) => {
      // The hint in the words of this command's flags.
      throw toIdsyncError(err).code === 'address_in_use' ? addressInUse(opts.host, port, 'stop it, or choose another --port', err) : err;
    });
    const io = deps.io;
    // Printed by the first start that listens; the store keeps just a hash of the secret. A start
    // that made the tenant but died before printing left them owed: this one prints a new secret.
    const demo = envSeeded
      ? undefined
      : await printDemoCredentials(
          service.deps,
          (creds) => {
            io.stdout(creds.renewed ? 'demo tenant: its credentials were never shown, so here is a new secret; keep these, they are shown once:\n' : 'demo tenant created; keep these, they are shown once:\n');
            io.stdout(`  IDSYNC_CLIENT_ID=${creds.clientId}\n  IDSYNC_CLIENT_SECRET=${creds.clientSecret}\n  IDSYNC_PROJECT_ID=${creds.projectId}\n`);
          },
          envCrashPoint(io.env ?? {}),
        );
    io.stdout(`public URL ${service.deps.publicUrl}, DID ${service.deps.serviceDid}\n`);
    io.stdout(`OpenAPI ${url}/openapi.json, docs ${url}/docs, data in ${opts.data}\n`);
    if (faults) io.stdout(`console ${url}/console: sign in with a client holding idsync:admin (${demo ? 'the demo tenant above' : 'the client printed when this data folder was first used, or IDSYNC_CLIENT_ID / IDSYNC_CLIENT_SECRET'})\n`);
    // Last line of the start-up banner: scripts wait for it.
    io.stdout(`idsync service listening on ${url}\n`);
    deps.onService?.(service);
    deps.onListening?.(url);
    await deps.until;
    io.stdout('idsync service stopping\n');
  } finally {
    // Server, then the DIDComm agent (it finishes what it is doing), then webhook delivery; then the store.
    try {
      await service.close();
    } finally {
      await store.close();
    }
  }
}

export function registerServiceCommand(program: Command, deps: { io?: CliIo } = {}): void {
  program
    .command('service')
    .description('run the local twin of the identity data sync and issuance service')
    .option('--port <port>', 'TCP port (0: any free port)', '8080')
    .option('--host <host>', 'address to listen on', parseHost, '127.0.0.1')
    .option('--data <dir>', 'LevelDB folder', './.idsync/service')
    .option('--public-url <url>', 'URL clients and wallets reach the service at (default http://<host>:<port>)')
    .option('--fixtures <file>', 'JSON file with tenants, clients, projects and data profiles (see fixtures/service-fixtures.json)')
    .option('--smtp <url>', 'SMTP server for e-mail invitations, e.g. smtp://127.0.0.1:2525')
    .option('--sms-gateway <url>', 'HTTP endpoint that receives SMS invitations as JSON POSTs')
    .option('--rate-limit <spec>', 'per-client limit: off or BURST:PER_SECOND (default 120:20); off also turns off the per-address limits no flag sets')
    .option('--didcomm-rate-limit <spec>', 'per remote address limit on POST /didcomm and WebSocket upgrades and frames: off or BURST:PER_SECOND (default 600:100)')
    .option('--token-rate-limit <spec>', 'per remote address limit on token requests: off or BURST:PER_SECOND (default 60:5)')
    .option('--secret-checks <spec>', 'client secret checks at once and waiting: CONCURRENCY:QUEUE (default 2:32)')
    .option('--allow-private-endpoints', "let the agent send to peers' DIDComm endpoints in private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7)")
    .option('--no-loopback-endpoints', "refuse peers' DIDComm endpoints on loopback (127.0.0.0/8, ::1, localhost)")
    .option('--invitation-ttl <duration>', 'lifetime of Data Pipe invitations, e.g. 30d, 12h or ms (default 30d)')
    .option('--log', 'log every request (JSON lines on stdout)')
    .option('--console', 'serve the web console at /console (sign in with a client holding idsync:admin); DIDComm faults can be turned on from it')
    .addOption(engineOption())
    .action(async (opts: ServiceCommandOptions) => {
      const io = deps.io ?? processIo;
      await runService(opts, { io, env: io.env ?? process.env, until: untilSignal() });
    });
}
