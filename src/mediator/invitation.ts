// The out-of-band invitation to mediate (DIDComm v2 §Out Of Band Messages): from the mediator's
// DID, goal_code "request-mediate" (the value the Identus mediator publishes; no protocol
// registers one), printed when the mediator starts and served at GET /invitation. Its URL form
// `<public URL>/invitation?_oob=<base64url JSON>` also answers a GET with the invitation.
import { createInvitation, DIDCOMM_V2_PROFILE, encodeInvitationUrl, type Invitation } from '../protocols/out-of-band.js';
import type { MessageDeps } from '../didcomm/message.js';

export const MEDIATE_GOAL_CODE = 'request-mediate';

export function mediationInvitation(did: string, deps: Partial<MessageDeps> = {}): Invitation {
  return createInvitation({ from: did, goal_code: MEDIATE_GOAL_CODE, goal: 'Request mediation (coordinate-mediation 2.0 or 3.0), then pick up with Message Pickup 3.0', accept: [DIDCOMM_V2_PROFILE] }, deps);
}

export function mediationInvitationUrl(publicUrl: string, invitation: Invitation): string {
  return encodeInvitationUrl(`${publicUrl.replace(/\/+$/, '')}/invitation`, invitation);
}
