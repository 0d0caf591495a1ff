// Catalogue rows of the application protocols idsync speaks: issue-credential 3.0 and present-proof
// 3.0 in the WACI-DIDComm profile, Message Pickup 3.0, the credentials they carry, and idsync's own
// Data Pipe. These specs put few RFC 2119 keywords on message bodies, so most rows are advice; the
// body fields idsync's handlers cannot do without are marked `refuses` (its agents refuse such a
// message as their own policy, which judges nobody).
import { row } from './rule-row.js';
import { DATA_PIPE, IDSYNC_PROFILE, ISSUE_CREDENTIAL, MESSAGES, PICKUP, PRESENT_PROOF, WACI, type RuleSource } from './rule-sources.js';
import { THREADED_QUOTE, THREADS } from './rows-protocols.js';

const refuses = { refuses: true } as const;
const tolerated = { tolerated: true } as const;
const GOAL_CODE = '`goal_code` -- optional field that indicates the goal of the message sender.';
const PTHID = 'The Parent Thread ID (`pthid`) MUST be included for this message only, and is set to the Message ID (`id`) of the message encoded as a QR code.';
const ACK_STATUS = 'The `body` property of an `Acknowledgement` message MUST contain a `status` property. The value of this property MUST be one of the statuses defined [here](https://github.com/hyperledger/aries-rfcs/blob/master/features/0015-acks/README.md#ack-status).';
const WACI_ENCRYPTED = 'Each message described in this specification MUST be encrypted before transmission with the exception of the [message encoded into a QR code](#step-1---generate-qr-code).';
const ISSUED_AS_OFFERED = 'A credential issued in a WACI issuance names the DID that offered it as issuer and the holder that asked for it as subject, is within its validity period and is not revoked.';
const FORMAT = 'Each attachment is described with an instance of a JSON object that has the following structure.';
const ATTACHMENTS = MESSAGES('Attachments');
const ISSUE_STEP = (n: number, what: string) => WACI(`Step ${n} : Issue Credential - ${what}`);
const PRESENT_STEP = (n: number, what: string) => WACI(`Step ${n} - ${what}`);
const VC_DM: RuleSource = { spec: 'Verifiable Credentials Data Model', version: 'v2.0', section: '§1.4 Conformance', url: 'https://www.w3.org/TR/vc-data-model-2.0/#conformance' };
const RECIPIENT_DID = '`recipient_did` is optional.';
const RETURN_ROUTE = 'Additionally, the `return_route` header extension must be set to `all` in all request submitted by the `recipient`.';
const PIPE_REQUEST = '`thid` = own `id`, `pthid` = invitation id';
const PIPE_REQUEST_BODY = '`{ "consent": { "granted": true, "at": "<ISO 8601>" }, "label"?: string }`';
const PIPE_ESTABLISHED_BODY = '`{ "did": "<wallet long form as linked>", "short_did": "<did:ion short form>", "established_at": "<ISO 8601>" }`';

