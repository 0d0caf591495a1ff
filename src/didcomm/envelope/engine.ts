// What an envelope engine does, whichever implements it: index.ts checks the arguments, picks the
// engine (native by default, didcomm-node on request) and applies the rules both share.
import type { AnoncryptEnc, EnvelopeContext, EnvelopeMode, PackResult, PlainMessage, UnpackResult } from '../types.js';
import type { FromPriorClaims } from './from-prior.js';

/** A pack request after index.ts has checked it and filled in the defaults. */
export interface PackPlan {
  mode: EnvelopeMode;
  to?: string;
  from?: string;
  signBy?: string;
  signs: boolean;
  authcrypts: boolean;
  /** Anoncrypt the authcrypted message again (protect_sender). */
  protect: boolean;
  forward: boolean;
  encAlgAnon: AnoncryptEnc;
}

export interface Engine {
  pack(message: PlainMessage, plan: PackPlan, ctx: EnvelopeContext): Promise<PackResult>;
  /** One message, without unwrapping forwards (index.ts does that for both engines). */
  unpack(packed: string, ctx: EnvelopeContext, options: { expectDecryptByAllKeys: boolean; parsed?: Record<string, unknown> }): Promise<UnpackResult>;
  wrapInForward(packed: string, o: { to: string; routingKeys: string[]; headers: Record<string, string>; enc: AnoncryptEnc }, ctx: EnvelopeContext): Promise<string>;
  packFromPrior(claims: FromPriorClaims, issuerKid: string | undefined, ctx: EnvelopeContext): Promise<{ jwt: string; issuerKid: string }>;
}
