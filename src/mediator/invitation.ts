// The out-of-band invitation to mediate (DIDComm v2 §Out Of Band Messages): from the mediator's
// DID, goal_code "request-mediate" (the value the Identus mediator publishes; no protocol
// registers one), printed when the mediator starts and served at GET /invitation. Its URL form
// `<public URL>/invitation?_oob=<base64url JSON>` also answers a GET with the invitation, and so
// does its short form `<public URL>/invitation?_oobid=<invitation id>` (§Short URL Message
// Retrieval: "the agent must do an HTTP GET to retrieve the associated encoded message"), which
// is short enough to copy from a terminal or put in a QR code. A browser gets a page with both and
// a QR code of the short one ("the full URL should return human readable instructions when
// loaded in a browser"); agents get the JSON.
import { createInvitation, DIDCOMM_V2_PROFILE, encodeInvitationUrl, encodeShortInvitationUrl, type Invitation } from '../protocols/out-of-band.js';
import type { MessageDeps } from '../didcomm/message.js';
import { invitationPage } from '../protocols/out-of-band-page.js';
import { MEDIATE_GOAL_CODE } from '../protocols/coordinate-mediation.js';
import type { Store } from '../store/store.js';

export function mediationInvitation(did: string, deps: Partial<MessageDeps> = {}): Invitation {
  return createInvitation({ from: did, goal_code: MEDIATE_GOAL_CODE, goal: 'Request mediation (coordinate-mediation 2.0 or 3.0), then pick up with Message Pickup 3.0', accept: [DIDCOMM_V2_PROFILE] }, deps);
}

/**
 * The invitation this mediator hands out, made once and kept in its store like its keys: its URLs
 * (the short one above all) stay the same across restarts. A new DID (another public URL) gets a
 * new invitation from it.
 */
export async function loadMediationInvitation(store: Store, did: string, deps: Partial<MessageDeps> = {}): Promise<Invitation> {
  const col = store.collection<Invitation>('med-invitation');
  const kept = await col.get('current');
  if (kept && kept.from === did) return kept;
  const invitation = mediationInvitation(did, deps);
  await col.put('current', invitation);
  return invitation;
}

export function mediationInvitationUrl(publicUrl: string, invitation: Invitation): string {
  return encodeInvitationUrl(`${publicUrl.replace(/\/+$/, '')}/invitation`, invitation);
}

export function mediationShortInvitationUrl(publicUrl: string, invitation: Invitation): string {
  return encodeShortInvitationUrl(`${publicUrl.replace(/\/+$/, '')}/invitation`, invitation.id);
}

/** What the invitation's URLs show in a browser: the short URL as a QR code and as text, the full one, the invitation. */
export function mediationPage(m: { invitation: Invitation; invitationUrl: string; shortInvitationUrl: string }): Promise<string> {
  return invitationPage({
    heading: 'Invitation to mediate',
    lead: 'Give it to a wallet that should sit behind this mediator: scan the code, or paste the URL into it (idsync wallet create --mediator URL).',
    url: m.shortInvitationUrl,
    invitation: m.invitation,
    more: [{ label: 'The same invitation in full', url: m.invitationUrl }],
  });
}
