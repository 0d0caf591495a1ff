// `idsync demo`: the service twin and a holder wallet in this process, on a temporary LevelDB
// store and real sockets on 127.0.0.1, through both flows end to end, printing each step:
//   sync:     PUT user (isSyncOn) → invite → the wallet accepts (consent) → Data Pipe → PUT
//             datapoints → DID authentication → credential issued, verified, stored → linked;
//   issuance: workflow → invitation sent by e-mail (the outbox) → the wallet accepts the URL →
//             WACI streamlined-vc → workflow COMPLETED.
// With --mediated the wallet sits behind idsync's mediator: its DID names the mediator, the twin
// forwards to it, and the wallet collects live over Message Pickup 3.0; the same two flows run.
// With --json only the result is printed: {sync: {…}, issuance: {…}}. With --console the twin
// serves its web console, the flows start once someone signs in to it, and the twin keeps running
// afterwards (until SIGINT/SIGTERM) so that both flows can be followed and looked at in the browser.
import { Command } from 'commander';
import { serviceConsole } from '../../console/service-console.js';
import { randomId } from '../../encoding.js';
import { IdsyncError } from '../../errors.js';
import {
  faultSwitch, nextOutboxEntry, startTestbed, syncDatapoints, waitForSyncContext, waitForWebhook, waitForWorkflowStatus, type Testbed, type TestbedOptions,
} from '../../testing/index.js';
import type { EnvelopeEngine } from '../../didcomm/types.js';
import { engineOption } from '../engine-option.js';
import { usageError } from '../errors.js';
import type { CliIo, Output } from '../output.js';
import { untilSignal } from '../signals.js';
import type { TestbedMediator } from '../../testing/testbed-mediator.js';
import { stopWaits, waitForEvent } from '../../wait.js';

export interface DemoResult {
  sync: { userId: string; userDID: string; isLinked: boolean; credentialId: string; verified: boolean };
  issuance: { workflowId: string; status: string; credentialId: string; verified: boolean };
  /** With --mediated: the mediator, the forwards it queued for the wallet, and what still waits there. */
  mediator?: { did: string; forwards: number; waiting: number };
}

