// `idsync wallet serve`: the wallet agent until SIGINT/SIGTERM, with an inbound endpoint and the
// control API the other wallet commands use while it runs (wallet-control.ts). Every arrival is
// one line: for people, or with --json one JSON object a line after the listening line
// ({event, ...}), so that a script can follow what the wallet receives.
import { rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { EnvelopeEngine } from '../../didcomm/types.js';
import { randomId } from '../../encoding.js';
import { IdsyncError, toIdsyncError } from '../../errors.js';
import { addressInUse } from '../../listen.js';
import { didRegistry } from '../../store/dids.js';
import { loadIdentity } from '../../wallet/identity.js';
import { createWallet, type Wallet, type WalletEventMap } from '../../wallet/wallet.js';
import { MAX_WAIT_MS } from '../../wait.js';
import { usageError } from '../errors.js';
import { parsePort } from '../port.js';
import { untilSignal } from '../signals.js';
import { runningServe, startControl, stopControl, type ServeInfo } from './wallet-control.js';
import { approveWith, declineWith, listPending, pendingView, pickupWith } from './wallet-pending.js';
import { addressOptions, answerInvitation, listenOptionsFor, openWalletStore, reachable, type WalletCommandDeps } from './wallet-run.js';
import { parseInvitationUrl } from '../../protocols/out-of-band.js';
import { credentialView, humanPendingItem, messageView, rejectedView } from './wallet-views.js';
import { walletStatusOf } from './wallet-status.js';
import type { WalletConsole } from '../../console/wallet-console.js';

export interface ServeOptions {
  data: string;
  port?: string;
  host: string;
  json?: boolean;
  /** Accept invitations that arrive as DIDComm messages at once (policy invitations: 'auto'). */
  autoAccept?: boolean;
  /** Connect to peers, did:web hosts and status lists at private addresses. */
  allowPrivateEndpoints?: boolean;
  /** --engine: the envelope engine. */
  engine?: EnvelopeEngine;
  /** --console: the wallet's web console on a port of its own. */
  console?: boolean;
  /** --console-port (default: any free port). */
  consolePort?: string;
}

/** Refuses a second `wallet serve` on a folder, naming the one that runs (LevelDB admits one process). */
async function refuseSecondServe(dir: string): Promise<void> {
  const running = await runningServe(dir);
  if (!running) return;
  throw new IdsyncError(
    'wallet_busy',
    `wallet serve already runs for ${dir} (pid ${running.pid}${running.endpoint ? `, endpoint ${running.endpoint}` : ''}, control ${running.url}); ` +
      'stop it first, or use the other wallet commands: they go through it',
    { details: { pid: running.pid, control: running.url, ...(running.endpoint ? { endpoint: running.endpoint } : {}) } },
  );
}

/**
 * A listen refusal with what to do about it here. The DID's endpoint is named only when it chose
 * the port (a URL, and no --port given): a --port the user chose is theirs to change, and a
 * mediated wallet's DID names its mediator, not an address of this process.
 */
function serveListenError(err: unknown, endpoint: string | undefined, portGiven: boolean): unknown {
  const e = toIdsyncError(err);
  if (e.code !== 'address_in_use') return err;
  const { host, port } = e.details as { host: string; port: number };
  if (portGiven) return addressInUse(host, port, 'stop it, or choose another --port', err);
  const named = endpoint && /^https?:\/\//i.test(endpoint) ? ` (the DID names ${endpoint}: the service pushes only there)` : '';
  return addressInUse(host, port, `stop it, or pass --port${named}`, err);
}

/**
 * Prints what arrives as it arrives: one line per event (`human`), or with --json the event as a
 * JSON line. Lines wait until `open()` (the listening line comes first), then flow as they come.
 */
function arrivals(wallet: Wallet, json: boolean, write: (line: string) => void, dir: string): { open(): void } {
  let held: string[] | undefined = [];
  const emit = (event: string, data: Record<string, unknown>, human: string) => {
    const line = json ? JSON.stringify({ event, ...data }) : human;
    if (held) held.push(line);
    else write(line);
  };
  const on = <K extends keyof WalletEventMap>(event: K, fn: (e: WalletEventMap[K]) => void) => wallet.on(event, fn);
  on('connection-established', (e) => emit('connection-established', { theirDid: e.connection.theirDid, thid: e.connection.id }, `Data Pipe established with ${e.connection.theirDid}`));
  on('credential-received', (e) => emit('credential-received', { credential: credentialView(e.credential) }, `credential ${e.credential.id} received from ${e.credential.issuer} (${e.credential.format}, verified)`));
  on('credential-refused', (e) => emit('credential-refused', { thid: e.thid, failedCheck: e.failedCheck, credential: rejectedView(e.rejected) }, `credential refused on thread ${e.thid}: ${e.failedCheck} check failed`));
  for (const event of ['invitation-received', 'offer-pending', 'proof-request-pending'] as const) {
    on(event, (e) => emit(event, { item: pendingView(e.item) }, `pending: ${humanPendingItem(pendingView(e.item), dir)}`));
  }
  on('auto-accept-failed', (e) => emit('auto-accept-failed', { item: pendingView(e.item), code: e.code, message: e.message }, `invitation ${e.item.id} not accepted (${e.code}: ${e.message}); it stays pending`));
  on('collecting-changed', (e) =>
    emit('collecting-changed', { mediator: e.mediator, mode: e.mode }, e.mode === 'live' ? 'mediator: live delivery on its WebSocket again' : 'mediator: live delivery ended; polling it until its WebSocket is back'),
  );
  on('problem-received', (e) => emit('problem-received', { code: e.problem.code, text: e.problem.text, pthid: e.problem.pthid }, `problem ${e.problem.code} from ${e.problem.from ?? 'unknown'}: ${e.problem.text}`));
  return {
    open() {
      for (const line of held ?? []) write(line);
      held = undefined;
    },
  };
}

/**
 * The control API's `timeoutMs`: what `--timeout` is on the command line (default 120 s), and as
 * bounded: a timer fires at once beyond MAX_WAIT_MS, which would end the wait it guards.
 */
function controlTimeout(value: unknown): number {
  if (value === undefined) return 120_000;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value > MAX_WAIT_MS) {
    throw usageError('invalid_argument', `timeoutMs must be a whole number of ms, 1 to ${MAX_WAIT_MS}: ${JSON.stringify(value)}`);
  }
  return value;
}

