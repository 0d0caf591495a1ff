// The rows of the rule catalogue (catalogue.ts), grouped by spec. Wording: one sentence saying
// what a conforming message or agent does. Severity follows the spec's keyword: MUST → error,
// SHOULD (or a form allowed but worth noting) → warning; a rule whose severity depends on the
// mode (apv: MUST for authcrypt, checked when present for anoncrypt) is listed at its strongest.
export type RuleLayer = 'envelope' | 'plaintext' | 'oob' | 'protocol' | 'credential' | 'transport';
export type RuleSeverity = 'error' | 'warning';

export interface RuleSource {
  spec: string;
  section: string;
  url: string;
}

export interface CatalogueRule extends RuleSource {
  id: string;
  layer: RuleLayer;
  /** `error`: a MUST of the spec; `warning`: a SHOULD (or a form allowed but worth noting). */
  severity: RuleSeverity;
  text: string;
}


const V21 = 'https://identity.foundation/didcomm-messaging/spec/v2.1/';
const didcomm = (section: string, anchor: string): RuleSource => ({ spec: 'DIDComm Messaging v2.1', section, url: `${V21}#${anchor}` });
const rfc = (n: number, section: string, anchor: string): RuleSource => ({ spec: `RFC ${n}`, section, url: `https://www.rfc-editor.org/rfc/rfc${n}#${anchor}` });
const ECDH_1PU: RuleSource = { spec: 'ECDH-1PU draft 04', section: '§2.1 Header Parameters', url: 'https://datatracker.ietf.org/doc/html/draft-madden-jose-ecdh-1pu-04#section-2.1' };
const protocol = (spec: string, section: string, url: string): RuleSource => ({ spec, section, url });
const ISSUE = (section: string) => protocol('Issue Credential 3.0', section, 'https://didcomm.org/issue-credential/3.0/');
const PRESENT = (section: string) => protocol('Present Proof 3.0', section, 'https://didcomm.org/present-proof/3.0/');
const PICKUP = (section: string) => protocol('Message Pickup 3.0', section, 'https://didcomm.org/messagepickup/3.0/');
const WACI = (section: string) => protocol('WACI-DIDComm', section, 'https://identity.foundation/waci-didcomm/');
const PIPE = (section: string) => protocol('Data Pipe 1.0 (idsync)', section, 'protocols.md#data-pipe-10');
const ACK = (section: string) => protocol('RFC 0015 ACKs (adopted by issue-credential 3.0, present-proof 3.0)', section, 'https://github.com/hyperledger/aries-rfcs/tree/main/features/0015-acks');
const HTTP = rfc(9110, '§15 Status Codes', 'section-15');
const CM2 = (section: string) => protocol('Coordinate Mediation 2.0', section, 'https://didcomm.org/coordinate-mediation/2.0/');
const CM3 = (section: string) => protocol('Coordinate Mediation 3.0', section, 'https://didcomm.org/coordinate-mediation/3.0/');

const ENC = didcomm('DIDComm Encrypted Messages', 'didcomm-encrypted-messages');
const KW = didcomm('ECDH-1PU key wrapping and common protected headers', 'ecdh-1pu-key-wrapping-and-common-protected-headers');
const CURVES = didcomm('Curves and Content Encryption Algorithms', 'curves-and-content-encryption-algorithms');
const SIGNED = didcomm('DIDComm Signed Messages', 'didcomm-signed-messages');
const JWE_JSON = rfc(7516, '§7.2 JWE JSON Serialization', 'section-7.2');
const JWS_JSON = rfc(7515, '§7.2 JWS JSON Serialization', 'section-7.2');
const HEADERS = didcomm('Message Headers', 'message-headers');
const PLAIN = didcomm('Plaintext Message Structure', 'plaintext-message-structure');
const THREADS = didcomm('Threading', 'threading');
const ATTACH = didcomm('Attachments', 'attachments');
const ROTATION = didcomm('DID Rotation', 'did-rotation');
const OOB = didcomm('Out Of Band Messages', 'out-of-band-messages');
const PING = didcomm('Trust Ping Protocol 2.0', 'trust-ping-protocol-20');
const FEATURES = didcomm('Discover Features Protocol 2.0', 'discover-features-protocol-20');
const PROBLEMS = didcomm('Problem Reports', 'problem-reports');
const CODES = didcomm('Problem Codes', 'problem-codes');
const TRANSPORT = didcomm('Transports: HTTPS', 'https');
const ROUTING = didcomm('Routing Protocol 2.0', 'routing-protocol-20');
const MAX_RECEIVE = didcomm('Agent Constraint Disclosure: max_receive_bytes', 'max_receive_bytes');

type Keyword = 'MUST' | 'SHOULD';
type Row = [id: string, keyword: Keyword, source: RuleSource, text: string];