const USER = 'demo-user';
const EMAIL = 'ada@example.com';
const DATAPOINTS = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  birthDate: '1815-12-10',
  nationality: 'GB',
  residentialAddressStreetAddress: '12 St James Square',
  residentialAddressLocality: 'London',
  residentialAddressPostalCode: 'SW1Y 4JH',
  residentialAddressCountry: 'GB',
};
const WORKFLOW_DATAPOINTS = { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09', emailAddress: EMAIL };

// Each wait gets a generous guard: a cold start (JSON-LD contexts, WASM) is slower than a test.
const WAIT = { timeoutMs: 60_000 };

export interface DemoConsole {
  /** Resolves when the demo should stop once its flows are done (default SIGINT or SIGTERM). */
  until?: Promise<unknown>;
  /** Called with the console's URL and sign-in once it serves. */
  onReady?: (info: { url: string; clientId: string; clientSecret: string }) => void;
}

export interface DemoOptions {
  engine?: EnvelopeEngine;
  /** Serve the web console, start the flows at the first sign-in, keep running afterwards. */
  console?: DemoConsole;
  /** The wallet behind idsync's mediator (the testbed's, on 127.0.0.1). */
  mediated?: boolean;
}

/** The testbed options of the console mode: the console on the twin, a fault switch, a sign-in that starts the flows. */
function consoleSetup(bedRef: () => Testbed | undefined) {
  const faults = faultSwitch();
  const clientSecret = randomId(18);
  let signedIn!: () => void;
  const firstSignIn = new Promise<void>((resolve) => (signedIn = resolve));
  const options: Partial<TestbedOptions> = {
    faults,
    // A message a fault dropped after the peer's endpoint accepted it is sent again after 5 s, not 30.
    retry: { acceptedDelayMs: 5_000 },
    service: {
      clientSecret,
      plugins: [serviceConsole({ faults, wallet: () => bedRef()!.wallets[0]!, onSignIn: () => signedIn() })],
    },
  };
  return { options, clientSecret, firstSignIn };
}

export async function runDemo(out: Output, o: DemoOptions = {}): Promise<DemoResult> {
  const step = (n: number, text: string) => out.say(`${n}. ${text}`);
  const detail = (text: string) => out.say(`   ${text}`);

  step(1, `Start the service twin (temporary LevelDB store, HTTP on 127.0.0.1) and a holder wallet (envelope engine ${o.engine ?? 'native'})`);
  let bedRef: Testbed | undefined;
  const withConsole = o.console ? consoleSetup(() => bedRef) : undefined;
  // Listened for from the start: Ctrl-C while waiting for a sign-in stops the demo too.
  const until = o.console ? (o.console.until ?? untilSignal()) : Promise.resolve();
  const bed: Testbed = await startTestbed({
    transport: 'http',
    storage: 'temp',
    ...(o.engine ? { envelopeEngine: o.engine } : {}),
    ...(o.mediated ? { walletMode: 'mediated' as const } : {}),
    ...withConsole?.options,
  });
  bedRef = bed;
  try {
    const { client } = bed.service;
    const [wallet] = bed.wallets;
    detail(`service ${bed.service.url}, DID ${bed.service.did}`);
    let forwards = 0;
    const mediator = bed.mediator;
    if (mediator) {
      mediator.agent.events.on('forward-queued', () => void forwards++);
      detail(`mediator ${shorten(mediator.did)} (idsync's, on 127.0.0.1), invitation ${mediator.agent.shortInvitationUrl}`);
      detail(`wallet  ${wallet.shortDid} (did:ion long form), behind the mediator: coordinate-mediation ${wallet.mediation?.version ?? '?'}, its DID registered there, its DID's endpoint the mediator's DID; collecting ${wallet.collecting ?? '?'}`);
    } else {
      detail(`wallet  ${wallet.shortDid} (did:ion long form, ${wallet.did.length} characters), endpoint ${wallet.identity.endpoint}`);
    }
    if (withConsole) {
      const info = { url: `${bed.service.url}/console`, clientId: bed.service.credentials.clientId, clientSecret: withConsole.clientSecret };
      detail(`console ${info.url}`);
      detail(`sign in with client id ${info.clientId} and client secret ${info.clientSecret}`);
      detail('the flows start when you sign in; the console then follows them live');
      o.console!.onReady?.(info);
      const stopped = until.then(() => {
        throw new IdsyncError('aborted', 'stopped before anyone signed in to the console');
      });
      await Promise.race([withConsole.firstSignIn, stopped]);
      stopped.catch(() => undefined);
    }

    step(2, `Provider: PUT /api/v1/provider/users/${USER} {settings: {isSyncOn: true}}, then POST …/invite`);
    const invitation = await client.putUser(USER).then(() => client.invite(USER));
    detail(`invitationUrl ${shorten(invitation.invitationUrl ?? '')}`);

    step(3, 'Wallet: accept the invitation URL (the user consents) → Data Pipe request, authcrypted from the wallet DID');
    await wallet.acceptInvitation(invitation.invitationUrl!, { timeoutMs: WAIT.timeoutMs });
    await waitForSyncContext(client, USER, (c) => c.isSessionEstablished, WAIT);
    await waitForWebhook(bed.webhooks, { event: 'DATA_PIPE_ESTABLISHED', params: { userId: USER } }, WAIT);
    const userDID = (await client.getUser(USER)).userDID ?? '';
    detail(`established: the service linked ${shorten(userDID)}; webhook DATA_PIPE_ESTABLISHED (signature verified)`);

    step(4, 'Provider: PUT …/datapoints → sync: DID authentication (present-proof 3.0), then issue-credential 3.0');
    const synced = await syncDatapoints(bed, USER, wallet, DATAPOINTS, WAIT);
    const c1 = synced.credential;
    detail(`credential ${c1.id} (${c1.format}), verified by the wallet: ${c1.verified}`);
    detail(`claims ${JSON.stringify(c1.claims)}`);
    detail(`sync context: isSessionEstablished ${synced.syncContext.isSessionEstablished}, isLinked ${synced.syncContext.isLinked}`);
    await waitForWebhook(bed.webhooks, { event: 'DATA_SYNC_COMPLETED', params: { userId: USER } }, WAIT);
    detail('webhook DATA_SYNC_COMPLETED');

    step(5, 'Provider: POST /api/v1/issuance-workflows, then send-invitation by e-mail');
    const workflow = await client.createWorkflow({ datapoints: WORKFLOW_DATAPOINTS });
    await client.sendInvitation(workflow.id, [{ channel: 'EMAIL', target: EMAIL }]);
    const email = await nextOutboxEntry(bed.service, { to: EMAIL, workflowId: workflow.id }, WAIT);
    detail(`workflow ${workflow.id}; e-mail to ${email.to}: "${email.subject ?? ''}" (${email.status}, in the outbox)`);

    step(6, 'Wallet: accept the URL from the e-mail → propose, offer, request, issue, ack (WACI streamlined-vc)');
    const accepted = await wallet.acceptInvitation(email.invitationUrl, { timeoutMs: WAIT.timeoutMs });
    if (accepted.kind !== 'issuance') throw new IdsyncError('demo_failed', `the e-mailed invitation opened a ${accepted.kind}, not an issuance`);
    const c2 = await accepted.done;
    const done = await waitForWorkflowStatus(client, workflow.id, 'COMPLETED', WAIT);
    detail(`credential ${c2.id} (${c2.format}), verified by the wallet: ${c2.verified}; workflow ${done.status}`);

    const context = await client.syncContext(USER);
    const waiting = mediator ? await confirmedAtMediator(mediator, wallet.did) : 0;
    if (mediator) detail(`the twin's ${forwards} messages to the wallet went through the mediator as forwards, each delivered live and confirmed; ${waiting} wait there`);
    const result: DemoResult = {
      sync: { userId: USER, userDID, isLinked: context.isLinked, credentialId: c1.id, verified: c1.verified },
      issuance: { workflowId: workflow.id, status: done.status, credentialId: c2.id, verified: c2.verified },
      ...(mediator ? { mediator: { did: mediator.did, forwards, waiting } } : {}),
    };
    out.result(result, (r) =>
      `Done: both credentials verified by the wallet (${r.sync.verified && r.issuance.verified}); the user is linked (${r.sync.isLinked}); the workflow is ${r.issuance.status}.`,
    );
    if (o.console) {
      out.say(`The twin keeps running with its console at ${bed.service.url}/console; stop it with Ctrl-C.`);
      await until;
    }
    return result;
  } finally {
    await bed.close();
  }
}

/**
 * What still waits at the mediator for `did` once the wallet's last confirmation arrived: the
 * wallet confirms a live delivery just after handling it, so the flow can end before the mediator
 * heard (an event wait, guarded, not a sleep).
 */
async function confirmedAtMediator(m: TestbedMediator, did: string): Promise<number> {
  const stop = new AbortController();
  try {
    for (;;) {
      const confirmed = waitForEvent(m.agent.events, 'pickup-received', undefined, { timeoutMs: 10_000, signal: stop.signal });
      confirmed.catch(() => undefined);
      const waiting = await m.agent.mediator.queue.count(did);
      if (waiting === 0) return 0;
      if (!(await confirmed.then(() => true, () => false))) return m.agent.mediator.queue.count(did);
    }
  } finally {
    stopWaits(stop);
  }
}

function shorten(value: string): string {
  return value.length > 100 ? `${value.slice(0, 70)}…${value.slice(-20)}` : value;
}

export function registerDemoCommand(program: Command, deps: { io: CliIo; output(json: boolean): Output }): void {
  program
    .command('demo')
    .description('run the service twin and a wallet in one process through the sync flow and an e-mailed issuance, step by step')
    .addOption(engineOption())
    .option('--mediated', "the wallet behind idsync's mediator: the twin forwards to it, the wallet collects live (Message Pickup 3.0)")
    .option('--json', 'print only the result: {sync: {…}, issuance: {…}} (and mediator: {did, forwards, waiting} with --mediated)')
    .option('--console', 'serve the web console on the twin; the flows start when you sign in, and the twin keeps running after them until Ctrl-C')
    .action(async (opts: { json?: boolean; engine?: EnvelopeEngine; console?: boolean; mediated?: boolean }) => {
      if (opts.console && opts.json) throw usageError('invalid_argument', '--console prints where to sign in: it cannot be combined with --json');
      await runDemo(deps.output(Boolean(opts.json)), { engine: opts.engine, ...(opts.console ? { console: {} } : {}), ...(opts.mediated ? { mediated: true } : {}) });
    });
}
