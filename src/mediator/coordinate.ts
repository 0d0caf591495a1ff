// The mediator side of Coordinate Mediation 2.0 and 3.0: mediate-request answered with a grant
// (routing_did: this mediator's DID; one string in 2.0, a list in 3.0) or, when the policy's deny
// rules match the requester, a mediate-deny; keylist-update / recipient-update applied for a
// granted party, up to the policy's number of recipient DIDs per party; keylist-query /
// recipient-query answered with its DIDs, one page when asked.
// Every request must be authcrypted: the party is the DID the envelope proves.
import { shortForm } from '../did/short-form.js';
import { IdsyncError } from '../errors.js';
import {
  buildMediateDeny, buildMediateGrant, buildRecipientList, buildRecipientUpdateResponse, coordinateMediationProtocol, MEDIATION_VERSIONS,
  type MediationVersion,
} from '../protocols/coordinate-mediation.js';
import { protocolError } from '../protocols/protocol-kit.js';
import type { HandlerContext, ProtocolModule } from '../router/router.js';
import type { MediatorCore } from './core.js';
import { deniedBy } from './policy.js';
import { keyedLock, type KeyedLock } from '../keyed-lock.js';

function partyOf(ctx: HandlerContext): string {
  if (!ctx.sender || !ctx.metadata.authenticated) {
    throw new IdsyncError('sender_not_authenticated', 'coordinate-mediation requests must be authcrypted by the recipient');
  }
  return ctx.sender;
}

async function grantedParty(core: MediatorCore, ctx: HandlerContext): Promise<string> {
  const party = partyOf(ctx);
  if (!(await core.keylist.granted(party))) {
    throw protocolError('mediation_required', 'mediation was not granted to this DID: send a mediate-request first');
  }
  return party;
}

function versionProtocol(core: MediatorCore, v: MediationVersion, updates: KeyedLock): ProtocolModule {
  const deps = { clock: core.clock, ids: core.ids };
  return coordinateMediationProtocol(
    v,
    {
      'mediate-request': async (ctx) => {
        const party = partyOf(ctx);
        const rule = deniedBy(core.policy, party);
        if (rule !== undefined) {
          core.events.emit('mediation-denied', { party: shortForm(party), rule, version: v });
          await ctx.reply(buildMediateDeny(v, { thid: ctx.thid }, deps));
          return;
        }
        await core.keylist.grant(party, v);
        core.events.emit('mediation-granted', { party: shortForm(party), version: v });
        await ctx.reply(buildMediateGrant(v, { thid: ctx.thid, routingDid: core.did() }, deps));
      },
      update: async (ctx, parsed) => {
        const party = await grantedParty(core, ctx);
        // The policy's limit on a party's keylist: a request that would pass it is refused whole
        // (nothing applied), with a problem report that names the limit. Counted and applied with
        // the party's other updates held back: two at once would each count the keylist before
        // the other's adds, and together pass the limit.
        const updated = await updates(shortForm(party), async () => {
          const after = await core.keylist.countAfter(party, parsed.updates);
          if (after > core.policy.maxKeys) {
            throw protocolError('keylist_full', `this mediator keeps at most ${core.policy.maxKeys} recipient DIDs per party; the update would leave ${after}`, { maxKeys: core.policy.maxKeys });
          }
          return core.keylist.update(party, parsed.updates);
        });
        core.events.emit('keylist-updated', { party: shortForm(party), updated, version: v });
        await ctx.reply(buildRecipientUpdateResponse(v, { thid: ctx.thid, updated }, deps));
      },
      query: async (ctx, parsed) => {
        const party = await grantedParty(core, ctx);
        const { dids, total } = await core.keylist.list(party, parsed.paginate);
        // §Keylist: pagination "count, offset and remaining", given when the query paginated.
        const pagination = parsed.paginate ? { count: dids.length, offset: parsed.paginate.offset, remaining: Math.max(0, total - parsed.paginate.offset - dids.length) } : undefined;
        await ctx.reply(buildRecipientList(v, { thid: ctx.thid, dids, ...(pagination ? { pagination } : {}) }, deps));
      },
    },
    ['mediator'],
  );
}

/** The mediator's modules for both versions (router.use). */
export function mediatorCoordination(core: MediatorCore): ProtocolModule[] {
  // One party's keylist updates one at a time, in either version.
  const updates = keyedLock();
  return MEDIATION_VERSIONS.map((v) => versionProtocol(core, v, updates));
}
