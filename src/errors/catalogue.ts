// Every error code idsync uses, once: the HTTP status of a response that carries it (RFC 9457
// problem details), the report-problem 2.0 code a DIDComm peer gets (DIDComm v2 §Problem Codes),
// and what it means. `IdsyncError['code']` is a key of this object, so a misspelt code does not
// compile; docs/errors.md is generated from it (`npm run docs:errors`).
//
// `status` is set only for codes that can reach an HTTP response; any other code that escapes to
// HTTP leaves as 500 `internal_error` with no detail. `problem` is set only for codes that can
// reach a peer; any other code a handler throws leaves as `e.p.me` (internal error), which
// reveals nothing. `reserved` keeps an entry no source throws today, with the reason.

export interface ErrorEntry {
  /** HTTP status of a problem response with this code. */
  readonly status?: number;
  /** RFC 9457 `title` (required with `status`). */
  readonly title?: string;
  /** Report-problem 2.0 code a peer receives for it. */
  readonly problem?: string;
  /** One line: what happened. */
  readonly meaning: string;
  /** Why an entry that src/ does not throw stays in the catalogue. */
  readonly reserved?: string;
}

export const ERRORS = {
  // Requests in general (REST API and the DIDComm HTTP endpoint)
  invalid_request: { status: 400, title: 'Invalid request', meaning: 'The body, query or path breaks the schema, a cursor or URL is not one the service accepts, or the request-target is neither a path nor an absolute URL (RFC 9112 §3.2).' },
  malformed_json: { status: 400, title: 'Malformed JSON body', meaning: 'The body is not JSON, is empty, or has __proto__ / constructor.prototype keys.' },
  json_too_deep: { status: 400, title: 'JSON nested too deeply', problem: 'e.m.msg.malformed', meaning: 'A JSON body (REST, DIDComm over HTTP or WebSocket, an _oob invitation, a fetched document) nests objects and arrays more than 64 levels deep; refused before parsing (RFC 8259 §9).' },
  route_not_found: { status: 404, title: 'Route not found', meaning: 'No route has this method and path.' },
  method_not_allowed: { status: 405, title: 'Method not allowed', meaning: 'The DIDComm HTTP endpoint takes POST only.' },
  payload_too_large: { status: 413, title: 'Payload too large', meaning: 'The body is larger than the endpoint accepts (1 MiB by default).' },
  headers_too_large: { status: 431, title: 'Request header fields too large', meaning: 'The request line and headers are larger than the server accepts (Node\'s 16 KiB; RFC 6585 §5).' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', meaning: 'The Content-Type is not JSON (REST) or not a DIDComm v2 media type (/didcomm).' },
  rate_limited: { status: 429, title: 'Too many requests', meaning: 'The client or address has used its request budget; retry after Retry-After seconds.' },
  busy: { meaning: 'Too many requests of this kind are being handled at once (the token route answers 429).' },
  internal_error: { status: 500, title: 'Internal server error', problem: 'e.p.me', meaning: 'An unexpected failure; nothing about it is revealed to the caller.' },
  temporarily_unavailable: { status: 503, title: 'Temporarily unavailable', meaning: 'The message failed for a reason that may pass; send the same message again after Retry-After.' },
  aborted: { meaning: 'A wait was stopped (its AbortSignal fired) before it was satisfied.' },
  timeout: { problem: 'e.p.req.time', meaning: 'An awaited event did not happen in time.' },

  // Authentication and authorization
  invalid_client: { status: 401, title: 'Invalid client credentials', meaning: 'Unknown client id or wrong client secret.' },
  invalid_scope: { status: 400, title: 'Invalid scope', meaning: 'The token request names an unknown scope or one the client is not granted.' },
  unauthorized: { status: 401, title: 'Authentication required', problem: 'e.p.trust', meaning: 'No credentials: no bearer token, or a DIDComm message that must be authenticated is not.' },
  invalid_token: { status: 401, title: 'Invalid access token', meaning: 'The bearer token is malformed, badly signed or not for this service.' },
  token_expired: { status: 401, title: 'Access token expired', meaning: 'The bearer token is past its exp.' },
  insufficient_scope: { status: 403, title: 'Insufficient scope', meaning: 'The token lacks the scope the route needs (requiredScope names it).' },
  forbidden: { status: 403, title: 'Forbidden', problem: 'e.p.trust.forbidden', meaning: 'The caller is known but may not do this (another tenant, another DID, another recipient).' },
  sender_not_authenticated: { problem: 'e.p.trust', meaning: 'A DIDComm message that must be authcrypted by its sender was not.' },
  webhook_signature_invalid: { meaning: 'A webhook request lacks a valid Standard Webhooks signature or timestamp.' },

  // Resources of the REST API
  not_found: { status: 404, title: 'Not found', problem: 'e.p.req.not-found', meaning: 'The named thing does not exist.' },
  user_not_found: { status: 404, title: 'User not found', meaning: 'No user with this id (or wallet DID) in the project.' },
  project_not_found: { status: 404, title: 'Project not found', meaning: 'No project with this id.' },
  data_profile_not_found: { status: 404, title: 'Data profile not found', meaning: 'No data profile with this id, or a project names a missing one.' },
  workflow_not_found: { status: 404, title: 'Issuance workflow not found', meaning: 'No issuance workflow with this id in the project.' },
  partner_not_found: { status: 404, title: 'Partner not found', meaning: 'No partner with this id.' },
  webhook_not_found: { status: 404, title: 'Webhook not found', meaning: 'No webhook subscription with this id.' },
  status_list_not_found: { status: 404, title: 'Status list not found', meaning: 'No status list with this name.' },
  credential_has_no_status: { meaning: 'The credential has no status list entry, so its status cannot change.' },
  revocation_final: { meaning: 'The credential is revoked; a revocation is not reversible (Bitstring Status List v1.0 §2.1), a suspension is.' },

  // Input the REST API validates
  invalid_datapoints: { status: 400, title: 'Invalid datapoints', meaning: 'Datapoints break the vocabulary or the workflow’s data profile (errors lists the fields).' },
  invalid_destination: { status: 400, title: 'Invalid invitation destination', meaning: 'A send-invitation destination is not a valid e-mail address, phone number or DID.' },
  invalid_invitation: { status: 400, title: 'Invalid invitation', problem: 'e.p.msg.invalid-invitation', meaning: 'An out-of-band invitation is malformed, expired or edited.' },
  foreign_invitation: { status: 400, title: 'Not an invitation of this service', meaning: 'GET /connect for an invitation this service did not issue.' },
  invalid_config: { status: 400, title: 'Invalid configuration', meaning: 'Configuration, fixtures or delivery settings are unreadable or break their schema.' },
  invalid_profile: { status: 400, title: 'Invalid data profile', meaning: 'A data profile names unknown datapoints, repeats one, or has a bad pattern.' },

  // State
  conflict: { status: 409, title: 'Conflict', problem: 'e.p.req.invalid-state', meaning: 'The change collides with what exists (a default partner, a profile in use, a stored credential).' },
  already_exists: { status: 409, title: 'Already exists', meaning: 'Something with this id (or DID, or URL) exists already.' },
  session_not_established: { status: 409, title: 'Secure session not established', meaning: 'The user has no established Data Pipe session; send an invitation first.' },
  sync_disabled: { status: 409, title: 'The user has not consented to data synchronization', meaning: 'The user’s settings.isSyncOn is false.' },
  invalid_transition: { status: 409, title: 'Issuance workflow is not in a state that allows this', meaning: 'The workflow’s status cannot move to the one asked for.' },
  invalid_state: { status: 409, title: 'Not allowed in the current state', problem: 'e.p.req.invalid-state', meaning: 'The workflow, thread or wallet is not in a state that allows this.' },
  invitation_expired: { status: 410, title: 'Invitation expired', meaning: 'The invitation is past its expires_time.' },
  workflow_expired: { status: 410, title: 'Issuance workflow expired', problem: 'e.p.req.workflow-expired', meaning: 'The issuance workflow has expired.' },
  workflow_ended: { meaning: 'idsync/testing: a waited-for workflow ended in another status than the one awaited.' },

  // Issuance and delivery
  invitation_unknown: { problem: 'e.p.req.invitation-unknown', meaning: 'A credential request names (pthid) no issuance invitation of this service.' },
  invitation_used: { problem: 'e.p.req.invitation-used', meaning: 'An issuance invitation was already answered (by this wallet or another); the workflow is unchanged.' },
  email_send_failed: { meaning: 'The SMTP server refused or did not take an invitation e-mail.' },
  sms_send_failed: { meaning: 'The SMS gateway was unreachable or refused an invitation text.' },
  didcomm_send_failed: { meaning: 'A DIDComm invitation could not be sent or queued.' },
  queue_full: { problem: 'e.p.me.res.storage.queue-full', meaning: 'The pickup queue of a recipient holds its maximum number of messages; a forward for it may be sent again once it collected some (answered like a storage failure: HTTP 503 with Retry-After).' },
  endpoint_refused: { meaning: 'Where a URL leads is refused: its host, or an address its name resolves to, is link-local, metadata, special-purpose, or loopback/private when not allowed.' },
  agent_not_ready: { meaning: 'The service’s DIDComm agent was used before it was bound.' },

  // DIDComm envelopes (didcomm-node and our checks)
  didcomm_malformed: { status: 400, problem: 'e.m.trust.crypto', title: 'Malformed DIDComm message', meaning: 'A packed message cannot be parsed or decrypted as DIDComm v2, or breaks one of its MUSTs (details.rule names the rule).' },
  didcomm_unsupported: { status: 400, problem: 'e.m.trust.crypto.unsupported', title: 'Unsupported DIDComm cryptography', meaning: 'The envelope uses an algorithm or curve outside DIDComm v2\'s tables (details.rule), or one the didcomm-node engine lacks (P-384, P-521).' },
  didcomm_invalid_argument: { status: 400, title: 'Invalid DIDComm argument', meaning: 'A message or option handed to pack/unpack breaks DIDComm v2 structure.' },
  secret_not_found: { status: 400, problem: 'e.m.trust.crypto.no-key', title: 'No key for this message', meaning: 'None of our private keys can open the message, or a key id has no secret.' },
  didcomm_error: { meaning: 'An envelope engine failed for another reason (I/O, internal state, a secret lookup).' },
  sender_mismatch: { problem: 'e.m.trust.sender-mismatch', meaning: 'The message’s from is not the DID whose key signed or authcrypted it.' },
  envelope_nonconformant: { problem: 'e.m.trust.crypto', meaning: 'The envelope breaks a DIDComm v2 envelope rule (conformance).' },

  // DIDComm transports
  invalid_message: { status: 400, title: 'Invalid DIDComm message', problem: 'e.m.msg.malformed', meaning: 'The body POSTed to a DIDComm endpoint is no DIDComm message: not a JSON object shaped as a JWE, a JWS or a plaintext message.' },
  transport_invalid_message: { status: 400, title: 'Invalid DIDComm message', meaning: 'A packed message handed to a transport, or a frame it received, is no DIDComm message (not a JSON object shaped as a JWE, a JWS or a plaintext message).' },
  transport_error: { problem: 'e.p.xfer', meaning: 'A transport failed in a way it could not classify.' },
  transport_unreachable: { meaning: 'Nobody answers at the endpoint (connection refused, DNS, closed transport).' },
  transport_timeout: { meaning: 'The endpoint did not answer, or a frame was not written, in time.' },
  transport_rejected: { meaning: 'The endpoint answered with an error status; details carry its status and problem code.' },
  transport_retry_later: { meaning: 'The endpoint answered 503 or 429: send again later (details.retryAfterSeconds).' },
  transport_reply_unavailable: { meaning: 'The connection cannot carry a return-routed reply (any more).' },
  transport_unhandled: { meaning: 'A message arrived on a transport that has no inbound handler.' },
  unsupported_scheme: { problem: 'e.p.did.unusable-endpoint', meaning: 'No transport sends to this endpoint’s URL scheme. Told to a peer whose DID names only such endpoints (its answer cannot be sent), it is final: sending the message again changes nothing.' },
  address_in_use: { meaning: 'A server cannot listen: another process listens on that address and port (details: host, port, hint).' },
  address_not_available: { meaning: 'A server cannot listen: the host is not an address of this machine.' },
  no_endpoint: { problem: 'e.p.xfer', meaning: 'The recipient’s DID document names no usable DIDComm endpoint.' },
  delivery_failed: { problem: 'e.p.xfer', meaning: 'The router could not deliver an outgoing message.' },
  no_outbound: { meaning: 'The router was asked to send but has no outbound delivery function.' },
  no_reply_address: { status: 400, title: 'No way to reply', problem: 'e.p.req.no-reply-address', meaning: 'A reply was asked for a message with no sender (e.g. an anoncrypted trust ping with response_requested): it can never succeed.' },

  // The router
  message_malformed: { problem: 'e.m.msg.malformed', meaning: 'A plaintext message breaks a DIDComm v2 message rule.' },
  message_invalid_body: { problem: 'e.m.msg.invalid-body', meaning: 'A message body breaks its protocol’s rules (details.failures names them).' },
  message_expired: { problem: 'e.m.req.time.expired', meaning: 'The message arrived after its expires_time.' },
  unsupported_message_type: { problem: 'e.p.msg.unsupported', meaning: 'No protocol handler takes this message type.' },
  duplicate_message: { problem: 'e.p.msg.duplicate', meaning: 'A message id this sender used before (a replay); the first copy was handled.' },
  invalid_protocol: { meaning: 'A protocol module’s PIURI is not a protocol identifier URI.' },
  protocol_conflict: { meaning: 'Two protocol modules handle the same message type.' },

  // Application protocols (docs/protocols.md)
  unexpected_message: { problem: 'e.p.msg.unexpected', meaning: 'The message is not expected in the thread’s state.' },
  unknown_thread: { problem: 'e.p.msg.unknown-thread', meaning: 'The message names a thread this party does not have (with this sender).' },
  return_route_required: { problem: 'e.p.req.return-route', meaning: 'A Message Pickup request did not ask for return_route "all".' },
  live_mode_not_supported: { problem: 'e.m.live-mode-not-supported', meaning: 'Live delivery was asked for on a connection that cannot carry it (not a WebSocket).' },
  data_pipe_invitation_unknown: { problem: 'e.p.req.data-pipe.invitation-unknown', meaning: 'A Data Pipe request names no invitation of ours, or one whose user is gone.' },
  data_pipe_invitation_expired: { problem: 'e.p.req.data-pipe.invitation-expired', meaning: 'A Data Pipe request answers an expired invitation.' },
  data_pipe_already_linked: { problem: 'e.p.req.data-pipe.already-linked', meaning: 'The user is already linked to another wallet DID.' },
  data_pipe_not_authenticated: { problem: 'e.p.trust.data-pipe.not-authenticated', meaning: 'A Data Pipe request is not authcrypted by the wallet whose DID it names.' },
  data_pipe_short_form: { problem: 'e.p.msg.data-pipe.short-form', meaning: 'A Data Pipe request gives a did:ion short form where the long form is needed.' },
  authentication_failed: { problem: 'e.p.trust.sync.authentication-failed', meaning: 'DID authentication (a presentation) failed or answers another request.' },
  credential_invalid: { problem: 'e.p.msg.credential-invalid', meaning: 'The holder refuses an issued credential that fails verification.' },
  offer_declined: { problem: 'e.p.req.offer-declined', meaning: 'The holder declines a credential offer.' },
  unsolicited_offer: { problem: 'e.p.req.unsolicited-offer', meaning: 'A credential offer arrived on no thread or Data Pipe of this wallet with the sender.' },
  declined: { problem: 'e.p.req.declined', meaning: 'A person declined the request (e.g. a holder declining to present).' },
  verification_failed: { problem: 'e.p.trust.crypto.verification-failed', meaning: 'A credential or presentation failed verification.' },
  problem_reported: { meaning: 'The peer answered with a problem report (its code and comment are in the message).' },
  invalid_problem_code: { meaning: 'A problem report was built with a code that is not sorter.scope.descriptors.' },
  invalid_problem_report: { meaning: 'A received problem report lacks a valid code or pthid.' },
  pickup_unanswered: { meaning: 'The mediator did not answer a Message Pickup request on the return route.' },
  live_mode_refused: { meaning: 'The mediator refused live delivery (details.problemCode holds its answer).' },

  // The mediator (docs/mediation.md)
  mediation_required: { problem: 'e.p.req.not-enrolled', meaning: 'A keylist, pickup or recipient request from a party the mediator has not granted mediation to, or about a recipient DID nobody registered.' },
  mediation_update_failed: { meaning: 'The mediator answered a keylist or recipient update with client_error or server_error for some DIDs (details.updated).' },
  mediation_denied: { meaning: 'The mediator answered the wallet\'s mediate-request with mediate-deny (its policy refuses this DID).' },
  mediation_failed: { meaning: 'The wallet could not set up mediation: the mediator named no usable DID or endpoint, its grant could not be read in either version, or it routes through a DID other than the one the wallet\'s DID names.' },
  forward_unknown_recipient: { problem: 'e.p.req.not-enrolled', meaning: 'A forward names (body.next) a DID or key no recipient registered with this mediator, and no hop beyond it is allowed or known.' },
  keylist_full: { problem: 'e.p.req.keylist-full', meaning: 'A keylist-update (recipient-update) would leave the party more recipient DIDs than the mediator keeps for one party (--max-keys); nothing in it was applied.' },
  forward_too_large: { problem: 'e.p.msg.too-large', meaning: 'A forwarded message is larger than the mediator takes (--max-message-bytes).' },
  forward_delay_refused: { problem: 'e.p.msg.delay-too-long', meaning: 'A forward asks (delay_milli) for a delay longer than the mediator holds messages back.' },
  live_connection_closed: { meaning: 'A live push (Message Pickup 3.0 §Live Mode) found the recipient\'s connection closed: the message stays queued for its next pickup.' },
  forward_onwards_failed: { problem: 'e.p.xfer.cant-use-endpoint', meaning: 'A forward for a party beyond this mediator could not be handed to that party\'s endpoint (sent again later, it may pass).' },

  // DIDs, keys and encodings
  invalid_did: { problem: 'e.p.did.invalid', meaning: 'Not a valid DID of its method (bad syntax, bad long form, bad key).' },
  did_not_resolved: { status: 400, problem: 'e.p.did.not-resolved', title: 'DID not resolved', meaning: 'A DID (or DID URL) did not resolve to a document.' },
  method_not_supported: { meaning: 'DID resolution: the DID method is not supported.' },
  unsupported_did: { meaning: 'The DID uses a variant idsync cannot handle offline (e.g. a did:peer numalgo).' },
  fetch_refused: { meaning: 'A did:web fetch was refused: not https (or local http), or too many redirects.' },
  response_too_large: { meaning: 'A fetched did:web document is larger than the limit.' },
  invalid_key: { meaning: 'Key material has the wrong length or form.' },
  unsupported_key: { meaning: 'A JWK or multikey type or curve idsync does not support.' },
  invalid_encoding: { meaning: 'Not valid base64url, base58btc or multibase.' },
  invalid_json: { meaning: 'Not valid JSON.' },

  // Credentials
  invalid_claims: { meaning: 'Credential claims are not datapoints of the vocabulary.' },
  malformed_credential: { meaning: 'A VC-JWT cannot be decoded.' },
  canonicalization_failed: { meaning: 'A document cannot be canonicalized (RDFC-1.0, safe mode).' },
  context_not_bundled: { meaning: 'A JSON-LD context is not bundled; contexts are never fetched.' },
  credential_refused: { meaning: 'The wallet refused a received credential that failed a check.' },
  status_list_full: { meaning: 'A status list has no free index.' },
  status_list_invalid: { meaning: 'A credential’s status entries cannot be checked: an entry names no list or more lists than are read (16), or a status list credential does not verify or its encodedList is unreadable.' },
  invalid_status_change_terms: { meaning: 'statusChangeTerms lacks a valid status or trigger.' },

  // The store
  store_error: { problem: 'e.p.me.res.storage', meaning: 'The database failed to read or write.' },
  store_locked: { problem: 'e.p.me.res.storage', meaning: 'The store is already open in another process or another openStore.' },
  store_closed: { meaning: 'The store was used after it was closed (in the testbed: through the handle of a party that crashed).' },
  store_invalid_op: { meaning: 'A batch operation is not a put or a delete.' },
  invalid_collection: { meaning: 'A collection name is not valid.' },
  invalid_connection: { meaning: 'A stored connection has a bad id or field.' },
  invalid_message_record: { meaning: 'A message log record lacks a required field.' },
  invalid_secret: { meaning: 'A stored secret is not a private JWK with a full key id.' },

  // The wallet
  wallet_not_initialized: { meaning: 'The wallet was used before init() or listen().' },
  unsupported_goal: { meaning: 'The invitation’s goal_code is one the wallet cannot act on.' },

  // The CLI (exit 2 for usage errors, 1 otherwise)
  invalid_argument: { meaning: 'An argument or option value is invalid.' },
  missing_command: { meaning: 'A command group was called without a command.' },
  unknown_command: { meaning: 'No such command.' },
  unknown_option: { meaning: 'No such option for this command.' },
  missing_argument: { meaning: 'A required argument is missing.' },
  option_missing_argument: { meaning: 'An option was given without its value.' },
  missing_mandatory_option_value: { meaning: 'A required option is missing.' },
  conflicting_option: { meaning: 'Two options that exclude each other were given.' },
  excess_arguments: { meaning: 'More arguments than the command takes.' },
  file_not_found: { meaning: 'No such file or directory.' },
  file_exists: { meaning: 'The file exists; the CLI does not overwrite key files.' },
  file_unreadable: { meaning: 'The path is a directory or cannot be read.' },
  folder_unusable: { meaning: 'A folder given for data or reports cannot be made there (a file in the way, no permission, a file system that takes no new folders).' },
  invalid_did_document: { meaning: 'A file does not hold DID documents.' },
  invalid_secrets: { meaning: 'A secrets file entry is not a private JWK with a full key id.' },
  nonconformant: { meaning: 'A message checked by `idsync message check` breaks a MUST of the rule catalogue (docs/rules.md); every result was printed first.' },
  fleet_failed: { meaning: 'An `idsync fleet` run had more failed flows than --max-failed allows (default 0); the report, printed first, gives the failures by step and error.' },
  conformance_failed: { meaning: 'A conformance run had failed cases (the report names the cases and the rules each broke).' },
  conformance_busy: { status: 429, title: 'Too many conformance runs', meaning: 'The console runs one conformance run at a time per tenant (or wallet) with a short queue, and a few at once in all; this one was refused: retry after Retry-After seconds.' },
  conformance_not_judged: { meaning: 'A conformance run judged nothing: the agent was unreachable, nobody accepted the invitation, or no case passed or failed (all blocked, skipped or inconclusive); exit status 3.' },
  wallet_not_found: { meaning: 'No wallet in the data folder (create one with wallet create).' },
  wallet_exists: { meaning: 'The data folder already holds a wallet.' },
  wallet_busy: { meaning: 'Another process uses the wallet’s data folder.' },
  wallet_serve_error: { meaning: 'A running wallet serve answered an error without a code idsync knows.' },
  no_peer: { meaning: 'wallet pickup: the wallet knows no service to collect from (no established Data Pipe); name one with --from.' },
  demo_failed: { meaning: 'The demo flow did not reach its expected state.' },

  // idsync/testing
  service_unreachable: { meaning: 'The REST client could not reach the service.' },
  service_problem: { meaning: 'The service answered a problem whose code idsync does not know (details.problem holds it).' },
  wait_timeout: { meaning: 'A testing wait did not see its condition in time (the message says what it last saw).' },

  // idsync fleet
  fleet_flow_failed: { meaning: 'A simulated holder\'s flow did not reach its end (a credential refused, a problem reported, an invitation not delivered).' },
  scenario_invalid: { meaning: 'A fleet scenario module (`fleet --module FILE`) does not import (syntax, file type, its imports or top-level code failing) or exports no scenario ({name, steps, run}).' },
  fleet_worker_failed: { meaning: 'A fleet worker thread stopped before reporting its results.' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERRORS;

/** The codes that have an HTTP status: the only ones `problem(code, …)` takes. */
export type HttpErrorCode = { [K in ErrorCode]: (typeof ERRORS)[K] extends { status: number } ? K : never }[ErrorCode];