const ROWS: Row[] = [
  // ---- envelope: the JOSE structure (before decryption) -------------------------------------
  ['envelope.json', 'MUST', ENC, 'A packed message is a JSON document (the JSON serialization of a JWE or JWS, or a plaintext message).'],
  ['envelope.shape', 'MUST', didcomm('Message Types', 'message-types'), 'A packed message is a JWE (encrypted), a JWS (signed) or a plaintext message, recognisable by its members.'],
  ['envelope.typ', 'MUST', didcomm('IANA Media Types', 'iana-media-types'), 'The typ of each layer is its DIDComm media type: didcomm-encrypted+json, didcomm-signed+json or didcomm-plain+json.'],
  ['envelope.nesting', 'MUST', didcomm('Message Types', 'message-types'), 'Layers nest in one order only: anoncrypt around authcrypt around signed around plaintext.'],
  ['envelope.jwe-protected', 'MUST', JWE_JSON, 'The JWE protected header is base64url-encoded JSON.'],
  ['envelope.jwe-protected-headers', 'MUST', ENC, 'alg, enc, epk, apu, apv, skid and typ sit in the protected header, not in unprotected or per-recipient headers.'],
  ['envelope.jwe-header', 'MUST', JWE_JSON, 'Unprotected and per-recipient JWE headers are JSON objects.'],
  ['envelope.jwe-iv', 'MUST', JWE_JSON, 'A JWE carries its initialization vector iv as base64url.'],
  ['envelope.jwe-tag', 'MUST', JWE_JSON, 'A JWE carries an authentication tag that verifies; a changed ciphertext, iv, tag or header fails it.'],
  ['envelope.jwe-ciphertext', 'MUST', JWE_JSON, 'A JWE carries its ciphertext as base64url.'],
  ['envelope.jwe-aad', 'MUST', JWE_JSON, 'A JWE aad member, when present, is base64url.'],
  ['envelope.jwe-recipients', 'MUST', ENC, 'A DIDComm JWE uses the general JSON serialization with a non-empty recipients array.'],
  ['envelope.jwe-flattened', 'SHOULD', JWE_JSON, 'Senders use the general JWE serialization; a flattened JWE with one recipient is accepted and noted.'],
  ['envelope.jwe-recipient-kid', 'MUST', didcomm('Key IDs (kid)', 'key-ids-kid'), 'Each recipient has a kid that is a DID URL naming a keyAgreement key, and an encrypted_key.'],
  ['envelope.jwe-recipients-one-did', 'MUST', didcomm('Key IDs (kid)', 'key-ids-kid'), 'All recipients of one JWE are keys of one DID (several DIDs get several messages).'],
  ['envelope.jwe-recipient-curve', 'MUST', CURVES, 'All recipient keys of one JWE are on the curve of its epk.'],
  ['envelope.jwe-encrypted-key', 'MUST', rfc(7518, '§4.6 Key Agreement with ECDH-ES', 'section-4.6'), 'Each encrypted_key is base64url and unwraps to the content key with the agreed key.'],
  ['envelope.jwe-epk', 'MUST', rfc(7518, '§4.6.1.1 epk', 'section-4.6.1.1'), 'The protected header carries the ephemeral public key epk as a JWK.'],
  ['envelope.jwe-epk-curve', 'MUST', CURVES, 'The epk, the recipient keys and (authcrypt) the sender key share one curve.'],
  ['envelope.jwe-curve', 'SHOULD', CURVES, 'Key agreement runs on X25519 or P-256; P-384 and P-521 are allowed and noted (many agents cannot read them).'],
  ['envelope.jwe-alg', 'MUST', CURVES, 'alg is ECDH-1PU+A256KW (authcrypt) or ECDH-ES+A256KW (anoncrypt).'],
  ['envelope.jwe-enc', 'MUST', CURVES, 'enc is A256CBC-HS512 for authcrypt; A256CBC-HS512, A256GCM or XC20P for anoncrypt.'],
  ['envelope.jwe-crit', 'MUST', rfc(7516, '§4.1.13 crit', 'section-4.1.13'), 'A JWE naming critical extensions the receiver does not implement is refused.'],
  ['envelope.jwe-zip', 'MUST', CURVES, 'Compressed content (zip) is outside the algorithm tables and is refused.'],
  ['envelope.jwe-payload', 'MUST', ENC, 'The decrypted payload is a JSON object: a signed or plaintext message, or a nested JWE.'],
  ['envelope.jwe-apu', 'MUST', rfc(7518, '§4.6.1.2 apu', 'section-4.6.1.2'), 'apu, when present, is base64url.'],
  ['envelope.jwe-apv', 'MUST', KW, 'apv is base64url(SHA-256(the recipient kids, sorted, joined with ".")); required for authcrypt, checked when present for anoncrypt.'],
  ['envelope.jwe-sender-key', 'MUST', ECDH_1PU, 'The authcrypt sender key is a keyAgreement key on the curve of the epk.'],
  ['envelope.authcrypt-skid', 'SHOULD', KW, 'An authcrypted JWE names its sender key in skid, a DID URL.'],
  ['envelope.authcrypt-apu', 'MUST', KW, 'For authcrypt, apu is base64url(skid): the sender key id.'],
  ['envelope.authcrypt-skid-from-apu', 'SHOULD', KW, 'Authcrypt without skid is accepted when apu carries the sender key id, and noted.'],
  ['envelope.anoncrypt-no-skid', 'SHOULD', ENC, 'An anoncrypted JWE does not name its sender (no skid).'],
  ['envelope.anoncrypt-no-apv', 'SHOULD', rfc(7518, '§4.6.1 ECDH-ES header parameters', 'section-4.6.1'), 'Anoncrypt without apv is accepted (apu and apv are optional for ECDH-ES) and noted.'],
  ['envelope.anoncrypt-apv-mismatch', 'SHOULD', KW, 'An anoncrypt apv that is not the digest of the recipient kids is accepted (both sides use the same bytes) and noted.'],
  ['envelope.jws-payload', 'MUST', JWS_JSON, 'A JWS payload is base64url of the plaintext message.'],
  ['envelope.jws-signatures', 'MUST', SIGNED, 'A JWS has a non-empty signatures array (general) or one signature (flattened).'],
  ['envelope.jws-flattened', 'SHOULD', SIGNED, 'A flattened JWS is allowed ("either the General or Flattened form") and noted.'],
  ['envelope.jws-several-signatures', 'SHOULD', SIGNED, 'A JWS with several signatures is accepted when the sender\'s verifies, and noted.'],
  ['envelope.jws-protected', 'MUST', JWS_JSON, 'Each JWS signature has a base64url JSON protected header.'],
  ['envelope.jws-header', 'MUST', JWS_JSON, 'A JWS unprotected header, when present, is a JSON object.'],
  ['envelope.jws-header-disjoint', 'MUST', rfc(7515, '§7.2.1 General JWS JSON Serialization Syntax', 'section-7.2.1'), 'No header parameter appears in both the protected and the unprotected JWS header.'],
  ['envelope.jws-alg', 'MUST', SIGNED, 'The JWS alg is EdDSA, ES256 or ES256K.'],
  ['envelope.jws-alg-key', 'MUST', SIGNED, 'The JWS alg fits the curve of the signing key.'],
  ['envelope.jws-kid', 'MUST', SIGNED, 'Each signature names its key in kid, a DID URL of an authentication key.'],
  ['envelope.jws-kid-protected', 'SHOULD', rfc(7515, '§4 JOSE Header', 'section-4'), 'A kid only in the protected header is accepted (the JOSE header is the union of both) and noted.'],
  ['envelope.jws-signature', 'MUST', SIGNED, 'The signature verifies with the signer\'s key.'],
  ['envelope.jws-crit', 'MUST', rfc(7515, '§4.1.11 crit', 'section-4.1.11'), 'A JWS naming critical extensions the receiver does not implement is refused.'],
  ['envelope.secret', 'MUST', CURVES, 'A private key is on the curve its DID document says.'],
  ['envelope.from-matches-sender', 'MUST', HEADERS, 'The from of an authcrypted message is the DID of the authcrypt sender key.'],
  ['envelope.from-matches-signer', 'MUST', SIGNED, 'The from of a signed message is the DID of the signing key.'],
  ['envelope.recipient-in-to', 'MUST', HEADERS, 'An encrypted message is encrypted only to keys of DIDs listed in its to.'],
  ['envelope.sender-authenticated', 'SHOULD', didcomm('Sender Authenticated Encryption', 'sender-authenticated-encryption'), 'A message that names a from is authcrypted or signed, so the from is proven.'],
  // The spec has no keyword for this; idsync's profile makes it a MUST: a weaker answer exposes or
  // unauthenticates a conversation the requester protected.
  ['envelope.reply-in-kind', 'MUST', { spec: 'idsync profile of DIDComm Messaging v2.1', section: 'DIDComm Encrypted Messages (replies in kind)', url: `${V21}#didcomm-encrypted-messages` }, 'A reply to an authenticated (or encrypted) message is itself authenticated (or encrypted): never a weaker envelope than the request.'],
  ['envelope.tampered-refused', 'MUST', ENC, 'A message whose ciphertext was changed, or that is encrypted for someone else, is refused and never acted on.'],
  ['from_prior.jwt', 'MUST', ROTATION, 'from_prior is a compact JWS (a JWT).'],
  ['from_prior.typ', 'MUST', ROTATION, 'The from_prior header typ is JWT.'],
  ['from_prior.alg', 'MUST', ROTATION, 'The from_prior alg is EdDSA, ES256 or ES256K and fits the key of its kid.'],
  ['from_prior.kid', 'MUST', ROTATION, 'The from_prior kid is a key of the prior DID (iss).'],
  ['from_prior.iss', 'MUST', ROTATION, 'from_prior iss is the prior DID, without a fragment.'],
  ['from_prior.sub', 'MUST', ROTATION, 'from_prior sub is the new DID, differs from iss, and is the message from.'],
  ['from_prior.signature', 'MUST', ROTATION, 'The from_prior signature verifies with the prior DID\'s key.'],

  // ---- plaintext: headers of every message --------------------------------------------------
  ['plaintext.json', 'MUST', PLAIN, 'A plaintext message is JSON.'],
  ['plaintext.json-object', 'MUST', PLAIN, 'A plaintext message is a JSON object.'],
  ['plaintext.id', 'MUST', HEADERS, 'id is required: a non-empty string.'],
  ['plaintext.id-format', 'SHOULD', THREADS, 'id is at most 128 bytes of unreserved URI characters.'],
  ['plaintext.id-unique', 'MUST', HEADERS, 'A message id is unique to its sender: a replayed id is refused, not acted on again.'],
  ['plaintext.type', 'MUST', HEADERS, 'type is required: a message type URI <doc-uri><protocol>/<major.minor>/<name>.'],
  ['plaintext.typ', 'MUST', PLAIN, 'typ, when present, is application/didcomm-plain+json.'],
  ['plaintext.from', 'MUST', HEADERS, 'from is a DID or DID URL without a fragment.'],
  ['plaintext.to', 'MUST', HEADERS, 'to is an array of DIDs or DID URLs without fragments.'],
  ['plaintext.thid', 'MUST', THREADS, 'thid, when present, is a non-empty string.'],
  ['plaintext.pthid', 'MUST', THREADS, 'pthid, when present, is a non-empty string.'],
  ['plaintext.created_time', 'MUST', HEADERS, 'created_time is an integer of UTC epoch seconds.'],
  ['plaintext.expires_time', 'MUST', HEADERS, 'expires_time is an integer of UTC epoch seconds.'],
  ['plaintext.expires-after-created', 'SHOULD', HEADERS, 'expires_time is not before created_time.'],
  ['plaintext.expires_time-honoured', 'SHOULD', HEADERS, 'A receiver does not act on a message after its expires_time (the sender considers it invalid).'],
  ['plaintext.body', 'MUST', HEADERS, 'body is required: a JSON object, even if empty.'],
  ['plaintext.attachments', 'MUST', ATTACH, 'attachments is an array of objects whose data holds json, base64 or links (with hash).'],
  ['plaintext.attachment-fields', 'SHOULD', ATTACH, 'Attachment fields sit on the attachment, not in data; v2 uses id, not @id.'],
  ['plaintext.ack', 'MUST', didcomm('ACKs', 'acks'), 'ack, when present, is an array of message ids.'],
  ['plaintext.return_route', 'MUST', didcomm('Routing Protocol 2.0 / return_route', 'routing-protocol-20'), "return_route is 'none', 'all' or 'thread'."],
  ['plaintext.from_prior', 'MUST', ROTATION, 'from_prior, when present, is a compact JWT.'],

  // ---- out-of-band --------------------------------------------------------------------------
  ['oob.url', 'MUST', OOB, 'An invitation URL is an absolute URL.'],
  ['oob.url-scheme', 'SHOULD', OOB, 'Invitation URLs use https.'],
  ['oob.param', 'MUST', didcomm('Standard Message Encoding', 'standard-message-encoding'), 'The URL carries the invitation in _oob, or its id in _oobid for a short URL (not both).'],
  ['oob.oobid', 'MUST', didcomm('Short URL Message Retrieval', 'short-url-message-retrieval'), '_oobid is a non-empty id, fetched with HTTP GET.'],
  ['oob.base64url', 'SHOULD', didcomm('Standard Message Encoding', 'standard-message-encoding'), '_oob is base64url without padding.'],
  ['oob.decode', 'MUST', didcomm('Standard Message Encoding', 'standard-message-encoding'), '_oob decodes as base64url.'],
  ['oob.json', 'MUST', didcomm('Standard Message Encoding', 'standard-message-encoding'), '_oob decodes to a JSON invitation.'],
  ['oob.compact-json', 'SHOULD', didcomm('Standard Message Encoding', 'standard-message-encoding'), 'Whitespace is removed from the JSON before encoding, to keep URLs short.'],
  ['oob.invitation-object', 'MUST', OOB, 'The invitation is a JSON object.'],
  ['oob.type', 'MUST', OOB, 'The invitation type is https://didcomm.org/out-of-band/2.x/invitation.'],
  ['out-of-band.from', 'MUST', OOB, 'An invitation carries from: the DID to answer.'],
  ['out-of-band.goal_code', 'MUST', OOB, 'body.goal_code, when present, is a string.'],
  ['out-of-band.goal', 'MUST', OOB, 'body.goal, when present, is a string.'],
  ['out-of-band.accept', 'MUST', OOB, 'body.accept, when present, is an array of media type strings.'],
  ['out-of-band.thid', 'SHOULD', OOB, 'An invitation starts a new context: it has no thid (its id becomes the pthid of the answer).'],

  // ---- DIDComm's own protocols ---------------------------------------------------------------
  ['trust-ping.response_requested', 'MUST', PING, 'body.response_requested, when present, is a boolean (default true).'],
  ['trust-ping.response', 'MUST', PING, 'A ping with response_requested true (or absent) is answered with a ping-response.'],
  ['trust-ping.response-thid', 'MUST', PING, 'A ping-response carries thid = the id of the ping it answers.'],
  ['trust-ping.no-response', 'MUST', PING, 'A ping with response_requested false gets no ping-response.'],
  ['discover-features.queries', 'MUST', FEATURES, 'body.queries is a non-empty array of {feature-type, match} strings.'],
  ['discover-features.disclosures', 'MUST', FEATURES, 'body.disclosures is an array of {feature-type, id, roles?}.'],
  ['discover-features.disclose-thid', 'MUST', FEATURES, 'A disclose carries thid = the id of the queries it answers.'],
  ['discover-features.disclosed-supported', 'MUST', FEATURES, 'A protocol the agent discloses is one it supports: its messages are not refused as an unsupported type.'],
  ['report-problem.pthid', 'MUST', PROBLEMS, 'A problem report carries pthid: the thid of the thread where the problem occurred.'],
  ['report-problem.pthid-thread', 'MUST', PROBLEMS, 'The pthid of a problem report is the thread (thid, else id) of the message that caused it.'],
  ['report-problem.code', 'MUST', CODES, 'body.code is <e|w>.<scope>.<descriptors> in lower kebab-case.'],
  ['report-problem.code-descriptor', 'SHOULD', CODES, 'A problem code has at least one descriptor after sorter and scope.'],
  ['report-problem.comment', 'MUST', PROBLEMS, 'body.comment, when present, is a string.'],
  ['report-problem.args', 'MUST', PROBLEMS, 'body.args, when present, is an array of strings.'],
  ['report-problem.escalate_to', 'MUST', PROBLEMS, 'body.escalate_to, when present, is a URI.'],
  ['report-problem.reply', 'SHOULD', PROBLEMS, 'A message refused from an authenticated sender who can be reached is answered with a problem report, not silence.'],

  // ---- transport -----------------------------------------------------------------------------
  ['transport.no-server-error', 'MUST', HTTP, 'An endpoint answers input it cannot accept with 2xx or 4xx; a 5xx says the receiver itself failed (DIDComm v2 §Transports: 202 Accepted on receipt).'],
  ['transport.reachable', 'MUST', TRANSPORT, 'The DIDComm service endpoint of the DID document accepts an HTTP POST of a packed message.'],

  // ---- idsync's application protocols ---------------------------------------------------------
  ['issue-credential.propose.goal_code', 'MUST', ISSUE('propose-credential'), 'body.goal_code, when present, is a string.'],
  ['issue-credential.offer.thid', 'MUST', ISSUE('offer-credential'), 'An offer answering a propose-credential carries thid = the propose\'s thread.'],
  ['issue-credential.offer', 'MUST', WACI('Issuance: propose-credential, offer-credential'), 'A propose-credential answering a streamlined-vc invitation (pthid = the invitation) is answered with an offer.'],
  ['issue-credential.issue', 'MUST', WACI('Issuance: request-credential, issue-credential'), 'A request-credential with a signed credential application is answered with issue-credential.'],
  ['issue-credential.propose', 'MUST', WACI('Issuance: out-of-band invitation, propose-credential'), 'A holder accepting a streamlined-vc invitation sends propose-credential, authcrypted, pthid = the invitation id.'],
  ['issue-credential.request', 'MUST', WACI('Issuance: offer-credential, request-credential'), 'A holder answers an offer it accepts with request-credential in the offer\'s thread.'],
  ['issue-credential.request.signed', 'MUST', WACI('Issuance: request-credential'), 'The credential application is signed with the holder\'s authentication key for the offer\'s challenge and domain.'],
  ['issue-credential.ack', 'MUST', ACK('ack'), 'A holder that received a valid credential acks it (status OK) in the issuance thread.'],
  ['issue-credential.offer.goal_code', 'MUST', ISSUE('offer-credential'), 'body.goal_code, when present, is a string.'],
  ['issue-credential.offer.replacement_id', 'MUST', ISSUE('offer-credential'), 'body.replacement_id, when present, is a string.'],
  ['issue-credential.offer.credential_preview', 'MUST', ISSUE('credential-preview'), 'The offer\'s credential_preview lists attributes {name, value}; without one the holder cannot compare (a warning).'],
  ['issue-credential.offer.manifest', 'MUST', WACI('Issuance: offer-credential'), 'The offer carries exactly one credential manifest attachment with options.challenge and domain.'],
  ['issue-credential.offer.manifest-format-placement', 'SHOULD', ATTACH, 'format belongs on the attachment, not inside data.'],
  ['issue-credential.request.thid', 'MUST', ISSUE('request-credential'), 'request-credential carries thid = the issuance thread.'],
  ['issue-credential.request.application', 'MUST', WACI('Issuance: request-credential'), 'The request carries exactly one signed credential application.'],
  ['issue-credential.request.application-format-placement', 'SHOULD', ATTACH, 'format belongs on the attachment, not inside data.'],
  ['issue-credential.issue.thid', 'MUST', ISSUE('issue-credential'), 'issue-credential carries thid = the issuance thread.'],
  ['issue-credential.issue.replacement_id', 'MUST', ISSUE('issue-credential'), 'body.replacement_id, when present, is a string.'],
  ['issue-credential.issue.status-list', 'MUST', ISSUE('issue-credential'), 'At most one status list credential attachment.'],
  ['issue-credential.issue.fulfillment', 'MUST', WACI('Issuance: issue-credential'), 'The issue message carries exactly one credential fulfillment with the credential.'],
  ['issue-credential.issue.fulfillment-format-placement', 'SHOULD', ATTACH, 'format belongs on the attachment, not inside data.'],
  ['issue-credential.issue.matches-preview', 'MUST', ISSUE('credential-preview'), 'The issued credential\'s claims are the values the offer\'s preview announced.'],
  ['issue-credential.ack.thid', 'MUST', ACK('ack'), 'An ack carries thid = the thread it acknowledges.'],
  ['issue-credential.ack.status', 'MUST', ACK('ack'), 'body.status, when present, is OK, PENDING or FAIL.'],
  ['credential.verified', 'MUST', protocol('VC Data Model 2.0', '§4 Basic Concepts, §5.3 Integrity of Credentials', 'https://www.w3.org/TR/vc-data-model-2.0/'), 'An issued credential verifies: its proof with a key of the issuer\'s assertionMethod, issuer = the DID offering, subject = the holder, within its validity period, its status not revoked.'],
  ['present-proof.request', 'MUST', WACI('Presentation: propose-presentation, request-presentation'), 'A propose-presentation answering a streamlined-vp invitation (pthid = the invitation) is answered with request-presentation.'],
  ['present-proof.request.thid', 'MUST', PRESENT('request-presentation'), 'A request answering a propose-presentation carries thid = the propose\'s thread.'],
  ['present-proof.ack', 'MUST', ACK('ack'), 'A verifier that set will_confirm acks a valid presentation (status OK) in the thread.'],
  ['present-proof.propose', 'MUST', WACI('Presentation: out-of-band invitation, propose-presentation'), 'A prover accepting a streamlined-vp invitation sends propose-presentation, authcrypted, pthid = the invitation id.'],
  ['present-proof.presentation', 'MUST', WACI('Presentation: request-presentation, presentation'), 'A prover answers a request it accepts with a presentation in the request\'s thread.'],
  ['present-proof.presentation.signed', 'MUST', WACI('Presentation: presentation'), 'The presentation is signed with the prover\'s authentication key for the request\'s challenge and domain.'],
  ['present-proof.request.will_confirm', 'MUST', PRESENT('request-presentation'), 'body.will_confirm, when present, is a boolean.'],
  ['present-proof.request.goal_code', 'MUST', PRESENT('request-presentation'), 'body.goal_code, when present, is a string.'],
  ['present-proof.request.definition', 'MUST', WACI('Presentation: request-presentation'), 'The request carries one presentation definition with options.challenge and domain.'],
  ['present-proof.request.definition-format-placement', 'SHOULD', ATTACH, 'format belongs on the attachment, not inside data.'],
  ['present-proof.presentation.thid', 'MUST', PRESENT('presentation'), 'A presentation carries thid = the request thread.'],
  ['present-proof.presentation.submission', 'MUST', WACI('Presentation: presentation'), 'The presentation carries one Verifiable Presentation with holder, presentation_submission and proof.'],
  ['present-proof.presentation.submission-format-placement', 'SHOULD', ATTACH, 'format belongs on the attachment, not inside data.'],
  ['present-proof.ack.thid', 'MUST', ACK('ack'), 'An ack carries thid = the thread it acknowledges.'],
  ['present-proof.ack.status', 'MUST', ACK('ack'), 'body.status, when present, is OK, PENDING or FAIL.'],
  ['data-pipe.request.thid', 'MUST', PIPE('request'), 'A request starts its thread: thid = its own id.'],
  ['data-pipe.request.pthid', 'MUST', PIPE('request'), 'pthid names the invitation.'],
  ['data-pipe.request.from', 'MUST', PIPE('request'), 'from is required: the wallet DID.'],
  ['data-pipe.request.consent', 'MUST', PIPE('request'), 'body.consent is {granted: true, at: <ISO 8601 date-time>}.'],
  ['data-pipe.request.label', 'MUST', PIPE('request'), 'body.label, when present, is a string.'],
  ['data-pipe.established.thid', 'MUST', PIPE('established'), 'established carries thid = the request id.'],
  ['data-pipe.established.did', 'MUST', PIPE('established'), 'body.did is the linked DID.'],
  ['data-pipe.established.short_did', 'MUST', PIPE('established'), 'body.short_did is a DID.'],
  ['data-pipe.established.established_at', 'MUST', PIPE('established'), 'body.established_at is an ISO 8601 date-time.'],
  ['data-pipe.close.thid', 'MUST', PIPE('close'), 'close carries thid = the request id.'],
  ['data-pipe.close.reason', 'MUST', PIPE('close'), 'body.reason, when present, is a string.'],
  ['messagepickup.status-request.recipient_did', 'MUST', PICKUP('status-request'), 'body.recipient_did, when present, is a DID.'],
  ['messagepickup.status-request.return_route', 'SHOULD', PICKUP('Requirements'), 'status-request sets return_route "all".'],
  ['messagepickup.status.recipient_did', 'MUST', PICKUP('status'), 'body.recipient_did, when present, is a DID.'],
  ['messagepickup.status.message_count', 'MUST', PICKUP('status'), 'body.message_count is a non-negative integer.'],
  ['messagepickup.status.longest_waited_seconds', 'MUST', PICKUP('status'), 'body.longest_waited_seconds, when present, is a non-negative integer.'],
  ['messagepickup.status.newest_received_time', 'MUST', PICKUP('status'), 'body.newest_received_time, when present, is a non-negative integer.'],
  ['messagepickup.status.oldest_received_time', 'MUST', PICKUP('status'), 'body.oldest_received_time, when present, is a non-negative integer.'],
  ['messagepickup.status.total_bytes', 'MUST', PICKUP('status'), 'body.total_bytes, when present, is a non-negative integer.'],
  ['messagepickup.status.live_delivery', 'MUST', PICKUP('status'), 'body.live_delivery, when present, is a boolean.'],
  ['messagepickup.delivery-request.recipient_did', 'MUST', PICKUP('delivery-request'), 'body.recipient_did, when present, is a DID.'],
  ['messagepickup.delivery-request.limit', 'MUST', PICKUP('delivery-request'), 'body.limit is a positive integer.'],
  ['messagepickup.delivery-request.return_route', 'SHOULD', PICKUP('Requirements'), 'delivery-request sets return_route "all".'],
  ['messagepickup.delivery.recipient_did', 'MUST', PICKUP('delivery'), 'body.recipient_did, when present, is a DID.'],
  ['messagepickup.delivery.thid', 'MUST', PICKUP('delivery'), 'A delivery carries thid = the delivery-request id.'],
  ['messagepickup.delivery.attachments', 'MUST', PICKUP('delivery'), 'A delivery has attachments, each with an id and a packed message in data.'],
  ['messagepickup.messages-received.message_id_list', 'MUST', PICKUP('messages-received'), 'body.message_id_list is an array of attachment ids.'],
  ['messagepickup.messages-received.return_route', 'SHOULD', PICKUP('Requirements'), 'messages-received sets return_route "all".'],
  ['messagepickup.live-delivery-change.live_delivery', 'MUST', PICKUP('live-delivery-change'), 'body.live_delivery is a boolean.'],

  // Each row below keeps, beside it, the sentence it enforces (verbatim) and that sentence's RFC 2119
  // keyword. "keyword: none" (lowercase must/should are not RFC 8174 keywords) makes a rule advice
  // once severity follows the keyword; rows marked "refuses" are body shapes the mediator cannot act
  // without, and stay refusals whatever their severity.
  // Message Pickup 3.0 — what a mediator does (the mediator suite, src/harness/suites/mediator*.ts).
  // "When specified, the `mediator` **MUST** only return status related to that recipient did." — MUST
  ['messagepickup.status.scoped', 'MUST', PICKUP('status-request'), 'A status-request naming recipient_did is answered with the count of that DID\'s messages only; without it, with the requester\'s.'],
  // "If a `recipient_did` was specified in the `status-request message`, the matching value **MUST** be specified in the `recipient_did` attribute of the status message." — MUST
  ['messagepickup.status.recipient_did-echo', 'MUST', PICKUP('status'), 'A status answering a status-request that named recipient_did carries the same recipient_did.'],
  // "a status message **MUST NOT** be put on the pending message queue and **MUST** only be sent when the `recipient` is actively connected" — MUST NOT
  ['messagepickup.status.not-queued', 'MUST', PICKUP('status'), 'A status is never queued: no delivery carries one.'],
  // "If no messages are available to be sent, a `status` message **MUST** be sent immediately." — MUST
  ['messagepickup.delivery-request.empty-status', 'MUST', PICKUP('delivery-request'), 'A delivery-request with nothing queued is answered with a status at once.'],
  // "`limit` is a **REQUIRED** attribute, and after receipt of this message, the `mediator` **SHOULD** deliver up to the limit indicated." — SHOULD
  ['messagepickup.delivery.limit', 'SHOULD', PICKUP('delivery-request'), 'A delivery holds at most `limit` messages, and all queued ones up to it.'],
  // "`recipient_did` is optional. When specified, the `mediator` **MUST** only return messages sent to that recipient did." — MUST
  ['messagepickup.delivery.scoped', 'MUST', PICKUP('delivery-request'), 'A delivery-request naming recipient_did delivers messages for that DID only.'],
  // "Delivered messages **MUST NOT** be deleted until delivery is acknowledged by a messages-received message." — MUST NOT
  ['messagepickup.delivery.kept-until-received', 'MUST', PICKUP('delivery-request'), 'A delivered message stays queued (counted and delivered again) until messages-received names it.'],
  // "Normally, the payload attached to the `forward` message received by the mediator is transmitted directly to the receiver with no further packaging." — keyword: none
  ['messagepickup.delivery.forwarded-payload', 'SHOULD', ROUTING, 'The delivered attachment is the packed message the forward carried, unchanged, and opens for its recipient.'],
  // "The `mediator` **SHOULD** send an updated `status` message reflecting the changes to the queue." — SHOULD
  ['messagepickup.messages-received.status', 'SHOULD', PICKUP('messages-received'), 'messages-received is answered with a status whose count no longer includes the messages it named.'],
  // "Upon receiving the `live_delivery_change` message, the `mediator` **MUST* respond with a `status` message." — MUST
  ['messagepickup.live-delivery-change.status', 'MUST', PICKUP('Live Mode Change'), 'live-delivery-change is answered with a status.'],
  // "_Live Mode_ **MUST** only be enabled when a persistent transport is used, such as WebSockets." — MUST
  ['messagepickup.live.persistent-only', 'MUST', PICKUP('Live Mode'), 'Live mode asked for over HTTP is not enabled: no status says live_delivery true.'],
  // "If sent with `live_delivery` set to true on a connection incapable of live delivery, a `problem_report` **SHOULD** be sent as follows:" — SHOULD
  ['messagepickup.live.not-supported-report', 'SHOULD', PICKUP('Live Mode Change'), 'Live mode asked for over HTTP is answered with problem report e.m.live-mode-not-supported.'],
  // "When _Live Mode_ is enabled, messages that arrive when an existing connection exists are delivered over the connection immediately, rather than being pushed to the queue." — keyword: none
  ['messagepickup.live.push', 'SHOULD', PICKUP('Live Mode'), 'With live mode on, a message forwarded afterwards arrives on the connection without a delivery-request.'],

  // ---- Coordinate Mediation 2.0 and 3.0 ------------------------------------------------------
  // "`routing_did`: DID of the mediator where forwarded messages should be sent." — keyword: none; refuses (2.0's example is one DID string; the Identus SDK refuses a list)
  ['coordinate-mediation.mediate-grant.routing_did', 'MUST', CM2('Mediate Grant'), 'A 2.0 mediate-grant carries routing_did: one DID string.'],
  // "`routing_did`: DID of the mediator where forwarded messages should be sent." — keyword: none; refuses (3.0's example is a list)
  ['coordinate-mediation.mediate-grant.routing_did-list', 'MUST', CM3('Mediate Grant'), 'A 3.0 mediate-grant carries routing_did: a non-empty list of DIDs.'],
  // "`action`: one of `add` or `remove`." — keyword: none; refuses
  ['coordinate-mediation.keylist-update.updates', 'MUST', CM2('Keylist Update'), 'body.updates is a non-empty list of {recipient_did: a DID, action: add | remove}.'],
  // "`action`: one of `add` or `remove`." — keyword: none; refuses
  ['coordinate-mediation.recipient-update.updates', 'MUST', CM3('Recipient Update'), 'body.updates is a non-empty list of {recipient_did: a DID, action: add | remove}.'],
  // "`result`: one of `client_error`, `server_error`, `no_change`, `success`; describes the resulting state of the keylist update." — keyword: none; refuses
  ['coordinate-mediation.keylist-update-response.updated', 'MUST', CM2('Keylist Response'), 'body.updated lists {recipient_did, action, result: client_error | server_error | no_change | success}.'],
  // "`result`: one of `client_error`, `server_error`, `no_change`, `success`; describes the resulting state of the Recipient update." — keyword: none; refuses
  ['coordinate-mediation.recipient-update-response.updated', 'MUST', CM3('Recipient Response'), 'body.updated lists {recipient_did, action, result: client_error | server_error | no_change | success}.'],
  // "`paginate`: is optional, and if present must include `limit` and `offset`." — keyword: none; refuses
  ['coordinate-mediation.keylist-query.paginate', 'MUST', CM2('Keylist Query'), 'body.paginate, when present, holds limit and offset.'],
  // "`paginate`: is optional, and if present must include `limit` and `offset`." — keyword: none; refuses
  ['coordinate-mediation.recipient-query.paginate', 'MUST', CM3('Recipient Query'), 'body.paginate, when present, holds limit and offset.'],
  // "Response to key list query, containing retrieved keys." — keyword: none; refuses
  ['coordinate-mediation.keylist.keys', 'MUST', CM2('Keylist'), 'body.keys is a list of {recipient_did}.'],
  // "`pagination`: is optional, and if present must include `count`, `offset` and `remaining`." — keyword: none; refuses
  ['coordinate-mediation.keylist.pagination', 'MUST', CM2('Keylist'), 'body.pagination, when present, holds count, offset and remaining.'],
  // "Response to recipient query, containing retrieved recipient DIDs." — keyword: none; refuses
  ['coordinate-mediation.recipient.dids', 'MUST', CM3('Recipient'), 'body.dids is a list of {recipient_did}.'],
  // "`pagination`: is optional, and if present must include `count`, `offset` and `remaining`." — keyword: none; refuses
  ['coordinate-mediation.recipient.pagination', 'MUST', CM3('Recipient'), 'body.pagination, when present, holds count, offset and remaining.'],
  // "This protocol consists of three different message requests from the `recipient` that should be replied by the `mediator`:" — keyword: none
  ['coordinate-mediation.answered', 'SHOULD', CM2('Connectivity'), 'mediate-request, keylist-update and keylist-query are each answered by their reply in the same thread.'],
  // "The `return_route` extension must be supported by both agents (`recipient` and `mediator`)." — keyword: none
  ['coordinate-mediation.return-route', 'SHOULD', CM2('Requirements'), 'A request with return_route "all" is answered on the same connection (the HTTP response).'],
  // "If the `mediator` is willing to route messages, it will respond with a `mediate-grant` message, otherwise with a `mediate-deny` message." — keyword: none
  ['coordinate-mediation.deny', 'SHOULD', CM2('Basic Walkthrough'), 'A mediate-request the mediator will not serve is answered with mediate-deny, not a grant.'],
  // "The `keylist-update` and `keylist-query` methods are used over time to identify and remove keys that are no longer in use by the `recipient`." — keyword: none
  ['coordinate-mediation.keylist-current', 'SHOULD', CM2('Basic Walkthrough'), 'keylist-query lists the DIDs added and not removed since: an added DID appears, a removed one does not.'],
  // "`result`: one of `client_error`, `server_error`, `no_change`, `success`; describes the resulting state of the keylist update." — keyword: none
  ['coordinate-mediation.update-result', 'SHOULD', CM2('Keylist Response'), 'Each update gets the result it caused: success for a change, no_change for removing a DID not registered.'],

  // ---- Routing Protocol 2.0 ------------------------------------------------------------------
  // "`next` - REQUIRED. The identifier of the party to send the attached message to." — REQUIRED
  ['routing.forward.next', 'MUST', ROUTING, 'body.next is the DID or key id of the next hop.'],
  // "`attachments` - REQUIRED. The DIDComm message(s) to send to the party indicated in the `next` body attribute." — REQUIRED
  ['routing.forward.attachments', 'MUST', ROUTING, 'A forward carries attachments, each holding a packed DIDComm message.'],
  // "The `please_ack` header SHOULD NOT be included on `forward` messages, and MUST NOT be honored by mediators." — SHOULD NOT
  ['routing.forward.please_ack', 'SHOULD', ROUTING, 'A forward carries no please_ack.'],
  // "An additional header, `delay_milli` is also possible; this allows the sender to request that a mediator wait a specified number of milliseconds before delivering." — keyword: none; refuses
  ['routing.forward.delay_milli', 'MUST', ROUTING, 'delay_milli, when present, is an integer number of milliseconds.'],
  // "A successful message receipt MUST return a code in the 2xx HTTPS Status Code range." — MUST
  ['routing.forward.receipt', 'MUST', TRANSPORT, 'A forward the mediator answers 2xx is held for its recipient: picking up delivers it.'],
  // "In order for the `mediator` to start accepting Forward Message for those DIDs." — keyword: none
  ['routing.forward.unknown-next', 'SHOULD', CM2('Mediate Grant'), 'A forward whose next no recipient registered is not accepted: it is refused (4xx or a problem report), never answered 2xx and lost.'],
  // "If a mediator sees a header that requests behavior it doesn't support, it MAY return a problem-report to the sender identifying the unsupported feature, but it is not required to do so." — MAY
  ['routing.forward.unsupported-header', 'SHOULD', ROUTING, 'A forward asking for a delay the mediator will not honour is refused, not delivered early.'],
  // "It is recommended that the agent imposing the constraint send a problem report citing the constraint as the cause of a reception error." — keyword: none
  ['routing.forward.too-big', 'SHOULD', MAX_RECEIVE, 'A forward larger than the mediator takes is refused with a problem report or HTTP 413, not answered 2xx.'],

  // ---- the checker itself ---------------------------------------------------------------------
  ['conformance.rule-crashed', 'SHOULD', protocol('idsync', 'rule catalogue', 'rules.md'), 'A rule that throws is reported as a warning and checking goes on; it is a defect of the checker, not of the message.'],
];

function layerOf(id: string): RuleLayer {
  const head = id.split('.')[0]!;
  if (head === 'envelope' || head === 'from_prior') return 'envelope';
  if (head === 'plaintext') return 'plaintext';
  if (head === 'oob') return 'oob';
  if (head === 'transport') return 'transport';
  if (head === 'credential') return 'credential';
  return 'protocol';
}

export const CATALOGUE_ENTRIES: CatalogueRule[] = ROWS.map(([id, keyword, source, text]) => ({
  id,
  layer: layerOf(id),
  severity: keyword === 'MUST' ? 'error' : 'warning',
  ...source,
  text,
}));
