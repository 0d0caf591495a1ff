// Catalogue rows of the plaintext layer (the headers of every message) and of out-of-band
// invitations and their URLs, quoted from DIDComm Messaging v2.1.
import { row } from './rule-row.js';

const refuses = { refuses: true } as const;
import { IDSYNC_PROFILE, MESSAGES, OUT_OF_BAND, PICKUP, PROBLEMS, SIGNING, THREADING } from './rule-sources.js';

const HEADERS = MESSAGES('Message Headers');
const ATTACHMENTS = MESSAGES('Attachments');
const ENCODING = OUT_OF_BAND('Standard Message Encoding');
const INVITATION = OUT_OF_BAND('Invitation');
const JSON_SERIALIZATION = 'When transmitted in a normal JWM fashion, the JSON Serialization MUST be used.';
const BASE64URL_JWM = 'The `<encodedplaintextjwm>` is a JWM plaintext message that has been base64-url encoded.';
const EXPIRES = 'This attribute is used for the sender to express when they will consider the message to be expired, expressed in UTC Epoch Seconds (seconds since 1970-01-01T00:00:00Z) as an integer.';

export const PLAINTEXT_ROWS = [
  row('plaintext.json', SIGNING('Construction'), 'MUST', JSON_SERIALIZATION,
    'A plaintext message is JSON.'),
  row('plaintext.json-object', SIGNING('Construction'), 'MUST', JSON_SERIALIZATION,
    'A plaintext message is a JSON object (a JWM), not an array or a scalar.'),
  row('plaintext.id', HEADERS, 'REQUIRED', '`id` - REQUIRED. Message ID.',
    'id is present: a non-empty string.'),
  row('plaintext.id-missing-refused', THREADING('Message IDs'), 'MUST NOT', 'A message without an `id` property SHOULD be considered invalid and SHOULD be rejected; it MUST NOT be interpreted as part of a multi-message interaction.',
    'A message without id is not answered as if it began an interaction (no reply threads to it).'),
  row('plaintext.id-format', THREADING('Message IDs'), null, '…consisting entirely of unreserved URI characters…',
    'id consists of unreserved URI characters (its length is not judged: the UUIDs the spec recommends are longer than the 32 bytes it names).'),
  row('plaintext.id-unique', HEADERS, 'MUST', 'The `id` attribute value MUST be unique to the sender, across all messages they send.',
    'Two different messages from one sender never carry one id (a copy of one message sent again may).'),
  row('plaintext.id-replayed', IDSYNC_PROFILE('idsync profile'), null, 'A message whose id was already received from the same sender is dropped as a replay and not acted on again (the sender, when authenticated, gets `e.p.msg.duplicate`).',
    'idsync drops a message id it already received from the same sender (replay protection); the spec obliges no receiver to, so this judges no one.'),
  row('plaintext.type', HEADERS, 'MUST', 'The `type` attribute value MUST be a valid message type URI, that when resolved gives human readable information about the message category.',
    'type is present: a message type URI <doc-uri><protocol>/<major.minor>/<name>.'),
  row('plaintext.typ', MESSAGES('DIDComm Plaintext Messages'), 'MUST', 'The media type for a generic DIDComm plaintext message MUST be reported as `application/didcomm-plain+json` by conformant implementations.',
    'typ, when present, is application/didcomm-plain+json.'),
  row('plaintext.from', HEADERS, 'MUST', 'The `from` attribute MUST be a string that is a valid [DID](https://w3c.github.io/did-core/) or [DID URL](https://w3c.github.io/did-core/#did-url-syntax) (without the [fragment component](https://w3c.github.io/did-core/#fragment)) which identifies the sender of the message.',
    'from, when present, is a DID or DID URL without a fragment.'),
  row('plaintext.to', HEADERS, 'MUST', "MUST be an array of strings where each element is a valid DID or DID URL (without the fragment component) that identifies a member of the message's intended audience.",
    'to, when present, is an array of DIDs or DID URLs without fragments.'),
  row('plaintext.thid', THREADING('Threads'), 'MUST', 'The value of `thid` MUST conform to the same constraints as the value of `id`.',
    'thid, when present, is a non-empty string.'),
  row('plaintext.pthid', THREADING('Parent Threads'), 'MUST', "The value of the child's `pthid` header MUST obey the same constraints as `thid` and `id` values.",
    'pthid, when present, is a non-empty string.'),
  row('plaintext.created_time', HEADERS, null, 'This attribute is used for the sender to express when they created the message, expressed in UTC Epoch Seconds (seconds since 1970-01-01T00:00:00Z) as an integer.',
    'created_time, when present, is an integer of UTC epoch seconds (OPTIONAL but recommended: no MUST governs it).'),
  row('plaintext.expires_time', HEADERS, null, EXPIRES,
    'expires_time, when present, is an integer of UTC epoch seconds.'),
  row('plaintext.expires-after-created', HEADERS, null, EXPIRES,
    'expires_time is not before created_time.'),
  row('plaintext.expires_time-honoured', HEADERS, null, 'By default, the meaning of "expired" is that the sender will abort the protocol if it doesn\'t get a response by this time.',
    'A receiver does not act on a message after its expires_time: its sender has given up on it.'),
  row('plaintext.body', HEADERS, 'MUST', 'If present, it MUST be a JSON object that conforms to [RFC 7159](https://datatracker.ietf.org/doc/html/rfc7159).',
    'body, when present, is a JSON object; a message without one is accepted (body is OPTIONAL in v2.1).'),
  row('plaintext.body-present', HEADERS, null, "It's recommended to always have this attribute when sending a message but allowed the attribute to not exist when receiving.",
    'A sender includes body (an empty object if need be): DIDComm v2.0 agents require it.'),
  row('plaintext.attachments', ATTACHMENTS, 'MUST', 'This MUST contain at least one of the following subfields, and enough of them to allow access to the data:',
    'attachments is an array of objects whose data holds json, base64 (base64url), jws or links.'),
  row('plaintext.attachment-links-hash', ATTACHMENTS, 'MUST', 'Used as an integrity check for the attachment, and MUST be used if the data is referenced via the `links` data attribute.',
    'An attachment whose data is referenced by links carries data.hash.'),
  row('plaintext.attachment-id', ATTACHMENTS, 'MUST', 'Because the `id` of an attachment is used to compose URIs, this value should be brief and MUST consist entirely of unreserved URI characters',
    'An attachment id, when present, is a string of unreserved URI characters (RFC 3986 §2.3: A-Z a-z 0-9 - . _ ~).'),
  row('plaintext.attachment-fields', ATTACHMENTS, null, 'Each attachment is described with an instance of a JSON object that has the following structure.',
    'Attachment fields (id, media_type, format, …) sit on the attachment, not in data; v2 writes id, not @id; media_type and format are strings, byte_count and lastmod_time integers (OPTIONAL, of no form a MUST states).'),
  row('plaintext.ack', PROBLEMS('ACKs'), null, '…the value of the header is an array that contains the `id` of one or more messages being acknowledged.',
    'ack, when present, is an array of message ids.'),
  row('plaintext.return_route', PICKUP('Requirements'), null, 'In order to have this synchronous behavior the `recipient` should specify `return_route` header to `all`.',
    "return_route, when present, is 'none', 'all' or 'thread' (the values of the return route extension)."),
  // REQUIRED on the field line makes from_prior present in a rotating message; the form of a JWT
  // (RFC 7519: always a JWS or JWE Compact Serialization) is what the JWT practices sentence demands.
  row('plaintext.from_prior', SIGNING('DID Rotation'), 'MUST', 'Standard [JWT](https://datatracker.ietf.org/doc/html/rfc7519) Practices for creating and signing the JWT MUST be followed.',
    'from_prior, when present, is a compact JWT.'),
];

