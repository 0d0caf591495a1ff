// `idsync wallet create|serve|accept|credentials|messages`: a holder wallet in a folder (LevelDB
// in DIR/store). LevelDB admits one process, so `serve` (the running agent) writes DIR/serve.json
// {pid, url, token} and answers the other commands on a control API bound to 127.0.0.1 and
// guarded by that token (wallet-control.ts); without a serve process they open the store
// themselves. What they print is in wallet-views.ts.
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Command } from 'commander';
import { randomId } from '../../encoding.js';
import { IdsyncError, toIdsyncError } from '../../errors.js';
import { parseInvitationUrl } from '../../protocols/out-of-band.js';
import { didRegistry } from '../../store/dids.js';
import { openStore, type Store } from '../../store/store.js';
import { loadIdentity } from '../../wallet/identity.js';
import { createWallet, type Wallet } from '../../wallet/wallet.js';
import type { EnvelopeEngine } from '../../didcomm/types.js';
import { engineOption } from '../engine-option.js';
import { usageError } from '../errors.js';
import type { CliIo, Output } from '../output.js';
import { untilSignal } from '../signals.js';
import { startControl, stopControl, viaServe, type ServeInfo } from './wallet-control.js';
import {
  credentialView,
  humanAccept,
  humanCredentials,
  humanMessages,
  messageView,
  rejectedView,
  type AcceptResult,
  type CredentialView,
  type MessageView,
} from './wallet-views.js';

export interface WalletCommandDeps {
  io: CliIo;
  output(json: boolean): Output;
  /** When `wallet serve` stops (default: SIGINT or SIGTERM). */
  until?: () => Promise<unknown>;
}

// --- running a wallet: accept, serve ----------------------------------------------------------

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether the service can push to this wallet right now (an endpoint is published and we listen on it). */
const reachable = (wallet: Wallet) => wallet.identity.endpoint !== undefined && Object.values(wallet.endpoints ?? {}).includes(wallet.identity.endpoint);

/**
 * Accepts an invitation URL with a running wallet. A wallet the service cannot reach asks for live
 * delivery on a WebSocket first (Message Pickup 3.0 live mode) and collects anything queued.
 */
export async function acceptWith(wallet: Wallet, url: string, o: { wait: boolean; timeoutMs: number }): Promise<AcceptResult> {
  const invitation = await parseInvitationUrl(url);
  if (!reachable(wallet)) {
    await wallet.goLive(invitation.from).catch(() => undefined); // no WebSocket: return routes and pickup still work
  }
  const acceptance = await wallet.acceptInvitation(url, { timeoutMs: o.timeoutMs });
  const base = { invitationId: invitation.id, peer: invitation.from, thid: acceptance.thid, ...(invitation.body.goal_code ? { goalCode: invitation.body.goal_code } : {}) };
  if (acceptance.kind === 'data-pipe') return { kind: 'data-pipe', ...base, state: acceptance.connection.state };
  if (!o.wait) return { kind: 'issuance', ...base };
  if (!reachable(wallet)) await wallet.pickup(invitation.from).catch(() => undefined);
  return { kind: 'issuance', ...base, credential: credentialView(await acceptance.done) };
}

/** The listen options for a wallet whose DID names `endpoint` (its port and path, when it is on this machine). */
function listenOptionsFor(endpoint: string | undefined, host: string, port: number | undefined) {
  let path = '/didcomm';
  let p = port ?? 0;
  if (endpoint) {
    const u = new URL(endpoint);
    if (u.protocol === 'http:' && (LOCAL_HOSTS.has(u.hostname) || u.hostname === host)) {
      path = u.pathname || '/didcomm';
      if (port === undefined) p = Number(u.port || 80);
    }
  }
  return { http: { host, port: p, path }, ws: true as const };
}

async function openWalletStore(dir: string): Promise<Store> {
  await mkdir(join(dir, 'store'), { recursive: true });
  try {
    return await openStore({ path: join(dir, 'store') });
  } catch (err) {
    if (toIdsyncError(err).code === 'store_locked') {
      throw new IdsyncError('wallet_busy', `${dir} is used by another process (a wallet serve without ${join(dir, 'serve.json')}?)`, { cause: err });
    }
    throw err;
  }
}

