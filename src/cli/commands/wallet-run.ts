// Running a wallet for one `idsync wallet` command: opening its folder (LevelDB admits one
// process), going through the serve process when one runs (wallet-control.ts), running the agent
// here for the command's duration otherwise, and answering an invitation (accept, approve).
import { readdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { IdsyncError, toIdsyncError } from '../../errors.js';
import type { EnvelopeEngine } from '../../didcomm/types.js';
import type { Invitation } from '../../protocols/out-of-band.js';
import { didRegistry } from '../../store/dids.js';
import { openStore, type Store } from '../../store/store.js';
import { loadIdentity } from '../../wallet/identity.js';
import { createWallet, type Acceptance, type Wallet } from '../../wallet/wallet.js';
import type { WalletOptions } from '../../wallet/options.js';
import type { CliIo, Output } from '../output.js';
import { credentialView, type AcceptResult } from './wallet-views.js';
import { makeDir } from '../../make-dir.js';
import { usageError } from '../errors.js';

export interface WalletCommandDeps {
  io: CliIo;
  output(json: boolean): Output;
  /** When `wallet serve` stops (default: SIGINT or SIGTERM). */
  until?: () => Promise<unknown>;
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether the service can push to this wallet right now (an endpoint is published and we listen on it). */
export const reachable = (wallet: Wallet) =>
  // Behind a mediator the service reaches the wallet through it (the running wallet collects there).
  wallet.mediation !== undefined || (wallet.identity.endpoint !== undefined && Object.values(wallet.endpoints ?? {}).includes(wallet.identity.endpoint));

/** The listen options for a wallet whose DID names `endpoint` (its port and path, when it is on this machine). */
export function listenOptionsFor(endpoint: string | undefined, host: string, port: number | undefined) {
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

/** A wallet's folder as given with --data: not empty (join('', 'store') is the working folder's store). */
export function walletDir(dir: string): string {
  if (dir.trim() === '') throw usageError('invalid_argument', '--data must name the wallet\'s folder: it is empty');
  return dir;
}

/**
 * Refuses a --data that cannot be a wallet's folder before anything is made in it: a file (which
 * every command called a missing wallet, and create an unusable folder), or a LevelDB folder
 * itself, such as a wallet's own DIR/store or a mediator's data folder, where create made a new
 * wallet among another database's files.
 */
export async function checkWalletFolder(dir: string): Promise<void> {
  walletDir(dir);
  const found = await stat(dir).catch((err: NodeJS.ErrnoException) => err);
  if (found instanceof Error) {
    if (found.code === 'ENOTDIR') throw usageError('invalid_argument', `--data ${dir} goes through ${await fileOnTheWay(dir)}, a file, not a folder: give the wallet's folder`);
    return; // not there (made by create), or refused: the store's opening says why
  }
  if (!found.isDirectory()) throw usageError('invalid_argument', `--data ${dir} is a file, not a folder: give the wallet's folder`);
  if (await isLevelDb(dir)) {
    const holder = basename(resolve(dir)) === 'store' ? `: give the folder that holds it, ${dirname(dir)}` : '';
    throw usageError('invalid_argument', `--data ${dir} is a LevelDB folder itself, not a wallet's folder (a wallet keeps its LevelDB in DIR/store)${holder}`);
  }
}

/** The first part of `dir` that is a file (what made its stat ENOTDIR). */
async function fileOnTheWay(dir: string): Promise<string> {
  let at = dirname(dir);
  for (let up = dirname(at); up !== at; at = up, up = dirname(at)) {
    if ((await stat(at).catch(() => undefined))?.isFile()) return at;
  }
  return at;
}

/** LevelDB's own files: it writes CURRENT and LOCK in every folder it opens. */
async function isLevelDb(dir: string): Promise<boolean> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.includes('CURRENT') && names.includes('LOCK');
}

export async function openWalletStore(dir: string): Promise<Store> {
  await checkWalletFolder(dir);
  return openStoreIn(dir);
}

const noWallet = (dir: string) => new IdsyncError('wallet_not_found', `no wallet in ${dir} (create one: idsync wallet create --data ${dir})`);

/** The store of the wallet in `dir`, which must have one: never made here. */
async function openExistingStore(dir: string): Promise<Store> {
  await checkWalletFolder(dir);
  const exists = await stat(join(dir, 'store')).then(() => true, () => false);
  if (!exists) throw noWallet(dir);
  return openStoreIn(dir);
}

/** Opens DIR/store (made when missing) in a `dir` already checked (checkWalletFolder). */
async function openStoreIn(dir: string): Promise<Store> {
  await makeDir(join(dir, 'store'));
  try {
    return await openStore({ path: join(dir, 'store') });
  } catch (err) {
    if (toIdsyncError(err).code === 'store_locked') {
      throw new IdsyncError('wallet_busy', `${dir} is used by another process (a wallet serve without ${join(dir, 'serve.json')}?)`, { cause: err });
    }
    throw err;
  }
}

/** `--allow-private-endpoints`: the wallet may connect to private ranges (loopback always; metadata never). */
export function addressOptions(opts: { allowPrivateEndpoints?: boolean }): Pick<WalletOptions, 'outboundAddresses'> {
  return opts.allowPrivateEndpoints ? { outboundAddresses: { allowPrivate: true } } : {};
}

/** Opens an existing wallet (never creates a DID here: reading a folder must not change it). */
async function openExisting(dir: string, engine?: EnvelopeEngine, extra: Partial<WalletOptions> = {}): Promise<{ wallet: Wallet; close(): Promise<void> }> {
  const store = await openExistingStore(dir);
  if (!(await loadIdentity(didRegistry(store)))) {
    await store.close();
    throw noWallet(dir);
  }
  // No serve process holds the store: a serve.json left behind is stale.
  await rm(join(dir, 'serve.json'), { force: true });
  // A wallet behind a mediator collects there only for the commands that act (accept, approve,
  // pickup): reading a folder must not change it.
  const wallet = createWallet({ store, ...(engine ? { envelopeEngine: engine } : {}), mediation: { collect: false }, ...extra });
  await wallet.init();
  return {
    wallet,
    async close() {
      await wallet.close();
      await store.close();
    },
  };
}

/** Runs `fn` on the wallet's store opened here, without starting its agent (nothing is sent). */
export async function withStore<T>(dir: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openExistingStore(dir);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Runs `op` through the serve process of `dir` when one runs, else on the store opened here. */
export async function withWallet<T>(dir: string, remote: () => Promise<T | undefined>, local: (wallet: Wallet) => Promise<T>, engine?: EnvelopeEngine, extra: Partial<WalletOptions> = {}): Promise<T> {
  const answered = await remote();
  if (answered !== undefined) return answered;
  const opened = await openExisting(dir, engine, extra);
  // The wallet's own waits (a reply's timeout, the retry scheduler) are unref'd timers, so that a
  // library user's process can end while a wallet idles. A command waits for its answer: with
  // nothing else open (no endpoint to listen on, the inviter unreachable) Node would otherwise
  // end the process mid-wait, silently, with exit 13 (an unsettled top-level await).
  const alive = setInterval(() => undefined, 2 ** 30);
  try {
    return await local(opened.wallet);
  } finally {
    clearInterval(alive);
    await opened.close();
  }
}

/** For a command's duration: listen on the DID's endpoint when that port is free here (else replies come by live delivery and pickup). */
export async function listenHere(wallet: Wallet): Promise<void> {
  if (!wallet.identity.endpoint) return;
  await wallet.listen(listenOptionsFor(wallet.identity.endpoint, '127.0.0.1', undefined)).catch(() => undefined); // taken or elsewhere: live delivery and pickup
}

/**
 * Answers an invitation with a running wallet (`run` accepts it: from a URL, or a pending item).
 * A wallet the service cannot reach asks for live delivery on a WebSocket first (Message Pickup
 * 3.0 live mode) and collects anything queued.
 */
export async function answerInvitation(wallet: Wallet, invitation: Invitation, run: () => Promise<Acceptance>, o: { wait: boolean }): Promise<AcceptResult> {
  if (!reachable(wallet)) {
    await wallet.goLive(invitation.from).catch(() => undefined); // no WebSocket: return routes and pickup still work
  }
  const acceptance = await run();
  const base = { invitationId: invitation.id, peer: invitation.from, thid: acceptance.thid, ...(invitation.body.goal_code ? { goalCode: invitation.body.goal_code } : {}) };
  if (acceptance.kind === 'data-pipe') return { kind: 'data-pipe', ...base, state: acceptance.connection.state };
  if (!o.wait) return { kind: 'issuance', ...base };
  if (!reachable(wallet)) await wallet.pickup(invitation.from).catch(() => undefined);
  return { kind: 'issuance', ...base, credential: credentialView(await acceptance.done) };
}
