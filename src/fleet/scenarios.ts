// The built-in scenarios, each one simulated holder's flow in timed steps:
//   connect   PUT user (isSyncOn) → invite → the wallet accepts → Data Pipe established;
//   sync      connect, then PUT datapoints → DID authentication (until the credential is offered)
//             → the credential issued, verified and stored by the wallet;
//   issuance  an issuance workflow → its invitation by DIDCOMM (to the wallet's DID; the wallet
//             accepts what arrives) or EMAIL (the URL from the service's outbox) → the wallet
//             accepts → WACI streamlined-vc → the credential verified and stored.
// The waits are on the wallet's own events (no polling of the service), so a flow costs the
// service only the requests a real holder and provider would make.
import { IdsyncError } from '../errors.js';
import type { StoredCredential } from '../wallet/credential-store.js';
import type { Wallet } from '../wallet/wallet.js';
import type { FlowContext, Scenario } from './types.js';
import { stopWaits } from '../wait.js';

const NON_ENDING_PROBLEM = /^(w\.|e\.p\.msg\.duplicate)/;

export const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10', nationality: 'GB', emailAddress: 'ada@example.com' };

/** PUT user → invite → accept; resolves once the wallet has the Data Pipe established. */
export async function connectFlow(ctx: FlowContext): Promise<void> {
  await ctx.step('connect', async () => {
    await ctx.client.putUser(ctx.userId, { settings: { isSyncOn: true } });
    const { invitationUrl } = await ctx.client.invite(ctx.userId);
    if (!invitationUrl) throw new IdsyncError('fleet_flow_failed', `the service gave ${ctx.userId} no invitation URL (a session already established?)`);
    await ctx.wallet.acceptInvitation(invitationUrl, { timeoutMs: ctx.timeoutMs });
  });
}

/**
 * The next credential the wallet stores, or the reason it will not: a credential refused by its
 * checks or a problem report ends the wait with that code.
 */
export function nextCredential(wallet: Wallet, ctx: Pick<FlowContext, 'timeoutMs' | 'signal'>, thid?: string): Promise<StoredCredential> {
  const stop = new AbortController();
  const signal = AbortSignal.any([stop.signal, ctx.signal]);
  const o = { timeoutMs: ctx.timeoutMs, signal };
  const stored = wallet.waitForCredential({ ...o, ...(thid ? { thid } : {}) });
  const refused = wallet.waitFor('credential-refused', (e) => thid === undefined || e.thid === thid, o).then((e) => {
    throw new IdsyncError('fleet_flow_failed', `the wallet refused the credential (${e.failedCheck}${e.code ? `: ${e.code}` : ''})`, { details: { failedCheck: e.failedCheck, ...(e.code ? { reason: e.code } : {}) } });
  });
  // A warning or "I had that one already" (the answer to a retry that crossed the service's reply,
  // DIDComm v2 §Problem Codes) ends nothing; any other problem ends the flow.
  const problem = wallet.waitFor('problem-received', (e) => !NON_ENDING_PROBLEM.test(String(e.problem.code)), o).then((e) => {
    throw new IdsyncError('fleet_flow_failed', `the service reported a problem: ${e.problem.code}`, { details: { problemCode: e.problem.code } });
  });
  for (const p of [stored, refused, problem]) p.catch(() => undefined);
  return Promise.race([stored, refused, problem]).finally(() => stopWaits(stop)) as Promise<StoredCredential>;
}

export const connectScenario: Scenario = {
  name: 'connect',
  steps: ['connect'],
  run: connectFlow,
};

/** For a connected user: PUT datapoints → DID authentication → the credential stored. */
export async function syncConnected(ctx: FlowContext): Promise<void> {
  const stop = new AbortController();
  const o = { timeoutMs: ctx.timeoutMs, signal: AbortSignal.any([stop.signal, ctx.signal]) };
  // DID authentication is over when the service offers the credential (it verified the
  // presentation); the wallet's own 'presentation-sent' fires only once its POST returned,
  // which may be after the whole issuance when the service answers on the same request.
  const presented = ctx.wallet.waitFor('offer-received', undefined, o);
  const credential = nextCredential(ctx.wallet, ctx);
  presented.catch(() => undefined);
  credential.catch(() => undefined);
  try {
    await ctx.step('authenticate', async () => {
      await ctx.client.putDatapoints(ctx.userId, DATAPOINTS);
      // A failure before the presentation (a problem, a refusal) ends this step with its code.
      await Promise.race([presented, credential]);
    });
    await ctx.step('issue', () => credential);
  } finally {
    stopWaits(stop);
  }
}

export const syncScenario: Scenario = {
  name: 'sync',
  steps: ['connect', 'authenticate', 'issue'],
  async run(ctx) {
    await connectFlow(ctx);
    await syncConnected(ctx);
  },
};

/** The issuance scenario with its invitation channel. */
export function issuanceScenario(channel: 'DIDCOMM' | 'EMAIL' = 'DIDCOMM'): Scenario {
  return {
    name: 'issuance',
    steps: ['invite', 'issue'],
    async run(ctx) {
      const email = `${ctx.userId}@fleet.idsync.test`;
      const credential = channel === 'DIDCOMM' ? nextCredential(ctx.wallet, ctx) : undefined;
      credential?.catch(() => undefined);
      const url = await ctx.step('invite', async () => {
        const wf = await ctx.client.createWorkflow({ datapoints: { ...DATAPOINTS, emailAddress: email } });
        const sent = await ctx.client.sendInvitation(wf.id, [channel === 'DIDCOMM' ? { channel, target: ctx.wallet.did } : { channel: 'EMAIL', target: email }]);
        const delivery = sent.deliveries[0];
        if (!delivery || delivery.status === 'failed') {
          throw new IdsyncError('fleet_flow_failed', `the invitation was not delivered${delivery?.error ? ` (${delivery.error.code})` : ''}`, { details: { ...(delivery?.error ? { reason: delivery.error.code } : {}) } });
        }
        if (channel === 'DIDCOMM') return undefined;
        // The e-mail's text holds the URL; the twin's outbox gives it (GET /dev/outbox, admin scope).
        const entry = (await ctx.client.outbox({ workflowId: wf.id, channel: 'EMAIL' })).find((e) => e.id === delivery.outboxId);
        if (!entry) throw new IdsyncError('fleet_flow_failed', `outbox entry ${delivery.outboxId} not found`);
        return entry.invitationUrl;
      });
      await ctx.step('issue', async () => {
        if (credential) return credential;
        const accepted = await ctx.wallet.acceptInvitation(url!, { timeoutMs: ctx.timeoutMs });
        if (accepted.kind !== 'issuance') throw new IdsyncError('fleet_flow_failed', `the invitation opened a ${accepted.kind}, not an issuance`);
        return accepted.done;
      });
    },
  };
}

/** A built-in scenario by name (`issuance` with its channel). */
export function builtinScenario(name: string, options: { channel?: 'DIDCOMM' | 'EMAIL' } = {}): Scenario {
  switch (name) {
    case 'connect':
      return connectScenario;
    case 'sync':
      return syncScenario;
    case 'issuance':
      return issuanceScenario(options.channel);
    default:
      throw new IdsyncError('invalid_argument', `unknown scenario ${name} (connect, sync or issuance)`);
  }
}

export const BUILTIN_SCENARIOS = ['connect', 'sync', 'issuance'] as const;