export const OOB_ROWS = [
  row('oob.url', ENCODING, null, 'The standard message format is a URL with a Base64URLEncoded plaintext JWM json object as a query parameter.',
    'An invitation URL is an absolute URL.', refuses),
  row('oob.url-scheme', ENCODING, null, 'https://<domain>/<path>?_oob=<encodedplaintextjwm>',
    'Invitation URLs use https (localhost aside).'),
  row('oob.param', ENCODING, null, 'The `_oob` query parameter is required and is reserved to contain the DIDComm message string.',
    'The URL carries the invitation in _oob, or its id in _oobid for a short URL (not both).', refuses),
  row('oob.param-both', OUT_OF_BAND('Short URL Message Retrieval'), null, 'Note the replacement of the query parameter `_oob` with `_oobid` when using shortened URL.',
    'A URL carries _oob or _oobid, not both (with both, _oob is read).'),
  row('oob.oobid', OUT_OF_BAND('Short URL Message Retrieval'), null, 'On receipt of this form of message, the agent must do an HTTP GET to retrieve the associated encoded message.',
    '_oobid is a non-empty id; the invitation is fetched from the URL with HTTP GET.', refuses),
  row('oob.base64url', ENCODING, null, BASE64URL_JWM,
    '_oob is base64url without padding (standard base64 and padding are read too, and noted).'),
  row('oob.decode', ENCODING, null, BASE64URL_JWM,
    '_oob decodes as base64url.', refuses),
  row('oob.json', ENCODING, null, 'The standard message format is a URL with a Base64URLEncoded plaintext JWM json object as a query parameter.',
    '_oob decodes to JSON.', refuses),
  row('oob.compact-json', ENCODING, null, 'During encoding, whitespace from the json string should be eliminated to keep the resulting out-of-band message string as short as possible.',
    'Whitespace is removed from the JSON before encoding, to keep URLs short.'),
  row('oob.invitation-object', INVITATION, null, 'Each message passed this way must be contained within an `out-of-band` message, as described below.',
    'The decoded invitation is a JSON object.', refuses),
  row('oob.type', INVITATION, null, 'Each message passed this way must be contained within an `out-of-band` message, as described below.',
    'The invitation type is https://didcomm.org/out-of-band/2.x/invitation.', refuses),
  row('out-of-band.from', INVITATION, 'REQUIRED', '`from` - REQUIRED for OOB usage. The DID representing the sender to be used by recipients for future interactions.',
    'An invitation carries from: the DID to answer.'),
  row('out-of-band.goal_code', INVITATION, 'OPTIONAL', '`goal_code` - OPTIONAL. A self-attested code the receiver may want to display to the user or use in automatically deciding what to do with the out-of-band message.',
    'body.goal_code, when present, is a string.', refuses),
  row('out-of-band.goal', INVITATION, 'OPTIONAL', '`goal` - OPTIONAL. A self-attested string that the receiver may want to display to the user about the context-specific goal of the out-of-band message.',
    'body.goal, when present, is a string.', refuses),
  row('out-of-band.accept', INVITATION, 'OPTIONAL', '`accept` - OPTIONAL. An array of media types in the order of preference for sending a message to the endpoint.',
    'body.accept, when present, is an array of media type strings.', refuses),
  row('out-of-band.thid', OUT_OF_BAND('Message Correlation'), null, 'The `id` of the message passed in a URL or a QR code is used as the `pthid` on a response sent by the recipient of this message.',
    'An invitation starts a new context: it has no thid of its own (its id becomes the pthid of the answer).'),
];