/** Opens an existing wallet (never creates a DID here: reading a folder must not change it). */
async function openExisting(dir: string, engine?: EnvelopeEngine): Promise<{ wallet: Wallet; store: Store; close(): Promise<void> }> {
  const exists = await stat(join(dir, 'store')).then(() => true, () => false);
  if (!exists) throw new IdsyncError('wallet_not_found', `no wallet in ${dir} (create one: idsync wallet create --data ${dir})`);
  const store = await openWalletStore(dir);
  if (!(await loadIdentity(didRegistry(store)))) {
    await store.close();
    throw new IdsyncError('wallet_not_found', `no wallet in ${dir} (create one: idsync wallet create --data ${dir})`);
  }
  // No serve process holds the store: a serve.json left behind is stale.
  await rm(join(dir, 'serve.json'), { force: true });
  const wallet = createWallet({ store, ...(engine ? { envelopeEngine: engine } : {}) });
  await wallet.init();
  return {
    wallet,
    store,
    async close() {
      await wallet.close();
      await store.close();
    },
  };
}

/** Runs `op` through the serve process of `dir` when one runs, else on the store opened here. */
async function withWallet<T>(dir: string, remote: () => Promise<T | undefined>, local: (wallet: Wallet) => Promise<T>, engine?: EnvelopeEngine): Promise<T> {
  const answered = await remote();
  if (answered !== undefined) return answered;
  const opened = await openExisting(dir, engine);
  try {
    return await local(opened.wallet);
  } finally {
    await opened.close();
  }
}

/** What `wallet credentials` lists: the credentials held, then those refused. */
async function listCredentials(wallet: Wallet): Promise<CredentialView[]> {
  return [...(await wallet.credentials()).map(credentialView), ...(await wallet.rejectedCredentials()).map(rejectedView)];
}

async function listMessages(wallet: Wallet, thid: string | undefined): Promise<MessageView[]> {
  return (await wallet.messages(thid ? { thid } : {})).map(messageView);
}