export async function serveWallet(opts: ServeOptions, deps: WalletCommandDeps): Promise<void> {
  const port = opts.port === undefined ? undefined : parsePort('--port', opts.port);
  if (opts.consolePort !== undefined && !opts.console) throw usageError('invalid_argument', '--console-port needs --console: it is the web console\'s port');
  const consolePort = opts.consolePort === undefined ? 0 : parsePort('--console-port', opts.consolePort);
  await refuseSecondServe(opts.data);
  const store = await openWalletStore(opts.data);
  const existing = await loadIdentity(didRegistry(store));
  const wallet = createWallet({ store, ...addressOptions(opts), ...(opts.autoAccept ? { policy: { invitations: 'auto' as const } } : {}), ...(opts.engine ? { envelopeEngine: opts.engine } : {}) });
  const out = deps.output(Boolean(opts.json));
  const log = arrivals(wallet, Boolean(opts.json), (line) => deps.io.stdout(line + '\n'), opts.data);
  let control: Server | undefined;
  let web: WalletConsole | undefined;
  try {
    const endpoints = await wallet.listen(listenOptionsFor(existing?.endpoint, opts.host, port)).catch((err: unknown) => {
      throw serveListenError(err, existing?.endpoint, port !== undefined);
    });

    // Catch up: anything any peer queued while no one listened (a Data Pipe's service, and also an
    // issuer we only have a workflow thread or a pending invitation with), and live delivery when it cannot push to us.
    // A wallet behind a mediator collects there (its running wallet went live or polls it already).
    for (const peer of wallet.mediation ? [] : await wallet.peers()) {
      if (!reachable(wallet)) await wallet.goLive(peer).catch(() => undefined);
      await wallet.pickup(peer).catch(() => undefined);
    }

    const token = randomId(24);
    const timeoutOf = (body: Record<string, unknown>) => controlTimeout(body.timeoutMs);
    control = await startControl(token, {
      'GET /info': async () => ({ did: wallet.did, shortDid: wallet.shortDid, endpoint: wallet.identity.endpoint ?? null, listening: endpoints }),
      'POST /accept': async (body) => {
        if (typeof body.url !== 'string') throw usageError('invalid_argument', 'accept needs a url');
        const url = body.url;
        const timeoutMs = timeoutOf(body);
        return answerInvitation(wallet, await parseInvitationUrl(url), () => wallet.acceptInvitation(url, { timeoutMs }), { wait: body.wait === true });
      },
      'GET /status': async () => walletStatusOf(wallet),
      'GET /credentials': async () => [...(await wallet.credentials()).map(credentialView), ...(await wallet.rejectedCredentials()).map(rejectedView)],
      'GET /messages': async (_b, q) => (await wallet.messages(q.get('thid') ? { thid: q.get('thid')! } : {})).map(messageView),
      'GET /pending': async () => listPending(wallet),
      'POST /approve': async (body) => approveWith(wallet, String(body.id ?? ''), { wait: body.wait === true, timeoutMs: timeoutOf(body), dir: opts.data }),
      'POST /decline': async (body) => declineWith(wallet, String(body.id ?? ''), { ...(typeof body.reason === 'string' ? { reason: body.reason } : {}), dir: opts.data }),
      'POST /pickup': async (body) => pickupWith(wallet, typeof body.from === 'string' ? body.from : undefined),
    });
    const info: ServeInfo = {
      pid: process.pid,
      url: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
      token,
      did: wallet.did,
      shortDid: wallet.shortDid,
      ...(wallet.identity.endpoint ? { endpoint: wallet.identity.endpoint } : {}),
    };
    await writeFile(join(opts.data, 'serve.json'), JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
    // Loaded only when asked for: a wallet starts without the console's modules.
    if (opts.console) web = await (await import('../../console/wallet-console.js')).startWalletConsole(wallet, { host: opts.host, port: consolePort });
    const published = wallet.identity.endpoint;
    out.result(
      {
        did: wallet.did, shortDid: wallet.shortDid, endpoint: published ?? null, listening: { http: endpoints.http, ws: endpoints.ws }, control: info.url, autoAccept: Boolean(opts.autoAccept),
        ...(wallet.mediation ? { mediator: wallet.mediation.mediator, collecting: wallet.collecting ?? null } : {}),
        ...(web ? { console: { url: web.url, accessCode: web.accessCode } } : {}),
      },
      () =>
        [
          `wallet ${wallet.shortDid}`,
          `listening on ${endpoints.http} and ${endpoints.ws}`,
          wallet.mediation
            ? `behind mediator ${wallet.mediation.mediator} (coordinate-mediation ${wallet.mediation.version}): collecting by ${wallet.collecting === 'live' ? 'live delivery on its WebSocket' : 'polling'}`
            : published && published !== endpoints.http ? `note: the DID names ${published}, not this address: messages reach this process only through something there that forwards to it (a proxy)` : '',
          !published ? 'the DID names no endpoint: messages come by live delivery and pickup' : '',
          opts.autoAccept ? 'invitations that arrive are accepted at once (--auto-accept)' : 'invitations that arrive wait: idsync wallet pending, approve, decline',
          web ? `console ${web.url} (access code ${web.accessCode}; it is shown only here)` : '',
          `control API on ${info.url} (${join(opts.data, 'serve.json')}); stop with Ctrl-C`,
        ].filter(Boolean).join('\n'),
    );
    log.open();
    await (deps.until ?? untilSignal)();
    out.say('wallet stopping');
  } finally {
    await rm(join(opts.data, 'serve.json'), { force: true });
    await web?.close();
    if (control) await stopControl(control);
    await wallet.close();
    await store.close();
  }
}
