// Data Pipe invitations (service-interface.md "Create user invitation"): an out-of-band 2.0
// invitation from the service DID (protocols/data-pipe.ts), handed to the user as
// `<public-url>/connect?_oob=…` (vendor-facts). The invitation id is remembered with its user so
// that the DIDComm side can link the wallet that answers it (pthid = invitation id).
import { isoNow } from '../../clock.js';
import type { ServiceBase } from '../context.js';
import type { UserRef } from './users.js';
import { encodeInvitationUrl, OUT_OF_BAND, type Invitation } from '../../protocols/out-of-band.js';
import { createDataPipeInvitation } from '../../protocols/data-pipe.js';
import type { PreparedEvents } from '../webhooks/event-outbox.js';

/** DIDComm Messaging v2 §9.5.1 out-of-band invitation. */
export type OobInvitation = Invitation;

export interface InvitationRecord extends UserRef {
  id: string;
  invitation: OobInvitation;
  url: string;
  createdAt: string;
  /** ISO 8601 form of the invitation's expires_time. */
  expiresAt?: string;
}

export const INVITATIONS = 'svc-invitations';
export const OOB_INVITATION_TYPE = OUT_OF_BAND.invitation;

/** `<publicUrl>/connect?_oob=<base64url JSON>` (DIDComm v2 §9.5.2). */
export function invitationUrl(publicUrl: string, invitation: OobInvitation): string {
  return encodeInvitationUrl(`${publicUrl}/connect`, invitation);
}

/** Default lifetime of a Data Pipe invitation: 30 days (the vendor's default workflow expiresIn). */
export const DEFAULT_INVITATION_TTL_MS = 30 * 24 * 3600 * 1000;

/**
 * Makes, stores and returns a new Data Pipe invitation for the user. It carries `expires_time`
 * (DIDComm v2 §Message Headers) `deps.invitationTtlMs` from now; the agent refuses a request
 * answering it later with e.p.req.data-pipe.invitation-expired.
 */
export async function createUserInvitation(
  deps: Pick<ServiceBase, 'serviceDid' | 'publicUrl' | 'ids' | 'clock' | 'store'> & Partial<Pick<ServiceBase, 'invitationTtlMs'>>,
  user: UserRef,
  /** Webhook events written in the same batch as the invitation (the outbox, event-outbox.ts). */
  outbox?: (record: InvitationRecord) => Promise<PreparedEvents>,
): Promise<InvitationRecord> {
  const ttl = deps.invitationTtlMs ?? DEFAULT_INVITATION_TTL_MS;
  const invitation = createDataPipeInvitation({ from: deps.serviceDid, expiresInMs: ttl }, { ids: deps.ids, clock: deps.clock });
  const record: InvitationRecord = {
    id: invitation.id,
    ...user,
    invitation,
    url: invitationUrl(deps.publicUrl, invitation),
    createdAt: isoNow(deps.clock),
    ...(invitation.expires_time !== undefined ? { expiresAt: new Date(invitation.expires_time * 1000).toISOString() } : {}),
  };
  const prepared = await outbox?.(record);
  await deps.store.batch([{ type: 'put', collection: INVITATIONS, key: record.id, value: record }, ...(prepared?.ops ?? [])]);
  await prepared?.commit();
  return record;
}

/** The invitation with this id (the pthid of the wallet's first message), if we made it. */
export async function findInvitation(deps: Pick<ServiceBase, 'store'>, invitationId: string): Promise<InvitationRecord | undefined> {
  return deps.store.collection<InvitationRecord>(INVITATIONS).get(invitationId);
}