export async function serveWallet(opts: { data: string; port?: string; host: string; json?: boolean; engine?: EnvelopeEngine }, deps: WalletCommandDeps): Promise<void> {
  const port = opts.port === undefined ? undefined : Number(opts.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw usageError('invalid_argument', `--port must be 0-65535: ${opts.port}`);
  const store = await openWalletStore(opts.data);
  const existing = await loadIdentity(didRegistry(store));
  const wallet = createWallet({ store, ...(opts.engine ? { envelopeEngine: opts.engine } : {}) });
  const out = deps.output(Boolean(opts.json));
  let control: Server | undefined;
  try {
    const endpoints = await wallet.listen(listenOptionsFor(existing?.endpoint, opts.host, port));
    const say = (text: string) => out.say(text);
    wallet.on('connection-established', (e) => say(`Data Pipe established with ${e.connection.theirDid}`));
    wallet.on('credential-received', (e) => say(`credential ${e.credential.id} received from ${e.credential.issuer} (${e.credential.format}, verified)`));
    wallet.on('credential-refused', (e) => say(`credential refused on thread ${e.thid}: ${e.failedCheck} check failed`));

    // Catch up: anything the service queued while no one listened, and live delivery when it cannot push to us.
    for (const peer of new Set((await wallet.connections({ state: 'established' })).map((c) => c.theirDid))) {
      if (!reachable(wallet)) await wallet.goLive(peer).catch(() => undefined);
      await wallet.pickup(peer).catch(() => undefined);
    }

    const token = randomId(24);
    control = await startControl(token, {
      'GET /info': async () => ({ did: wallet.did, shortDid: wallet.shortDid, endpoint: wallet.identity.endpoint ?? null, listening: endpoints }),
      'POST /accept': async (body) => {
        if (typeof body.url !== 'string') throw usageError('invalid_argument', 'accept needs a url');
        return acceptWith(wallet, body.url, { wait: body.wait === true, timeoutMs: typeof body.timeoutMs === 'number' ? body.timeoutMs : 120_000 });
      },
      'GET /credentials': async () => listCredentials(wallet),
      'GET /messages': async (_b, q) => listMessages(wallet, q.get('thid') ?? undefined),
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
    const published = wallet.identity.endpoint;
    out.result(
      { did: wallet.did, shortDid: wallet.shortDid, endpoint: published ?? null, listening: { http: endpoints.http, ws: endpoints.ws }, control: info.url },
      () =>
        [
          `wallet ${wallet.shortDid}`,
          `listening on ${endpoints.http} and ${endpoints.ws}`,
          published && published !== endpoints.http ? `note: the DID names ${published}; the service cannot push to this process` : '',
          !published ? 'the DID names no endpoint: messages come by live delivery and pickup' : '',
          `control API on ${info.url} (${join(opts.data, 'serve.json')}); stop with Ctrl-C`,
        ].filter(Boolean).join('\n'),
    );
    await (deps.until ?? untilSignal)();
    out.say('wallet stopping');
  } finally {
    await rm(join(opts.data, 'serve.json'), { force: true });
    if (control) await stopControl(control);
    await wallet.close();
    await store.close();
  }
}

// --- commands --------------------------------------------------------------------------------

function parseTimeout(value: string): number {
  const s = Number(value);
  if (!Number.isFinite(s) || s <= 0) throw usageError('invalid_argument', `--timeout must be a positive number of seconds: ${value}`);
  return s * 1000;
}

export function registerWalletCommands(program: Command, deps: WalletCommandDeps): void {
  const wallet = program.command('wallet').description('a holder wallet in a folder: create it, run it, accept invitations, list credentials and messages');

  wallet
    .command('create')
    .description('create the wallet (its did:ion and keys) in DIR')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--endpoint <url>', 'inbound DIDComm endpoint to publish in the DID (wallet serve listens there)')
    .option('--json', 'print {did, shortDid, endpoint}')
    .action(async (opts: { data: string; endpoint?: string; json?: boolean }) => {
      if (opts.endpoint !== undefined && !/^https?:\/\/[^/]/.test(opts.endpoint)) throw usageError('invalid_argument', `--endpoint is not an http(s) URL: ${opts.endpoint}`);
      const store = await openWalletStore(opts.data);
      try {
        const old = await loadIdentity(didRegistry(store));
        if (old) throw new IdsyncError('wallet_exists', `${opts.data} already holds wallet ${old.shortDid}`);
        const w = createWallet({ store, ...(opts.endpoint ? { endpoint: opts.endpoint } : {}) });
        const id = await w.init();
        await w.close();
        deps.output(Boolean(opts.json)).result({ did: id.did, shortDid: id.shortDid, endpoint: id.endpoint ?? null }, (r) =>
          [`did: ${r.did}`, `short did: ${r.shortDid}`, `endpoint: ${r.endpoint ?? 'none (live delivery and pickup)'}`].join('\n'),
        );
      } finally {
        await store.close();
      }
    });

  wallet
    .command('serve')
    .description('run the wallet agent: inbound HTTP and WebSocket endpoint, and a local control API for the other commands')
    .requiredOption('--data <dir>', 'wallet folder (created when empty)')
    .option('--port <port>', "port to listen on (default: the DID endpoint's, else any free port)")
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .addOption(engineOption())
    .option('--json', 'print one JSON line {did, shortDid, endpoint, listening, control} once listening')
    .action(async (opts: { data: string; port?: string; host: string; json?: boolean; engine?: EnvelopeEngine }) => serveWallet(opts, deps));

  wallet
    .command('accept')
    .description('accept an invitation URL (the user consents): open the Data Pipe, or receive the offered credential')
    .argument('<url>', 'invitation URL (?_oob= or ?_oobid=)')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--wait', 'issuance: wait until the credential arrived (a Data Pipe is always awaited until established)')
    .option('--timeout <seconds>', 'give up waiting after this long', '120')
    .addOption(engineOption())
    .option('--json', 'print one JSON document {kind, peer, thid, state?, credential?}')
    .action(async (url: string, opts: { data: string; wait?: boolean; timeout: string; json?: boolean; engine?: EnvelopeEngine }) => {
      const o = { wait: Boolean(opts.wait), timeoutMs: parseTimeout(opts.timeout) };
      const result = await withWallet(
        opts.data,
        () => viaServe<AcceptResult>(opts.data, 'POST', '/accept', { url, ...o }),
        async (w) => {
          // Run the agent for the duration: on the DID's endpoint when it is free here, else live delivery/pickup.
          if (w.identity.endpoint) {
            await w.listen(listenOptionsFor(w.identity.endpoint, '127.0.0.1', undefined)).catch(() => undefined); // taken or elsewhere: acceptWith falls back
          }
          return acceptWith(w, url, o);
        },
        opts.engine,
      );
      deps.output(Boolean(opts.json)).result(result, humanAccept);
    });

  wallet
    .command('credentials')
    .description('list the credentials the wallet holds (and those it refused)')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--json', 'print a JSON array of {id, type, issuer, claims, format, verified, status, …}')
    .action(async (opts: { data: string; json?: boolean }) => {
      const list = await withWallet(
        opts.data,
        () => viaServe<CredentialView[]>(opts.data, 'GET', '/credentials'),
        listCredentials,
      );
      deps.output(Boolean(opts.json)).result(list, humanCredentials);
    });

  wallet
    .command('messages')
    .description('list the message log: every DIDComm message in and out')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--thid <id>', 'only this thread')
    .option('--json', 'print a JSON array of {seq, at, direction, type, thid, mode, …}')
    .action(async (opts: { data: string; thid?: string; json?: boolean }) => {
      const list = await withWallet(
        opts.data,
        () => viaServe<MessageView[]>(opts.data, 'GET', `/messages${opts.thid ? `?thid=${encodeURIComponent(opts.thid)}` : ''}`),
        (w) => listMessages(w, opts.thid),
      );
      deps.output(Boolean(opts.json)).result(list, humanMessages);
    });
}
