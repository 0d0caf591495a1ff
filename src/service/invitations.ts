// Data Pipe invitations (service-interface.md "Create user invitation"): an out-of-band 2.0
// invitation from the service DID (protocols/data-pipe.ts), handed to the user as
// `<public-url>/connect?_oob=…` (vendor-facts). The invitation id is remembered with its user so
// that the DIDComm side can link the wallet that answers it (pthid = invitation id).
import type { ServiceDeps } from './deps.js';
import { isoNow } from './deps.js';
import type { UserRef } from './agent.js';
import { encodeInvitationUrl, OUT_OF_BAND, type Invitation } from '../protocols/out-of-band.js';
import { createDataPipeInvitation } from '../protocols/data-pipe.js';

/** DIDComm Messaging v2 §9.5.1 out-of-band invitation. */
export type OobInvitation = Invitation;

export interface InvitationRecord extends UserRef {
  id: string;
  invitation: OobInvitation;
  url: string;
  createdAt: string;
}

export const INVITATIONS = 'svc-invitations';
export const OOB_INVITATION_TYPE = OUT_OF_BAND.invitation;

/** `<publicUrl>/connect?_oob=<base64url JSON>` (DIDComm v2 §9.5.2). */
export function invitationUrl(publicUrl: string, invitation: OobInvitation): string {
  return encodeInvitationUrl(`${publicUrl}/connect`, invitation);
}

/** Makes, stores and returns a new Data Pipe invitation for the user (no expiry: docs/service.md). */
export async function createUserInvitation(deps: ServiceDeps, user: UserRef): Promise<InvitationRecord> {
  const invitation = createDataPipeInvitation({ from: deps.serviceDid }, { ids: deps.ids, clock: deps.clock });
  const record: InvitationRecord = {
    id: invitation.id,
    ...user,
    invitation,
    url: invitationUrl(deps.publicUrl, invitation),
    createdAt: isoNow(deps),
  };
  await deps.store.collection<InvitationRecord>(INVITATIONS).put(record.id, record);
  return record;
}

/** The invitation with this id (the pthid of the wallet's first message), if we made it. */
export async function findInvitation(deps: Pick<ServiceDeps, 'store'>, invitationId: string): Promise<InvitationRecord | undefined> {
  return deps.store.collection<InvitationRecord>(INVITATIONS).get(invitationId);
}
