// The wallet as prover in Present Proof 3.0, for DID authentication before each sync
// (docs/protocols.md "Sync" step 1): a request-presentation with a challenge and domain is
// answered with a presentation signed eddsa-jcs-2022 by the DID's authentication key, at once
// (policy 'auto') or after approve() (proofRequests: 'manual').
import { isoNow } from '../clock.js';
import { sameDid } from '../didcomm/message.js';
import type { HandlerContext, ProtocolModule } from '../router/router.js';
import { IdsyncError } from '../errors.js';
import {
  buildDidAuthPresentation, buildPresentation, presentProofProtocol, PRESENT_PROOF_PROVER, type ParsedRequestPresentation,
} from '../protocols/present-proof.js';
import { type WalletContext } from './context.js';
import { signAsHolder } from './identity.js';
import { announce } from './pending.js';
import type { PendingItem } from './policies.js';
import { answerStep, receiveStep, sendStep, type StepTake } from './thread-steps.js';
import type { PlainMessage } from '../didcomm/types.js';
import type { WalletThread } from './threads.js';

interface ProofData {
  challenge: string;
  domain: string;
  definitionId: string;
  goalCode?: string;
}

/** The envelope must prove who asks: a DID-auth proof is bound to the asker (its domain). */
export function requireAuthenticatedSender(h: HandlerContext): string {
  if (!h.sender || !h.metadata.authenticated) {
    throw new IdsyncError('sender_not_authenticated', `${h.message.type} must be authcrypted or signed by its sender`);
  }
  return h.sender;
}

async function onRequest(ctx: WalletContext, h: HandlerContext, parsed: ParsedRequestPresentation): Promise<void> {
  const sender = requireAuthenticatedSender(h);
  // VC Data Integrity §2.1 domain: the proof is only good for the party named in it; signing for
  // a domain other than the asker would let a third party replay our answer elsewhere.
  if (!sameDid(parsed.domain, sender)) {
    throw new IdsyncError('forbidden', `the request's domain ${parsed.domain} is not the DID asking (${sender})`);
  }
  const data: ProofData = { challenge: parsed.challenge, domain: parsed.domain, definitionId: parsed.definitionId, ...(parsed.goalCode ? { goalCode: parsed.goalCode } : {}) };
  const decision = ctx.policy.proofRequests;
  let parked: PendingItem | undefined;
  // The request received and its answer (or the item parked for the user): one step, one write.
  const { thread } = await answerStep(ctx, PRESENT_PROOF_PROVER, h.message, sender, { start: true, data: data as unknown as Record<string, unknown> }, async (t) => {
    if (decision === 'manual') {
      parked = {
        id: t.thid, kind: 'proof-request', thid: t.thid, from: sender, receivedAt: isoNow(ctx.clock), domain: parsed.domain, message: h.message,
        ...(parsed.goalCode ? { goalCode: parsed.goalCode } : {}),
      };
      return { ops: [ctx.pending.addOp(parked)] };
    }
    return { message: await presentationFor(ctx, t) };
  });
  if (parked) announce(ctx, parked);
  else presented(ctx, thread);
}

/** The DID-auth presentation for the thread's challenge and domain, signed, in its message. */
async function presentationFor(ctx: WalletContext, thread: WalletThread): Promise<PlainMessage> {
  const data = thread.data as unknown as ProofData;
  // The long form as holder and key id: any verifier can check it offline (did/ion.ts), whether
  // or not it has learnt our short form yet.
  const vp = buildDidAuthPresentation({ holder: ctx.identity.did, definitionId: data.definitionId, submissionId: ctx.ids() });
  const signed = await signAsHolder(ctx, vp, data);
  return buildPresentation({ to: thread.peer, thid: thread.thid, presentation: signed }, { clock: ctx.clock, ids: ctx.ids });
}

function presented(ctx: WalletContext, thread: WalletThread): void {
  const data = thread.data as unknown as ProofData;
  ctx.events.emit('presentation-sent', { thid: thread.thid, domain: data.domain, challenge: data.challenge });
}

/** Signs the DID-auth presentation for the thread's challenge and domain and sends it (with `take`, the rest of the step). */
export async function answerProofRequest(ctx: WalletContext, thread: WalletThread, take: StepTake = {}): Promise<void> {
  await sendStep(ctx, PRESENT_PROOF_PROVER, await presentationFor(ctx, thread), take);
  presented(ctx, thread);
}

/** The wallet's Present Proof module (prover role). */
export function walletPresentProof(ctx: () => WalletContext): ProtocolModule {
  return presentProofProtocol(
    {
      'request-presentation': (h, parsed) => onRequest(ctx(), h, parsed),
      ack: async (h) => {
        await receiveStep(ctx(), PRESENT_PROOF_PROVER, h.message, h.sender);
      },
    },
    ['prover'],
  );
}
