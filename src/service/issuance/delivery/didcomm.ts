// DIDComm invitation delivery: the service's DIDComm agent sends the out-of-band invitation
// to the target DID's DIDCommMessaging endpoint, or queues it for pickup when unreachable.
// This file only fixes the contract; the agent implements it.
import type { Invitation } from '../../../protocols/out-of-band.js';

/**
 * delivered: the wallet's endpoint or live socket took it; queued: kept for pickup; pending: not
 * handed over yet (the service dropped this send: the wallet's queue full, say), and sent again
 * with the step's back-off until the wallet takes it.
 */
export type DidcommDeliveryResult = 'delivered' | 'queued' | 'pending';

/** Sends `invitation` to `targetDid`; rejects only when the DID cannot be used at all. */
export type DidcommDelivery = (targetDid: string, invitation: Invitation) => Promise<DidcommDeliveryResult>;

export interface RecordingDidcommDelivery {
  deliver: DidcommDelivery;
  /** What was handed over, oldest first. */
  sent: { targetDid: string; invitation: Invitation }[];
}

/** The default until an agent is wired: remembers the invitation and reports it queued for pickup. */
export function recordingDidcommDelivery(): RecordingDidcommDelivery {
  const sent: RecordingDidcommDelivery['sent'] = [];
  return {
    sent,
    deliver: async (targetDid, invitation) => {
      sent.push({ targetDid, invitation });
      return 'queued';
    },
  };
}
