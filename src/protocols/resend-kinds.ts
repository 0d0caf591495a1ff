// Which protocol messages the durable-steps engine (router/steps) retries and which it only
// keeps to answer a replay. A message that waits for the peer's answer is
// retried until answered; the last message of a party's side of a thread (an ack, `established`,
// `close`, a problem report ending the thread) is only sent again when the peer, retrying, shows
// that it was lost. An out-of-band invitation sent by DIDComm (an issuance workflow's, to a DID)
// is sent again until the wallet took it (its endpoint answered 2xx, or it was queued for a wallet
// that collects by pickup), so a service killed around send-invitation still reaches the wallet;
// it is not sent again after that: its answer (a message whose pthid names it, Out-of-Band 2.0)
// waits for the user's consent, for as long as the workflow lives, and a copy sent meanwhile
// would only reach the wallet twice. Pickup, trust ping and discover-features are not
// tracked: they are requests on the return route whose caller sees the answer or its absence.
import type { PlainMessage } from '../didcomm/types.js';
import type { StepKind } from '../router/steps/state.js';
import { DATA_PIPE_PIURI } from './data-pipe.js';
import { OUT_OF_BAND } from './out-of-band.js';
import { ISSUE_CREDENTIAL_PIURI } from './issue-credential.js';
import { PRESENT_PROOF_PIURI } from './present-proof.js';
import { REPORT_PROBLEM_PIURI } from './report-problem.js';
import { ownEntry } from '../own-entry.js';

const KINDS: Record<string, StepKind> = {
  [`${DATA_PIPE_PIURI}/request`]: 'retry',
  [`${DATA_PIPE_PIURI}/established`]: 'answer',
  [`${DATA_PIPE_PIURI}/close`]: 'answer',
  [`${PRESENT_PROOF_PIURI}/request-presentation`]: 'retry',
  [`${PRESENT_PROOF_PIURI}/presentation`]: 'retry',
  [`${PRESENT_PROOF_PIURI}/ack`]: 'answer',
  [`${ISSUE_CREDENTIAL_PIURI}/propose-credential`]: 'retry',
  [`${ISSUE_CREDENTIAL_PIURI}/offer-credential`]: 'retry',
  [`${ISSUE_CREDENTIAL_PIURI}/request-credential`]: 'retry',
  [`${ISSUE_CREDENTIAL_PIURI}/issue-credential`]: 'retry',
  [`${ISSUE_CREDENTIAL_PIURI}/ack`]: 'answer',
  [`${REPORT_PROBLEM_PIURI}/problem-report`]: 'answer',
  [OUT_OF_BAND.invitation]: 'deliver',
};

export function resendKind(message: PlainMessage): StepKind | undefined {
  return ownEntry(KINDS, String(message.type));
}
