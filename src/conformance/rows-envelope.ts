// Catalogue rows of the envelope layer: the JWE and JWS structure, sender authentication and
// from_prior. Each quotes DIDComm Messaging v2.1, or the JOSE RFC or ECDH-1PU draft it builds on.
import { row } from './rule-row.js';
import { ECDH_1PU, ENCRYPTION, IDSYNC_PROFILE, JWA, JWE, JWS, MESSAGES, SIGNING } from './rule-sources.js';

const refuses = { refuses: true } as const;

const JWE_GENERAL = JWE('§7.2.1 General JWE JSON Serialization Syntax', 'section-7.2.1');
const JWS_GENERAL = JWS('§7.2.1 General JWS JSON Serialization Syntax', 'section-7.2.1');
const CURVES = ENCRYPTION('Curves and Content Encryption Algorithms');
const KEY_WRAP_1PU = ENCRYPTION('ECDH-1PU key wrapping and common protected headers');
const KEY_WRAP_ES = ENCRYPTION('ECDH-ES key wrapping and common protected headers');
const CONSISTENCY = MESSAGES('Message Layer Addressing Consistency');
const ROTATION = SIGNING('DID Rotation');

const ONLY_THESE_COMBINATIONS = 'However, in the set of envelopes that targets a single hop, envelope combinations other than the ones above MUST NOT be used.';
const PROTECTED_SIGNED = `${ONLY_THESE_COMBINATIONS} In particular, it makes no sense to use anoncrypt(authcrypt(sign(plaintext))); use anoncrypt(sign(plaintext)) instead.`;
const SUBSET_OF_JWAS = 'For the purposes of interoperability, DIDComm messaging does not support all JWAs; rather, it takes a subset of the supported algorithms that are applicable for the following cases around secure messaging.';
const APV = "`apv`: this represents the recipients' `kid` list. The list must be alphanumerically sorted, `kid` values will then be concatenated with a `.` and the final result MUST be base64 URL (no padding) encoding of the SHA256 hash of concatenated list.";
const COMMON_ES_HEADERS = 'JWE messages MUST use common `epk`, `apv` and `alg` headers for all recipient keys. They MUST be set in the `protected` JWE section.';
const EPK_CURVE = '`epk`: generated once for all recipient keys. It MUST be of the same type and curve as all recipient keys since kdf with the sender key must be on the same curve.';
const FROM_PRIOR = '**from_prior**: REQUIRED. A JWT, with `sub`: new DID and `iss`: prior DID, with a signature from a key authorized by prior DID.';
const JWT_PRACTICES = 'Standard [JWT](https://datatracker.ietf.org/doc/html/rfc7519) Practices for creating and signing the JWT MUST be followed.';
// RFC 7515 §4.1.11, which RFC 7516 §4.1.13 applies to a JWE. Its MUST to refuse an extension not
// understood binds the recipient; what binds the producer is the form of the list and where it sits.
const CRIT = JWS('§4.1.11 "crit" (Critical) Header Parameter', 'section-4.1.11');
const CRIT_NOT_UNDERSTOOD = 'If any of the listed extension Header Parameters are not understood and supported by the recipient, then the JWS is invalid.';
const CRIT_LIST = 'Producers MUST NOT include Header Parameter names defined by this specification or [JWA] for use with JWS, duplicate names, or names that do not occur as Header Parameter names within the JOSE Header in the "crit" list. Producers MUST NOT use the empty list "[]" as the "crit" value.';
const CRIT_PROTECTED = 'When used, this Header Parameter MUST be integrity protected; therefore, it MUST occur only within the JWS Protected Header.';
const TWO_ENCRYPTIONS = 'DIDComm supports two types of message encryption: Authenticated Sender Encryption ("authcrypt") and Anonymous Sender Encryption ("anoncrypt").';
const ROTATION_KID = 'The validity of the DID Rotation is verified by checking the JWT signature against the key indicated in the `kid` header parameter. The indicated key MUST be authorized in the DID Document of the prior DID (`iss`).';

