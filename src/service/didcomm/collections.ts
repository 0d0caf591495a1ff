// The store collections of the service's DIDComm agent, named once: each flow module and the
// agent's start-up (resume, pruning) read the same names.
export const COLLECTIONS = {
  threads: 'svc-dc-threads',
  pipes: 'svc-dc-pipes',
  /** `<pipe thread id>\0<wallet's short DID>` → the pipe's key in `pipes`: a wallet's close finds its pipe without a scan (data-pipe.ts). */
  pipesByThread: 'svc-dc-pipes-by-thid',
  userState: 'svc-dc-user-state',
  queue: 'svc-dc-queue',
  /** `<recipient>/<queue id>`: queued messages to send to the peer's endpoint again, with their attempts (redelivery.ts). */
  redelivery: 'svc-dc-redeliver',
  seen: 'svc-dc-seen',
  /** By thread id: its durable-steps state: the retry deadline of the last message the service sent on it (router/steps). */
  resend: 'svc-dc-resend',
  /** `<thread id>\0<message id>`: the message `resend` names as a thread's last, stored once (router/steps). */
  resendOut: 'svc-dc-resend-out',
  /** `<at ms, 15 digits>|<seen key>`: the seen records in time order, so pruning reads only the old ones. */
  seenByTime: 'svc-dc-seen-at',
  credentials: 'svc-dc-credentials',
  statusLists: 'svc-dc-status-lists',
  /**
   * `<list name>/<index, 9 digits>`: indexes allocated since the list's record was last written
   * whole (status.ts); that write folds them in and deletes them.
   */
  statusAllocations: 'svc-dc-status-allocations',
  /** Credentials whose statusChangeTerms wait for a later workflow (status.ts). */
  statusTerms: 'svc-dc-status-terms',
  /**
   * `<tenantId>/<projectId>/u:<userId>\0<credentialId>` and `…/d:<holder's short DID>\0<credentialId>`
   * → the key in statusTerms: a workflow's trigger reads its user's watched terms only (status.ts).
   */
  statusTermsByHolder: 'svc-dc-status-terms-by-holder',
  projectCredentialData: 'svc-project-credential-data',
} as const;
