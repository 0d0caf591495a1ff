// `idsync wallet create|serve|accept|pending|approve|decline|pickup|credentials|messages`: a
// holder wallet in a folder (LevelDB in DIR/store). LevelDB admits one process, so `serve` (the
// running agent, wallet-serve.ts) writes DIR/serve.json {pid, url, token} and answers the other
// commands on a control API bound to 127.0.0.1 and guarded by that token (wallet-control.ts);
// without a serve process they open the store themselves and run the agent for their duration
// (wallet-run.ts). What they print is in wallet-views.ts.
import { rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { IdsyncError } from '../../errors.js';
import { parseInvitationUrl } from '../../protocols/out-of-band.js';
import { didRegistry } from '../../store/dids.js';
import { mediationStore } from '../../wallet/mediation.js';
import type { Store } from '../../store/store.js';
import { loadIdentity, WALLET_DID_METHODS, type WalletDidMethod } from '../../wallet/identity.js';
import { createWallet, type MediationOptions, type MediationRecord, type MediatorEndpointForm, type Wallet, type WalletIdentity } from '../../wallet/wallet.js';
import type { EnvelopeEngine } from '../../didcomm/types.js';
import { engineOption } from '../engine-option.js';
import { ACCEPT_INVITATION_HINT, checkInvitationArgument, checkMediatorArgument, shown } from '../invitation-argument.js';
import { usageError } from '../errors.js';
import { parseHost } from '../port.js';
import { HTTP_SCHEMES, parseUrlOption } from '../url-option.js';
import { waitMs } from '../duration.js';
import { abortOnSignal, type StopSignal } from '../signals.js';
import { viaServe } from './wallet-control.js';
import { MESSAGE_FORMATS, messagesDiagram, type MessageFormat } from './wallet-trace.js';
import { approveWith, declineWith, listPending, pickupWith, type ApproveResult, type PendingView, type PickupView } from './wallet-pending.js';
import { serveWallet, type ServeOptions } from './wallet-serve.js';
import { addressOptions, answerInvitation, listenHere, openWalletStore, walletDir, withStore, withWallet, type WalletCommandDeps } from './wallet-run.js';
import { humanWalletStatus, storedWalletStatus, type WalletStatusView } from './wallet-status.js';
import {
  credentialView,
  humanAccept,
  humanApprove,
  humanCredentials,
  humanMessages,
  humanPending,
  humanPickup,
  messageView,
  rejectedView,
  type AcceptResult,
  type CredentialView,
  type MessageView,
} from './wallet-views.js';

export type { WalletCommandDeps };

/** What `wallet credentials` lists: the credentials held, then those refused. */
async function listCredentials(wallet: Wallet): Promise<CredentialView[]> {
  return [...(await wallet.credentials()).map(credentialView), ...(await wallet.rejectedCredentials()).map(rejectedView)];
}

async function listMessages(wallet: Wallet, thid: string | undefined): Promise<MessageView[]> {
  return (await wallet.messages(thid ? { thid } : {})).map(messageView);
}

/**
 * wallet_exists, saying what the folder holds. A create stopped before its mediator answered
 * (killed, or an older idsync's Ctrl-C) leaves a wallet whose DID names that mediator but whose
 * mediation is not finished: the wallet's next start asks again, or the folder goes.
 */
async function walletExists(store: Store, dir: string, shortDid: string): Promise<IdsyncError> {
  const mediation = await mediationStore(store).get();
  if (mediation === undefined || mediation.state === 'registered') return new IdsyncError('wallet_exists', `${dir} already holds wallet ${shortDid}`);
  return new IdsyncError(
    'wallet_exists',
    `${dir} already holds wallet ${shortDid}, made for a mediator that has not granted mediation yet (its create was stopped while it waited): ` +
      `idsync wallet serve --data ${dir} finishes it once that mediator answers (idsync wallet status --data ${dir} names it), or remove ${join(dir, 'store')} and create it again`,
  );
}

/** The failure of a create that a stop signal ended (its requests aborted), or undefined when none did. */
function createStopped(by: StopSignal | undefined, opts: { data: string; mediator?: string }, cause: unknown): IdsyncError | undefined {
  if (by === undefined) return undefined;
  const waited = opts.mediator ? ' while it waited for the mediator' : '';
  return new IdsyncError('aborted', `wallet create stopped by ${by}${waited}: nothing is kept in ${opts.data}, so the same command starts over`, { cause });
}

// --- commands --------------------------------------------------------------------------------

function parseTimeout(value: string): number {
  return waitMs('--timeout', value, 1000, 'seconds');
}

export function registerWalletCommands(program: Command, deps: WalletCommandDeps): void {
  const wallet = program.command('wallet').description('a holder wallet in a folder: create it, run it, accept and approve invitations, collect what was queued, list credentials and messages');

  wallet
    .command('create')
    .description('create the wallet (its DID, a did:ion unless --did-method peer, and keys) in DIR')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--did-method <method>', "the wallet DID's method: ion (a did:ion long form, as the service's users hold) or peer (a did:peer:2)", 'ion')
    .option('--endpoint <url>', 'inbound DIDComm endpoint to publish in the DID (wallet serve listens there)')
    .option('--mediator <oob-url|did>', "sit behind this mediator: its invitation to mediate (URL) or its DID; the wallet's DID names it and the grant is kept")
    .option('--mediation-version <version>', 'coordinate-mediation version: 2.0, 3.0 or auto (2.0, then 3.0)', 'auto')
    .option('--mediator-form <form>', "how the DID names the mediator: did (its DID as the endpoint) or routing-keys (its URI and key)", 'did')
    .addOption(engineOption())
    .option('--allow-private-endpoints', 'reach the mediator at a private address')
    .option('--json', 'print {did, shortDid, endpoint, mediator?, mediationVersion?}')
    .action(async (opts: { data: string; didMethod: string; endpoint?: string; mediator?: string; mediationVersion: string; mediatorForm: string; engine?: EnvelopeEngine; allowPrivateEndpoints?: boolean; json?: boolean }, cmd: Command) => {
      const given = (name: string) => cmd.getOptionValueSource(name) === 'cli';
      if (!opts.mediator && (given('mediationVersion') || given('mediatorForm'))) {
        throw usageError('invalid_argument', `--${given('mediatorForm') ? 'mediator-form' : 'mediation-version'} needs --mediator: it says how to sit behind one`);
      }
      if (!(WALLET_DID_METHODS as readonly string[]).includes(opts.didMethod)) throw usageError('invalid_argument', `--did-method must be ${WALLET_DID_METHODS.join(' or ')}: ${opts.didMethod}`);
      // Parsed as a URL here: one that only looks like one (port 99999, 'http://[::1') would be
      // written into the DID for good, and every later serve or accept fail on it.
      if (opts.endpoint !== undefined) parseUrlOption('--endpoint', opts.endpoint, HTTP_SCHEMES);
      // An empty value (an unset shell variable) is a mistake, not "no mediator".
      if (opts.mediator !== undefined && opts.mediator.trim() === '') throw usageError('invalid_argument', '--mediator is empty: give its invitation URL or its DID');
      if (opts.endpoint && opts.mediator) throw usageError('invalid_argument', '--endpoint and --mediator exclude each other: the DID names one inbound route');
      if (!['2.0', '3.0', 'auto'].includes(opts.mediationVersion)) throw usageError('invalid_argument', `--mediation-version must be 2.0, 3.0 or auto: ${opts.mediationVersion}`);
      if (!['did', 'routing-keys'].includes(opts.mediatorForm)) throw usageError('invalid_argument', `--mediator-form must be did or routing-keys: ${opts.mediatorForm}`);
      if (opts.mediator) await checkMediatorArgument(opts.mediator);
      // A folder this create makes goes again when the create fails (an empty one only, never one
      // that was there or holds anything).
      const existed = await stat(walletDir(opts.data)).then(() => true, () => false);
      const store = await openWalletStore(opts.data);
      // Ctrl-C while the mediator keeps it waiting ends the create as its failure does: nothing kept.
      const stop = abortOnSignal();
      let fresh = false;
      try {
        const old = await loadIdentity(didRegistry(store));
        if (old) throw await walletExists(store, opts.data, old.shortDid);
        fresh = true;
        const mediation = { version: opts.mediationVersion as MediationOptions['version'], endpointForm: opts.mediatorForm as MediatorEndpointForm, collect: false };
        const w = createWallet({
          store,
          didMethod: opts.didMethod as WalletDidMethod,
          ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
          ...(opts.mediator ? { mediator: opts.mediator, mediation } : {}),
          ...(opts.engine ? { envelopeEngine: opts.engine } : {}),
          ...addressOptions(opts),
          signal: stop.signal,
        });
        let id: WalletIdentity;
        let m: MediationRecord | undefined;
        try {
          id = await w.init();
          m = w.mediation;
          fresh = false;
        } catch (err) {
          throw createStopped(stop.stoppedBy(), opts, err) ?? err;
        } finally {
          await w.close();
        }
        deps.output(Boolean(opts.json)).result(
          { did: id.did, shortDid: id.shortDid, endpoint: id.endpoint ?? null, ...(m ? { mediator: m.mediator, mediationVersion: m.version ?? null } : {}) },
          (r) =>
            [
              `did: ${r.did}`,
              `short did: ${r.shortDid}`,
              `endpoint: ${r.endpoint ?? 'none (live delivery and pickup)'}`,
              ...(m ? [`mediator: ${m.mediator} (coordinate-mediation ${m.version}, ${m.form === 'did' ? 'its DID as the endpoint' : 'its URI with routing keys'})`] : []),
            ].join('\n'),
        );
      } finally {
        stop.dispose();
        await store.close();
        // A create that failed (the mediator refused, or could not be reached) keeps nothing: the
        // DID it made names that mediator, so the same command, run again, starts over.
        if (fresh) await rm(join(walletDir(opts.data), 'store'), { recursive: true, force: true });
        if (fresh && !existed) await rmdir(walletDir(opts.data)).catch(() => {});
      }
    });

  wallet
    .command('serve')
    .description('run the wallet agent: inbound HTTP and WebSocket endpoint, and a local control API for the other commands')
    .requiredOption('--data <dir>', 'wallet folder (created when empty)')
    .option('--port <port>', "port to listen on (default: the DID endpoint's, else any free port)")
    .option('--host <host>', 'address to listen on', parseHost, '127.0.0.1')
    .option('--auto-accept', 'accept invitations that arrive as DIDComm messages at once (default: they wait for wallet approve)')
    .addOption(engineOption())
    .option('--allow-private-endpoints', 'connect to peers, did:web hosts and status lists at private addresses (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7)')
    .option('--json', 'print JSON lines: {did, shortDid, endpoint, listening, control, autoAccept} once listening, then {event, ...} for each arrival')
    .option('--console', "serve the wallet's web console (its flows, messages live, threads); an access code to sign in is printed once")
    .option('--console-port <port>', 'port of the web console (default: any free port)')
    .action(async (opts: ServeOptions) => serveWallet(opts, deps));

  wallet
    .command('accept')
    .description('accept an invitation URL (the user consents): open the Data Pipe, or receive the offered credential')
    .argument('<url>', 'invitation URL (?_oob= or ?_oobid=)')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--wait', 'issuance: wait until the credential arrived (a Data Pipe is always awaited until established)')
    .option('--timeout <seconds>', 'give up waiting after this long', '120')
    .addOption(engineOption())
    .option('--allow-private-endpoints', 'connect to the inviter, did:web hosts and status lists at private addresses')
    .option('--json', 'print one JSON document {kind, invitationId, goalCode, peer, thid, state?, credential?}')
    .action(async (url: string, opts: { data: string; wait?: boolean; timeout: string; json?: boolean; engine?: EnvelopeEngine; allowPrivateEndpoints?: boolean }) => {
      const o = { wait: Boolean(opts.wait), timeoutMs: parseTimeout(opts.timeout) };
      await checkInvitationArgument(url, shown(url), ACCEPT_INVITATION_HINT);
      const result = await withWallet(
        opts.data,
        () => viaServe<AcceptResult>(opts.data, 'POST', '/accept', { url, ...o }),
        async (w) => {
          await listenHere(w);
          return answerInvitation(w, await parseInvitationUrl(url), () => w.acceptInvitation(url, { timeoutMs: o.timeoutMs }), o);
        },
        opts.engine,
        { ...addressOptions(opts), mediation: { collect: true } },
      );
      deps.output(Boolean(opts.json)).result(result, humanAccept);
    });

  wallet
    .command('pending')
    .description('list what waits for the user: invitations that arrived as messages, offers and proof requests held back')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--json', 'print a JSON array of {id, kind, from, receivedAt, thid, goalCode?, goal?, preview?, replacementId?, domain?}')
    .action(async (opts: { data: string; json?: boolean }) => {
      const list = await withWallet(opts.data, () => viaServe<PendingView[]>(opts.data, 'GET', '/pending'), listPending);
      deps.output(Boolean(opts.json)).result(list, (l) => humanPending(l, opts.data));
    });

  wallet
    .command('approve')
    .description('approve a pending item (the user consents): accept the invitation, request the offered credential, or answer the proof request')
    .argument('<id>', 'the id `wallet pending` shows')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--wait', 'issuance: wait until the credential arrived')
    .option('--timeout <seconds>', 'give up waiting after this long', '120')
    .option('--json', 'print one JSON document {id, kind, thid, accepted?, credential?}')
    .action(async (id: string, opts: { data: string; wait?: boolean; timeout: string; json?: boolean }) => {
      const o = { wait: Boolean(opts.wait), timeoutMs: parseTimeout(opts.timeout), dir: opts.data };
      const result = await withWallet(
        opts.data,
        () => viaServe<ApproveResult>(opts.data, 'POST', '/approve', { id, wait: o.wait, timeoutMs: o.timeoutMs }),
        async (w) => {
          await listenHere(w);
          return approveWith(w, id, o);
        },
        undefined,
        { mediation: { collect: true } },
      );
      deps.output(Boolean(opts.json)).result(result, humanApprove);
    });

  wallet
    .command('decline')
    .description('decline a pending item: offers and proof requests are refused with a problem report, an invitation is dropped')
    .argument('<id>', 'the id `wallet pending` shows')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--reason <text>', 'said in the problem report')
    .option('--json', 'print one JSON document {id, kind, declined}')
    .action(async (id: string, opts: { data: string; reason?: string; json?: boolean }) => {
      const o = { ...(opts.reason !== undefined ? { reason: opts.reason } : {}), dir: opts.data };
      const result = await withWallet(opts.data, () => viaServe<{ id: string; kind: string; declined: true }>(opts.data, 'POST', '/decline', { id, ...o }), (w) => declineWith(w, id, o));
      deps.output(Boolean(opts.json)).result(result, (r) => `${r.kind} ${r.id} declined`);
    });

  wallet
    .command('pickup')
    .description('collect what the service queued for this wallet (Message Pickup), act on it as serve would, print what arrived, and exit')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--from <did-or-url>', "the service: its DID or URL (default: every service with an established Data Pipe)")
    .option('--json', 'print one JSON document {peers, received, pending, credentials, connections, problems}')
    .action(async (opts: { data: string; from?: string; json?: boolean }) => {
      const result = await withWallet(opts.data, () => viaServe<PickupView>(opts.data, 'POST', '/pickup', opts.from !== undefined ? { from: opts.from } : {}), (w) => pickupWith(w, opts.from));
      deps.output(Boolean(opts.json)).result(result, (r) => humanPickup(r, opts.data));
    });

  wallet
    .command('status')
    .description('who the wallet is, what it holds and waits on: its mediator, connections, credentials, pending items, and its retries (scheduled, due, retrying, abandoned)')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--json', 'print one JSON document {did, shortDid, endpoint, mediation, running, connections, credentials, pending, retries}')
    .action(async (opts: { data: string; json?: boolean }) => {
      const status = (await viaServe<WalletStatusView>(opts.data, 'GET', '/status')) ?? (await withStore(opts.data, (store) => storedWalletStatus(store, opts.data)));
      deps.output(Boolean(opts.json)).result(status, humanWalletStatus);
    });

  wallet
    .command('credentials')
    .description('list the credentials the wallet holds (and those it refused)')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--json', 'print a JSON array of {id, type, issuer, claims, format, verified, status, …}')
    .action(async (opts: { data: string; json?: boolean }) => {
      const list = await withWallet(opts.data, () => viaServe<CredentialView[]>(opts.data, 'GET', '/credentials'), listCredentials);
      deps.output(Boolean(opts.json)).result(list, humanCredentials);
    });

  wallet
    .command('messages')
    .description('list the message log: every DIDComm message in and out')
    .requiredOption('--data <dir>', 'wallet folder')
    .option('--thid <id>', 'only this thread')
    .addOption(new Option('--format <format>', 'text lines, or a sequence diagram: Mermaid text, or one self-contained HTML file').choices(MESSAGE_FORMATS).default('text'))
    .option('--json', 'print a JSON array of {seq, at, direction, type, thid, mode, …}')
    .action(async (opts: { data: string; thid?: string; format: MessageFormat; json?: boolean }) => {
      if (opts.json && opts.format !== 'text') throw usageError('conflicting_option', '--json and --format mermaid|html exclude each other');
      const list = await withWallet(
        opts.data,
        () => viaServe<MessageView[]>(opts.data, 'GET', `/messages${opts.thid ? `?thid=${encodeURIComponent(opts.thid)}` : ''}`),
        (w) => listMessages(w, opts.thid),
      );
      if (opts.format !== 'text') return void deps.io.stdout(messagesDiagram(list, opts.format, opts.thid));
      deps.output(Boolean(opts.json)).result(list, humanMessages);
    });
}