export const ENVELOPE_ROWS = [
  // ---- the serialization and its media types ----------------------------------------------------
  row('envelope.json', SIGNING('Construction'), 'MUST', 'When transmitted in a normal JWM fashion, the JSON Serialization MUST be used.',
    'A message travels as JSON: the JSON serialization of a JWE or a JWS, or a plaintext message.'),
  row('envelope.shape', MESSAGES('IANA Media Types'), 'MUST NOT', ONLY_THESE_COMBINATIONS,
    'A packed message is one of the envelopes of the media type table (a JWE, a JWS or a plaintext message), recognisable by its members.'),
  row('envelope.nesting', MESSAGES('IANA Media Types'), 'MUST NOT', ONLY_THESE_COMBINATIONS,
    'Layers nest in one order only, anoncrypt around authcrypt around signed around plaintext, none repeated.'),
  // §IANA Media Types forbids this combination by name, so a sender that packs it breaks that MUST
  // NOT; a recipient may still read it (the unpack does, and records the failed rule). The spec
  // contradicts itself: its own Appendix C.3 vector packs exactly this combination ("The second
  // anoncrypt is used to protect the sender ID"), as didcomm-node's protect_sender does.
  row('envelope.nesting-protected-signed', MESSAGES('IANA Media Types'), 'MUST NOT', PROTECTED_SIGNED,
    'A sender does not pack anoncrypt(authcrypt(sign(plaintext))) for one hop (anoncrypt(sign(plaintext)) instead); such a message is still opened and read. Appendix C.3 of the same spec contradicts this: its vector packs exactly that combination ("The second anoncrypt is used to protect the sender ID").'),
  row('envelope.typ', MESSAGES('DIDComm Encrypted Messages'), 'MUST', 'The media type of a non-nested DIDComm encrypted message MUST be `application/didcomm-encrypted+json`.',
    'The typ of a JWE, when set, is application/didcomm-encrypted+json (the application/ prefix may be left out).'),
  row('envelope.jwe-typ-set', MESSAGES('DIDComm Encrypted Messages'), 'SHOULD', 'The media type of the envelope SHOULD be set in the `typ` property of the JWE.',
    'A JWE names its media type in the typ of its protected header.'),
  row('envelope.jws-typ', MESSAGES('DIDComm Signed Messages'), 'MUST', 'The media type of a DIDComm signed message MUST be `application/didcomm-signed+json`.',
    'The typ of a JWS, when set, is application/didcomm-signed+json (the application/ prefix may be left out).'),
  row('envelope.jws-typ-set', MESSAGES('DIDComm Signed Messages'), 'SHOULD', 'The media type of the envelope SHOULD be set in the `typ` property of the JWS.',
    'Each signature of a JWS names the media type in the typ of its protected header.'),

  // ---- JWE structure (RFC 7516) ----------------------------------------------------------------
  row('envelope.jwe-protected', JWE_GENERAL, 'MUST', 'The "protected" member MUST be present and contain the value BASE64URL(UTF8(JWE Protected Header)) when the JWE Protected Header value is non-empty; otherwise, it MUST be absent.',
    'The JWE protected header is base64url of a JSON object.'),
  row('envelope.jwe-protected-headers', KEY_WRAP_1PU, 'MUST', 'JWE messages MUST use common `epk`, `apu`, `apv` and `alg` headers for all recipient keys. They MUST be set in the `protected` JWE section.',
    'alg, epk, apv and (authcrypt) apu sit in the protected header, never in the unprotected header or a recipient\'s header.'),
  row('envelope.jwe-header', JWE_GENERAL, 'MUST', 'The "unprotected" member MUST be present and contain the value JWE Shared Unprotected Header when the JWE Shared Unprotected Header value is non-empty; otherwise, it MUST be absent. This value is represented as an unencoded JSON object, rather than as a string.',
    'The unprotected header and each recipient\'s header, when present, are JSON objects.'),
  row('envelope.jwe-header-disjoint', JWE_GENERAL, 'MUST', 'The Header Parameter names in the three locations MUST be disjoint.',
    'No header parameter appears in more than one of the protected header, the shared unprotected header and a recipient\'s header.'),
  row('envelope.jwe-iv', JWE_GENERAL, 'MUST', 'The "iv" member MUST be present and contain the value BASE64URL(JWE Initialization Vector) when the JWE Initialization Vector value is non-empty; otherwise, it MUST be absent.',
    'A JWE carries its initialization vector as base64url, of the length its enc needs.'),
  row('envelope.jwe-tag', JWE_GENERAL, 'MUST', 'The "tag" member MUST be present and contain the value BASE64URL(JWE Authentication Tag) when the JWE Authentication Tag value is non-empty; otherwise, it MUST be absent.',
    'A JWE carries its authentication tag as base64url, and the tag verifies: a changed ciphertext, iv, tag or header fails it.'),
  row('envelope.jwe-ciphertext', JWE_GENERAL, 'MUST', 'The "ciphertext" member MUST be present and contain the value BASE64URL(JWE Ciphertext).',
    'A JWE carries its ciphertext as base64url.'),
  row('envelope.jwe-aad', JWE_GENERAL, 'MUST', 'The "aad" member MUST be present and contain the value BASE64URL(JWE AAD)) when the JWE AAD value is non-empty; otherwise, it MUST be absent.',
    'A JWE aad member, when present, is base64url.'),
  row('envelope.jwe-recipients', JWE_GENERAL, 'MUST', 'The "recipients" member value MUST be an array of JSON objects.',
    'A JWE has a non-empty recipients array (or, flattened, one recipient at its top level).'),
  row('envelope.jwe-flattened', ENCRYPTION('Message Encryption'), null, 'The encrypted form of a JWM is a JWE in General JSON Format.',
    'Senders use the General JWE JSON serialization; a flattened JWE (RFC 7516 §7.2.2) is still opened.'),
  row('envelope.jwe-encrypted-key', JWE_GENERAL, 'MUST', 'The "encrypted_key" member MUST be present and contain the value BASE64URL(JWE Encrypted Key) when the JWE Encrypted Key value is non-empty; otherwise, it MUST be absent.',
    'Each recipient has an encrypted_key in base64url that unwraps to the content key with the agreed key.'),
  row('envelope.jwe-crit', CRIT, null, CRIT_NOT_UNDERSTOOD,
    'A well-formed crit (RFC 7516 §4.1.13 applies §4.1.11 to JWE) names extensions idsync does not implement: it cannot open the JWE (noted; the sender broke nothing).', refuses),
  row('envelope.jwe-crit-list', CRIT, 'MUST NOT', CRIT_LIST,
    'crit is a non-empty array of distinct names, each a parameter of the JOSE header and none defined by JWS, JWE or JWA.'),
  row('envelope.jwe-crit-protected', CRIT, 'MUST', CRIT_PROTECTED,
    'crit sits in the protected header, never in the unprotected header or a recipient\'s header.'),

  // ---- DIDComm's profile of JWE ----------------------------------------------------------------
  row('envelope.jwe-alg', ENCRYPTION('Message Encryption'), 'MUST', 'Each encrypted message MUST use either authcrypt or anoncrypt.',
    'alg is ECDH-1PU+A256KW (authcrypt) or ECDH-ES+A256KW (anoncrypt).'),
  row('envelope.jwe-enc', ENCRYPTION('Message Encryption'), null, SUBSET_OF_JWAS,
    'enc is one of DIDComm\'s content encryption algorithms: A256CBC-HS512, A256GCM or XC20P.'),
  row('envelope.authcrypt-enc', ECDH_1PU('2.1. Special Considerations for Key Agreement with Key Wrapping mode', 'section-2.1'), 'MUST',
    'Key Agreement with Key Wrapping mode MUST only be used with content encryption algorithms that are compactly committing AEADs as described in [ccAEAD]. … Other content encryption algorithms MUST be rejected.',
    'Authcrypt (ECDH-1PU+A256KW) encrypts its content with A256CBC-HS512, of the AES_CBC_HMAC_SHA2 family; A256GCM or XC20P with ECDH-1PU is refused.'),
  row('envelope.authcrypt-kdf', ENCRYPTION('Sender Authenticated Encryption'), 'MUST', 'For an encrypted DIDComm message, the JWA of [ECDH-1PU](https://tools.ietf.org/html/draft-madden-jose-ecdh-1pu-04) MUST be used within the structure of a JWE.',
    'Authcrypt derives its key-encryption key as ECDH-1PU draft 04 does, the JWE tag part of the KDF input (§2.3 cctag); a key derived by the draft-03 KDF, without the tag, does not open it.'),
  row('envelope.jwe-zip', ENCRYPTION('Message Encryption'), null, SUBSET_OF_JWAS,
    'Compressed content (zip) is outside DIDComm\'s algorithms and is refused.'),
  row('envelope.jwe-curve', CURVES, null, 'NIST defined P-521 elliptic curve. Optional.',
    'Key agreement on P-521 (optional) or P-384 (required only since v2.1) is read and noted: agents that agree keys only on X25519 and P-256 cannot read it.'),
  row('envelope.jwe-epk', KEY_WRAP_ES, 'MUST', COMMON_ES_HEADERS,
    'The protected header carries one ephemeral key, epk, as a JWK object.'),
  row('envelope.jwe-epk-public', JWA('§4.6.1.1 "epk" (Ephemeral Public Key) Header Parameter', 'section-4.6.1.1'), 'MUST',
    'This key is represented as a JSON Web Key [JWK] public key value. It MUST contain only public key parameters and SHOULD contain only the minimum JWK parameters necessary to represent the key; other JWK parameters included can be checked for consistency and honored, or they can be ignored.',
    'The epk is a public key: it carries no private parameter (d).'),
  // The key wrapping table lists the curves; no sentence forbids another, and the MUST of
  // §Curves binds what implementations support, not what a sender may choose.
  row('envelope.jwe-epk-crv', ENCRYPTION('Message Encryption'), null, SUBSET_OF_JWAS,
    'The epk is on a curve of DIDComm\'s key wrapping table (X25519, P-256, P-384, P-521); another is not read.', refuses),
  row('envelope.jwe-epk-curve', KEY_WRAP_1PU, 'MUST', EPK_CURVE,
    'The epk, the recipient keys and (authcrypt) the sender key are of one type and curve.'),
  row('envelope.jwe-recipient-curve', KEY_WRAP_ES, 'MUST', EPK_CURVE,
    'All recipient keys of one JWE are on the curve of its epk.'),
  row('envelope.jwe-recipient-kid', ENCRYPTION('Key IDs'), 'MUST', 'The corresponding `kid` header for this recipient MUST have a DID URL pointing to a corresponding verification method in the DID document.',
    'Each recipient names its key in kid, a DID URL (a keyAgreement key of the recipient\'s DID).'),
  row('envelope.jwe-recipients-one-did', ENCRYPTION('Message Encryption'), 'MUST', 'A message being sent to multiple DIDs MUST be encrypted for each DID independently.',
    'All recipients of one JWE are keys of one DID.'),
  row('envelope.jwe-payload', MESSAGES('IANA Media Types'), 'MUST NOT', ONLY_THESE_COMBINATIONS,
    'The decrypted payload is a JSON object: a plaintext or signed message or, inside anoncrypt, an authcrypted JWE.'),
  row('envelope.jwe-apu', KEY_WRAP_ES, null, 'Note: `apu`will not be present when using ECDH-ES.',
    'An anoncrypted JWE carries no apu; one that does is read (its apu enters the KDF) and noted.'),
  row('envelope.jwe-apv', KEY_WRAP_ES, 'MUST', APV,
    'apv is base64url(SHA-256 of the recipient kids, sorted and joined with "."), in authcrypt and anoncrypt alike.'),
  row('envelope.anoncrypt-no-apv', KEY_WRAP_ES, 'MUST', COMMON_ES_HEADERS,
    'An anoncrypted JWE sets apv: one without it is still opened (RFC 7518 makes apv optional for ECDH-ES), but breaks this MUST.'),
  row('envelope.anoncrypt-apv-mismatch', KEY_WRAP_ES, 'MUST', APV,
    'An anoncrypt apv that is not the digest of the recipient kids is still opened (both sides feed the same bytes to the KDF), but breaks this MUST.'),
  row('envelope.anoncrypt-no-skid', MESSAGES('IANA Media Types'), null, 'Guarantees confidentiality and integrity without revealing the identity of the sender.',
    'An anoncrypted JWE does not name its sender (no skid).'),
  row('envelope.authcrypt-apu', KEY_WRAP_1PU, 'MUST', '`apu`: similar to `skid`, this is the producer (sender) identifier, it MUST contain the `skid` value base64 RawURL (no padding) encoded.',
    'An authcrypted JWE sets apu = base64url(the sender key id), the same key as skid when both are set.'),
  row('envelope.authcrypt-skid', CONSISTENCY, 'MUST', 'The `from` attribute in the plaintext message MUST match the `skid` attribute in the encryption layer.',
    'The sender key id of an authcrypted JWE (skid, else apu) is a DID URL, so that it can match the from of the plaintext.'),
  row('envelope.authcrypt-skid-from-apu', KEY_WRAP_1PU, 'MUST', 'since the 1PU draft does not require this header, authcrypt implementations MUST be able to resolve the sender kid from the `apu` header if `skid` is not set.',
    'Authcrypt without skid is read: the sender key id comes from apu (noted, not a fault).'),
  row('envelope.jwe-sender-key', MESSAGES('Message Headers'), 'MUST', 'When a message is encrypted, the sender key MUST be authorized for encryption by this DID.',
    'The authcrypt sender key is a keyAgreement key of the sender\'s DID, on the curve of the epk.'),
  row('envelope.tampered-refused', JWE('§5.2 Message Decryption', 'section-5.2'), 'MUST', 'If there was no recipient for which all of the decryption steps succeeded, then the JWE MUST be considered invalid.',
    'A message whose ciphertext was changed, or that is encrypted for someone else, is refused and never acted on.'),
  // What a recipient processes, judged on its answer to a well-formed message in each of these
  // envelopes (conformance run). No sentence obliges a recipient to process authcrypt or anoncrypt:
  // the MUST of §Curves binds the curves an implementation supports (X25519 among them, which an
  // agent taking either one supports), the algorithm table's "Required" is not an RFC 2119 keyword,
  // and the MUSTs of §Sender Authenticated Encryption bind how a JWE is made. A refusal is advice.
  row('envelope.authcrypt-supported', ENCRYPTION('Message Encryption'), null, TWO_ENCRYPTIONS,
    'A recipient processes authcrypt (ECDH-1PU+A256KW) on X25519 with A256CBC-HS512: it does not refuse such a message.'),
  row('envelope.anoncrypt-supported', ENCRYPTION('Message Encryption'), null, TWO_ENCRYPTIONS,
    'A recipient processes anoncrypt (ECDH-ES+A256KW) on X25519 with A256CBC-HS512 around an authenticated message: it does not refuse such a message.'),

  // ---- JWS (RFC 7515, DIDComm §Message Signing) ------------------------------------------------
  row('envelope.jws-payload', JWS_GENERAL, 'MUST', 'The "payload" member MUST be present and contain the value BASE64URL(JWS Payload).',
    'A JWS payload is base64url of the plaintext message.'),
  row('envelope.jws-signatures', JWS_GENERAL, 'MUST', 'The "signatures" member value MUST be an array of JSON objects.',
    'A General JWS has a non-empty signatures array; a flattened one, one signature at its top level.'),
  row('envelope.jws-protected', JWS_GENERAL, 'MUST', 'The "protected" member MUST be present and contain the value BASE64URL(UTF8(JWS Protected Header)) when the JWS Protected Header value is non-empty; otherwise, it MUST be absent.',
    'Each signature\'s protected header is base64url of a JSON object.'),
  row('envelope.jws-header', JWS_GENERAL, 'MUST', 'The "header" member MUST be present and contain the value JWS Unprotected Header when the JWS Unprotected Header value is non-empty; otherwise, it MUST be absent. This value is represented as an unencoded JSON object, rather than as a string.',
    'A signature\'s unprotected header, when present, is a JSON object.'),
  row('envelope.jws-header-disjoint', JWS_GENERAL, 'MUST', 'The Header Parameter names in the two locations MUST be disjoint.',
    'No header parameter appears in both the protected and the unprotected header of a signature.'),
  row('envelope.jws-kid-protected', JWS_GENERAL, null, 'The Header Parameter values used when creating or validating individual signature or MAC values are the union of the two sets of Header Parameter values that may be present: (1) the JWS Protected Header represented in the "protected" member of the signature/MAC\'s array element, and (2) the JWS Unprotected Header in the "header" member of the signature/MAC\'s array element.',
    'A kid only in the protected header is read and noted: DIDComm\'s own signed vectors carry it in the unprotected header, and agents differ in where they look.'),
  row('envelope.jws-crit', CRIT, null, CRIT_NOT_UNDERSTOOD,
    'A well-formed crit names extensions idsync does not implement: it cannot verify the JWS (noted; the sender broke nothing).', refuses),
  row('envelope.jws-crit-list', CRIT, 'MUST NOT', CRIT_LIST,
    'crit is a non-empty array of distinct names, each a parameter of the JOSE header and none defined by JWS or JWA.'),
  row('envelope.jws-crit-protected', CRIT, 'MUST', CRIT_PROTECTED,
    'crit sits in the protected header of a signature, never in its unprotected header.'),
  row('envelope.signed-supported', SIGNING('Construction'), 'MUST', 'Either the General or Flattened form of a JWS is valid. Message recipients MUST be able to process both forms.',
    'A recipient processes a signed message (an EdDSA JWS) in the General and in the Flattened JSON serialization: it refuses neither.'),
  row('envelope.jws-flattened', SIGNING('Construction'), 'MUST', 'Either the General or Flattened form of a JWS is valid. Message recipients MUST be able to process both forms.',
    'A flattened JWS is valid and read like a General one (noted, not a fault).'),
  row('envelope.jws-several-signatures', SIGNING('Construction'), null, 'Flatted form is sufficient, as only the message sender\'s signature is valid, and a single signature may be fully represented in flattened form.',
    'Of several signatures only the sender\'s counts: it is the one verified (noted).'),
  row('envelope.jws-alg', SIGNING('Algorithms'), null, 'When a sender would like for a message to feature a non-repudiable digital signature, the JWAs defined below can be used within the structure of a JWS.',
    'The JWS alg is one of DIDComm\'s: EdDSA, ES256 or ES256K.'),
  row('envelope.jws-alg-key', JWS('§5.2 Message Signature or MAC Validation', 'section-5.2'), 'MUST', '…in the manner defined for the algorithm being used, which MUST be accurately represented by the value of the "alg" (algorithm) Header Parameter, which MUST be present.',
    'The JWS alg fits the curve of the signing key.'),
  row('envelope.jws-kid', SIGNING('Construction'), 'MUST', 'The `kid` MUST be a DID URI that refers to a key specified as an authorization key.',
    'Each signature names its key in kid, a DID URL of an authentication key of the signer.'),
  row('envelope.jws-signature', JWS('§5.2 Message Signature or MAC Validation', 'section-5.2'), 'MUST', 'If none of the validations in step 9 succeeded, then the JWS MUST be considered invalid.',
    'The signature verifies with the signer\'s key.'),

  // ---- sender authentication -------------------------------------------------------------------
  row('envelope.from-matches-sender', CONSISTENCY, 'MUST', 'The `from` attribute in the plaintext message MUST match the `skid` attribute in the encryption layer.',
    'The from of an authcrypted message is the DID of the authcrypt sender key.'),
  row('envelope.from-matches-signer', CONSISTENCY, 'MUST', 'The `from` attribute in the plaintext message MUST match the signer\'s `kid` in a signed message.',
    'The from of a signed message is the DID of the signing key.'),
  row('envelope.recipient-in-to', CONSISTENCY, 'MUST', 'The `to` attribute in the plaintext message MUST contain the `kid` attribute of an encrypted message.',
    'An encrypted message is encrypted only to keys of DIDs listed in its to.'),
  row('envelope.sender-authenticated', ENCRYPTION('Message Encryption'), null, 'Only authcrypt provides direct assurances of who the sender is.',
    'A message that names a from is authcrypted or signed, so that the from is proven.'),
  row('envelope.reply-in-kind', IDSYNC_PROFILE('idsync profile'), null, 'A reply to an authenticated message (authcrypted or signed) is authenticated too, and a reply to an encrypted message is encrypted too: never a weaker envelope than the request\'s.',
    'A reply to an authenticated (or encrypted) message is itself authenticated (or encrypted).'),
  row('envelope.secret', IDSYNC_PROFILE('idsync profile'), null, 'A private key given to idsync is on the curve that its DID document gives the key.',
    'A private key handed to idsync is on the curve its DID document says (a fault of the configuration, not of a message).'),

  // ---- from_prior (DID rotation) -----------------------------------------------------------------
  row('from_prior.jwt', ROTATION, 'MUST', JWT_PRACTICES,
    'from_prior is a compact JWS (a JWT) with a JSON header and claims.'),
  row('from_prior.typ', SIGNING('JWT Details'), null, 'The JWT used in the `from_prior` header is constructed as follows, with appropriate values changed.',
    'The from_prior header typ is JWT.'),
  // v2.1 names no algorithms for from_prior: its JWT Details show EdDSA as an example, and the JWS
  // algorithms of §Message Signing are for signed messages. idsync verifies the algorithms it has.
  row('from_prior.alg', SIGNING('JWT Details'), null, 'The JWT used in the `from_prior` header is constructed as follows, with appropriate values changed.',
    'The from_prior alg is one idsync verifies (EdDSA, as the spec\'s example, ES256 or ES256K); another is not verified (noted; no sentence limits the sender to these).', refuses),
  row('from_prior.alg-key', JWS('§5.2 Message Signature or MAC Validation', 'section-5.2'), 'MUST', '…in the manner defined for the algorithm being used, which MUST be accurately represented by the value of the "alg" (algorithm) Header Parameter, which MUST be present.',
    'The from_prior alg fits the curve of the key its kid names.'),
  row('from_prior.kid', ROTATION, 'MUST', ROTATION_KID,
    'The from_prior kid is a key of the prior DID (iss).'),
  row('from_prior.iss', ROTATION, 'REQUIRED', FROM_PRIOR,
    'from_prior iss is the prior DID, without a fragment.'),
  row('from_prior.sub', ROTATION, 'MUST', 'The message MUST be encrypted, MUST use the new DID, and MUST include one additional attribute as a message header:',
    'from_prior sub is the new DID: it differs from iss and is the message\'s from.'),
  row('from_prior.signature', ROTATION, 'MUST', ROTATION_KID,
    'The from_prior signature verifies with the prior DID\'s key.'),
];