export const APPLICATION_ROWS = [
  // ---- issue-credential 3.0 (WACI streamlined-vc) ----------------------------------------------
  row('issue-credential.propose', ISSUE_STEP(2, 'Propose Credential'), 'MUST', PTHID,
    'A holder accepting a streamlined-vc invitation sends propose-credential with pthid = the invitation id.'),
  row('issue-credential.propose.encrypted', WACI('Encryption'), 'MUST', WACI_ENCRYPTED,
    'propose-credential arrives encrypted (authcrypt or anoncrypt).'),
  row('issue-credential.propose.goal_code', ISSUE_CREDENTIAL('Propose Credential'), null, GOAL_CODE,
    'body.goal_code, when present, is a string.', refuses),
  row('issue-credential.offer', ISSUE_STEP(3, 'Offer Credential (Credential Manifest)'), null, 'The Issuer sends a [Issue Credential - Offer Credential](https://github.com/decentralized-identity/waci-didcomm/blob/main/issue_credential/README.md#offer-credential) message to Holder.',
    'A propose-credential answering a streamlined-vc invitation (pthid = the invitation) is answered with an offer.'),
  row('issue-credential.offer.thid', THREADS, 'MUST', THREADED_QUOTE,
    'An offer answering a propose-credential carries thid = the propose\'s thread.'),
  row('issue-credential.offer.goal_code', ISSUE_CREDENTIAL('Offer Credential'), null, GOAL_CODE,
    'body.goal_code, when present, is a string.', refuses),
  row('issue-credential.offer.replacement_id', ISSUE_CREDENTIAL('Offer Credential'), null, '`replacement_id` -- an optional field to help coordinate credential replacement.',
    'body.replacement_id, when present, is a string.', refuses),
  row('issue-credential.offer.credential_preview', ISSUE_CREDENTIAL('Preview Credential'), null, 'The main element is `attributes`. It is an array of (object) attribute specifications; the subsections below outline their semantics.',
    'The offer\'s credential_preview, when present, lists attributes {name, value}.', refuses),
  row('issue-credential.offer.credential_preview-missing', ISSUE_CREDENTIAL('Offer Credential'), null, '`credential_preview` -- a JSON-LD object that represents the credential data that Issuer is willing to issue.',
    'An offer carries a credential_preview, so that the holder can compare what it receives (the WACI vector has none).'),
  row('issue-credential.offer.manifest', ISSUE_STEP(3, 'Offer Credential (Credential Manifest)'), null, 'The message attachment contains a [Credential Manifest message]',
    'The offer carries exactly one credential manifest attachment with options.challenge and domain.', refuses),
  row('issue-credential.offer.manifest-format-placement', ATTACHMENTS, null, FORMAT,
    'format belongs on the attachment, not inside data.'),
  row('issue-credential.request', ISSUE_STEP(4, 'Request Credential (Credential Application)'), null, 'The User sends a [Credential Application message](https://identity.foundation/credential-manifest/#credential-application) as an attachment in [Issue Credential - Request Credential](https://github.com/decentralized-identity/waci-didcomm/blob/main/issue_credential/README.md#request-credential).',
    'A holder answers an offer it accepts with request-credential in the offer\'s thread.'),
  row('issue-credential.request.thid', THREADS, 'MUST', THREADED_QUOTE,
    'request-credential carries thid = the issuance thread.'),
  row('issue-credential.request.application', ISSUE_STEP(4, 'Request Credential (Credential Application)'), null, 'The User sends a [Credential Application message](https://identity.foundation/credential-manifest/#credential-application) as an attachment',
    'The request carries exactly one signed credential application.', refuses),
  row('issue-credential.request.application-format-placement', ATTACHMENTS, null, FORMAT,
    'format belongs on the attachment, not inside data.'),
  row('issue-credential.request.signed', ISSUE_STEP(4, 'Request Credential (Credential Application)'), null, 'The User sends a [Credential Application message](https://identity.foundation/credential-manifest/#credential-application) as an attachment',
    'The credential application is signed with the holder\'s authentication key for the offer\'s challenge and domain.'),
  row('issue-credential.issue', ISSUE_STEP(5, 'Issue Credential (Credential Fulfilment)'), null, 'The Issuer sends a [Credential Fulfilment message](https://identity.foundation/credential-manifest/#credential-fulfillment) as an attachment in [Issue Credential - Issue Credential](https://github.com/decentralized-identity/waci-didcomm/blob/main/issue_credential/README.md#issue-credential), which will contain the Verifiable Credentials.',
    'A request-credential with a signed credential application is answered with issue-credential.'),
  row('issue-credential.issue.thid', THREADS, 'MUST', THREADED_QUOTE,
    'issue-credential carries thid = the issuance thread.'),
  row('issue-credential.issue.replacement_id', ISSUE_CREDENTIAL('Issue Credential'), null, '`replacement_id` -- an optional field that provides an identifier used to manage credential replacement.',
    'body.replacement_id, when present, is a string.', refuses),
  row('issue-credential.issue.status-list', IDSYNC_PROFILE('idsync profile'), null, 'An issue-credential message carries at most one status list credential attachment.',
    'At most one status list credential attachment.', refuses),
  row('issue-credential.issue.fulfillment', ISSUE_STEP(5, 'Issue Credential (Credential Fulfilment)'), null, 'The Issuer sends a [Credential Fulfilment message](https://identity.foundation/credential-manifest/#credential-fulfillment) as an attachment',
    'The issue message carries exactly one credential fulfillment with the credential.', refuses),
  row('issue-credential.issue.fulfillment-format-placement', ATTACHMENTS, null, FORMAT,
    'format belongs on the attachment, not inside data.'),
  row('issue-credential.issue.matches-preview', ISSUE_CREDENTIAL('Preview Credential'), null, 'It is used construct a preview of the data for the credential that is to be issued.',
    'The issued credential\'s claims are the values the offer\'s preview announced.'),
  row('issue-credential.ack', ISSUE_STEP(6, 'Ack'), null, 'The wallet sends an acknolowledgement message to the issuer.',
    'A holder that received a valid credential acks it (status OK) in the issuance thread.'),
  row('issue-credential.ack.thid', THREADS, 'MUST', THREADED_QUOTE,
    'An ack carries thid = the thread it acknowledges.'),
  row('issue-credential.ack.status-present', PRESENT_STEP(5, 'Ack Presentation'), 'MUST', ACK_STATUS,
    'body.status is present. idsync reads an ack without one as OK (WACI\'s own present-proof vector acks with an empty body).', tolerated),
  row('issue-credential.ack.status', PRESENT_STEP(5, 'Ack Presentation'), 'MUST', ACK_STATUS,
    'body.status, when present, is OK, PENDING or FAIL.'),
  row('credential.verified', VC_DM, 'MUST', 'A conforming issuer implementation MUST secure the conforming documents it produces using a securing mechanism described in Section 4.12 Securing Mechanisms.',
    'An issued credential is secured: it is readable and its proof verifies with a key of the issuer\'s assertionMethod.'),
  row('credential.issued-as-offered', IDSYNC_PROFILE('idsync profile'), null, ISSUED_AS_OFFERED,
    'An issued credential names the DID offering it as issuer and the holder as subject, is within its validity period and is not revoked (its status list readable).'),

  // ---- present-proof 3.0 (WACI streamlined-vp) -------------------------------------------------
  row('present-proof.propose', PRESENT_STEP(2, 'Send Message Proposing Presentation'), 'MUST', PTHID,
    'A prover accepting a streamlined-vp invitation sends propose-presentation with pthid = the invitation id.'),
  row('present-proof.propose.encrypted', WACI('Encryption'), 'MUST', WACI_ENCRYPTED,
    'propose-presentation arrives encrypted (authcrypt or anoncrypt).'),
  row('present-proof.request', PRESENT_STEP(3, 'Send Message Requesting Presentation'), null, 'The request for a Verifiable Presentation is defined in the "request presentation" section of [Aries RFC 0454]',
    'A propose-presentation answering a streamlined-vp invitation (pthid = the invitation) is answered with request-presentation.'),
  row('present-proof.request.thid', THREADS, 'MUST', THREADED_QUOTE,
    'A request answering a propose-presentation carries thid = the propose\'s thread.'),
  row('present-proof.request.will_confirm', PRESENT_PROOF('Request Presentation'), null, '`will_confirm` -- an optional field that defaults to `false` to indicate that the verifier will or will not send a post-presentation confirmation `ack` message',
    'body.will_confirm, when present, is a boolean.', refuses),
  row('present-proof.request.goal_code', PRESENT_PROOF('Request Presentation'), null, GOAL_CODE,
    'body.goal_code, when present, is a string.', refuses),
  row('present-proof.request.definition', PRESENT_STEP(3, 'Send Message Requesting Presentation'), 'MUST', 'The `options` object MUST contain a `challenge` property. The value of this property MUST be a string',
    'The request carries one presentation definition attachment whose options.challenge is a string.'),
  row('present-proof.request.domain', PRESENT_STEP(3, 'Send Message Requesting Presentation'), 'MAY', 'The `options` object MAY contain a `domain` property.',
    'The presentation definition\'s options carry a domain too: idsync\'s prover signs for a challenge and a domain.', refuses),
  row('present-proof.request.definition-format-placement', ATTACHMENTS, null, FORMAT,
    'format belongs on the attachment, not inside data.'),
  row('present-proof.presentation', PRESENT_STEP(4, 'Present Proof'), null, 'The Verifiable Presentation is again returned as an attachment',
    'A prover answers a request it accepts with a presentation in the request\'s thread.'),
  row('present-proof.presentation.thid', THREADS, 'MUST', THREADED_QUOTE,
    'A presentation carries thid = the request thread.'),
  row('present-proof.presentation.submission', PRESENT_STEP(4, 'Present Proof'), null, 'The Verifiable Presentation is again returned as an attachment',
    'The presentation carries one Verifiable Presentation with holder, presentation_submission and proof.', refuses),
  row('present-proof.presentation.submission-format-placement', ATTACHMENTS, null, FORMAT,
    'format belongs on the attachment, not inside data.'),
  row('present-proof.presentation.signed', PRESENT_STEP(4, 'Present Proof'), null, 'Note the `challenge` from the previous message is given in the `proof` object for the VP and used to generate the signature there.',
    'The presentation is signed with the prover\'s authentication key for the request\'s challenge and domain.'),
  row('present-proof.ack', PRESENT_PROOF('Request Presentation'), null, '`will_confirm` -- an optional field that defaults to `false` to indicate that the verifier will or will not send a post-presentation confirmation `ack` message',
    'A verifier that set will_confirm acks a valid presentation (status OK) in the thread.'),
  row('present-proof.ack.thid', THREADS, 'MUST', THREADED_QUOTE,
    'An ack carries thid = the thread it acknowledges.'),
  row('present-proof.ack.status-present', PRESENT_STEP(5, 'Ack Presentation'), 'MUST', ACK_STATUS,
    'body.status is present. idsync reads an ack without one as OK (WACI\'s own present-proof vector acks with an empty body).', tolerated),
  row('present-proof.ack.status', PRESENT_STEP(5, 'Ack Presentation'), 'MUST', ACK_STATUS,
    'body.status, when present, is OK, PENDING or FAIL.'),

  // ---- Data Pipe 1.0 (idsync's own protocol, docs/protocols.md) ------------------------------------
  row('data-pipe.request.thid', DATA_PIPE('Data Pipe 1.0'), null, PIPE_REQUEST,
    'A request starts its thread: thid = its own id.', refuses),
  row('data-pipe.request.pthid', DATA_PIPE('Data Pipe 1.0'), null, PIPE_REQUEST,
    'pthid names the invitation.', refuses),
  row('data-pipe.request.from', DATA_PIPE('Data Pipe 1.0'), 'MUST', '`request` MUST be authcrypted; its `from` MUST be the DID of the authcrypt sender key and MUST be the wallet\'s **long-form** `did:ion`',
    'from is present: the wallet DID.'),
  row('data-pipe.request.consent', DATA_PIPE('Data Pipe 1.0'), null, PIPE_REQUEST_BODY,
    'body.consent is {granted: true, at: <ISO 8601 date-time>}.', refuses),
  row('data-pipe.request.label', DATA_PIPE('Data Pipe 1.0'), null, PIPE_REQUEST_BODY,
    'body.label, when present, is a string.', refuses),
  row('data-pipe.established.thid', DATA_PIPE('Data Pipe 1.0'), null, '`thid` = request id',
    'established carries thid = the request id.', refuses),
  row('data-pipe.established.did', DATA_PIPE('Data Pipe 1.0'), null, PIPE_ESTABLISHED_BODY,
    'body.did is the linked DID.', refuses),
  row('data-pipe.established.short_did', DATA_PIPE('Data Pipe 1.0'), null, PIPE_ESTABLISHED_BODY,
    'body.short_did is a DID.', refuses),
  row('data-pipe.established.established_at', DATA_PIPE('Data Pipe 1.0'), null, PIPE_ESTABLISHED_BODY,
    'body.established_at is an ISO 8601 date-time.', refuses),
  row('data-pipe.close.thid', DATA_PIPE('Data Pipe 1.0'), null, '`thid` = request id',
    'close carries thid = the request id.', refuses),
  row('data-pipe.close.reason', DATA_PIPE('Data Pipe 1.0'), null, '`{ "reason"?: string }`',
    'body.reason, when present, is a string.', refuses),

  // ---- Message Pickup 3.0 ------------------------------------------------------------------------
  row('messagepickup.status-request.recipient_did', PICKUP('Status Request'), null, RECIPIENT_DID,
    'body.recipient_did, when present, is a DID.', refuses),
  row('messagepickup.status-request.return_route', PICKUP('States'), null, RETURN_ROUTE,
    'status-request sets return_route "all".'),
  // Whether a status echoes the recipient_did its request named is messagepickup.status.recipient_did-echo
  // (that MUST binds the mediator, judged against the request); a status alone only shows the form.
  row('messagepickup.status.recipient_did', PICKUP('Status'), 'MAY', '`message_count` is the only **REQUIRED** attribute. The others **MAY** be present if offered by the `mediator`.',
    'body.recipient_did, when present, is a DID string.', refuses),
  row('messagepickup.status.message_count', PICKUP('Status'), 'REQUIRED', '`message_count` is the only **REQUIRED** attribute.',
    'body.message_count is a non-negative integer.'),
  row('messagepickup.status.longest_waited_seconds', PICKUP('Status'), null, '`longest_waited_seconds` is in seconds, and is the longest delay of any message in the queue.',
    'body.longest_waited_seconds, when present, is a non-negative integer.', refuses),
  row('messagepickup.status.newest_received_time', PICKUP('Status'), null, '`newest_received_time` and `oldest_received_time` are expressed in UTC Epoch Seconds (seconds since 1970-01-01T00:00:00Z) as an integer.',
    'body.newest_received_time, when present, is a non-negative integer.', refuses),
  row('messagepickup.status.oldest_received_time', PICKUP('Status'), null, '`newest_received_time` and `oldest_received_time` are expressed in UTC Epoch Seconds (seconds since 1970-01-01T00:00:00Z) as an integer.',
    'body.oldest_received_time, when present, is a non-negative integer.', refuses),
  row('messagepickup.status.total_bytes', PICKUP('Status'), null, '`total_bytes` represents the total size of all messages.',
    'body.total_bytes, when present, is a non-negative integer.', refuses),
  row('messagepickup.status.live_delivery', PICKUP('Status'), null, '`live_delivery` state is also indicated in the status message.',
    'body.live_delivery, when present, is a boolean.', refuses),
  row('messagepickup.delivery-request.recipient_did', PICKUP('Delivery Request'), null, RECIPIENT_DID,
    'body.recipient_did, when present, is a DID.', refuses),
  row('messagepickup.delivery-request.limit', PICKUP('Delivery Request'), 'REQUIRED', '`limit` is a **REQUIRED** attribute',
    'body.limit is present.'),
  // The spec gives limit no lower bound: 0 asks for nothing, and the mediator answers with a status.
  row('messagepickup.delivery-request.limit-form', PICKUP('Message Delivery'), null, 'Messages delivered from the queue must be delivered in a batch delivery message as attachments, with a batch size specified by the `limit` provided in the `delivery-request` message.',
    'body.limit is a batch size: a non-negative integer (0 is allowed).', refuses),
  row('messagepickup.delivery-request.return_route', PICKUP('States'), null, RETURN_ROUTE,
    'delivery-request sets return_route "all".'),
  row('messagepickup.delivery.recipient_did', PICKUP('Message Delivery'), null, 'The `recipient_did` attribute is only included when responding to a `delivery-request` message that indicates a `recipient_did`.',
    'body.recipient_did, when present, is a DID.', refuses),
  row('messagepickup.delivery.thid', THREADS, 'MUST', THREADED_QUOTE,
    'A delivery carries thid = the delivery-request id.'),
  row('messagepickup.delivery.attachments', PICKUP('Message Delivery'), null, 'The ONLY valid type of attachment for this message is a DIDComm v2 Message in encrypted form.',
    'A delivery has attachments, each with an id and a packed message in data.', refuses),
  row('messagepickup.messages-received.message_id_list', PICKUP('Messages Received'), null, '`message_id_list` is a list of `ids` of each message received.',
    'body.message_id_list is an array of attachment ids.', refuses),
  row('messagepickup.messages-received.return_route', PICKUP('States'), null, RETURN_ROUTE,
    'messages-received sets return_route "all".'),
  row('messagepickup.live-delivery-change.live_delivery', PICKUP('Live Mode Change'), null, '_Live Mode_ is changed with a `live-delivery-change` message.',
    'body.live_delivery is a boolean.', refuses),
];
