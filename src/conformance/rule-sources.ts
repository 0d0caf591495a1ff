// Where catalogue rows quote from: a spec, its version, a section (a heading of the text) and a
// public link to that section. `file` names the copy of the text kept under fixtures/spec/ (or,
// for idsync's own protocols and profile, the doc shipped with idsync), against which
// test/conformance/catalogue.test.ts checks every quote and section heading.

export interface RuleSource {
  /** The document: "DIDComm Messaging", "JSON Web Encryption (JWE)", ... */
  spec: string;
  /** Its version or edition: "v2.1", "3.0", "RFC 7516", "draft-madden-jose-ecdh-1pu-04". */
  version: string;
  /** The section the quote comes from, as its heading reads. */
  section: string;
  /** A public link to the section; idsync's own docs are named by their path in the package (docs/…). */
  url: string;
  /** The kept copy of the text, relative to the project root, when there is one. */
  file?: string;
}

/** The anchor a heading gets on the rendered spec sites (lower case, punctuation dropped, spaces to '-'). */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_()[\]{}'".,:;!?/\\&<>|+=@#$%^~]/g, '')
    .replace(/\s+/g, '-');
}

const V21 = 'https://identity.foundation/didcomm-messaging/spec/v2.1/';

/** DIDComm Messaging v2.1: `chapter` is the file of fixtures/spec/didcomm-v2.1 the section is in. */
const didcomm = (chapter: string) => (section: string): RuleSource => ({
  spec: 'DIDComm Messaging',
  version: 'v2.1',
  section,
  url: `${V21}#${headingAnchor(section)}`,
  file: `fixtures/spec/didcomm-v2.1/${chapter}.md`,
});

export const MESSAGES = didcomm('message_structure');
export const ENCRYPTION = didcomm('encryption');
export const SIGNING = didcomm('signature');
export const THREADING = didcomm('threading');
export const PROBLEMS = didcomm('problems');
export const OUT_OF_BAND = didcomm('out_of_band');
export const TRUST_PING = didcomm('trustping');
export const DISCOVER_FEATURES = didcomm('feature_discovery');
export const TRANSPORTS = didcomm('transports');
export const ROUTING = didcomm('routing');

/** An RFC of the RFC Editor (not kept under fixtures/spec: its quotes are checked for form only). */
export const rfc = (n: number, title: string, section: string, anchor: string): RuleSource => ({
  spec: title,
  version: `RFC ${n}`,
  section,
  url: `https://www.rfc-editor.org/rfc/rfc${n}#${anchor}`,
});
export const JWS = (section: string, anchor: string) => rfc(7515, 'JSON Web Signature (JWS)', section, anchor);
export const JWE = (section: string, anchor: string) => rfc(7516, 'JSON Web Encryption (JWE)', section, anchor);
export const JWA = (section: string, anchor: string) => rfc(7518, 'JSON Web Algorithms (JWA)', section, anchor);
export const WEBSOCKET = (section: string, anchor: string) => rfc(6455, 'The WebSocket Protocol', section, anchor);

export const ECDH_1PU = (section: string, anchor: string): RuleSource => ({
  spec: 'Public Key Authenticated Encryption for JOSE: ECDH-1PU',
  version: 'draft-madden-jose-ecdh-1pu-04',
  section,
  url: `https://datatracker.ietf.org/doc/html/draft-madden-jose-ecdh-1pu-04#${anchor}`,
  file: 'fixtures/spec/ecdh-1pu/draft-madden-jose-ecdh-1pu-04-section-2.txt',
});

/** A protocol page of didcomm.org (fixtures/spec/didcomm-protocols/<name>-<version>.md). */
const didcommOrg = (name: string, title: string, version: string) => (section: string): RuleSource => ({
  spec: title,
  version,
  section,
  url: `https://didcomm.org/${name}/${version}/#${headingAnchor(section)}`,
  file: `fixtures/spec/didcomm-protocols/${name}-${version}.md`,
});
export const PICKUP = didcommOrg('messagepickup', 'Message Pickup', '3.0');
export const MEDIATION_2 = didcommOrg('coordinate-mediation', 'Coordinate Mediation', '2.0');
export const MEDIATION_3 = didcommOrg('coordinate-mediation', 'Coordinate Mediation', '3.0');

const WACI_REPO = 'https://github.com/decentralized-identity/waci-didcomm/blob/main/';
export const WACI = (section: string): RuleSource => ({
  spec: 'WACI-DIDComm Interop Profile',
  version: 'v1.0',
  section,
  url: `https://identity.foundation/waci-didcomm/v1.0/#${headingAnchor(section)}`,
  file: 'fixtures/spec/waci-didcomm/waci-didcomm-v1.0.md',
});
export const ISSUE_CREDENTIAL = (section: string): RuleSource => ({
  spec: 'Issue Credential Protocol',
  version: '3.0',
  section,
  url: `${WACI_REPO}issue_credential/README.md#${headingAnchor(section)}`,
  file: 'fixtures/spec/waci-didcomm/issue-credential-3.0.md',
});
export const PRESENT_PROOF = (section: string): RuleSource => ({
  spec: 'Present Proof Protocol',
  version: '3.0',
  section,
  url: `${WACI_REPO}present_proof/present-proof-v3.md#${headingAnchor(section)}`,
  file: 'fixtures/spec/waci-didcomm/present-proof-3.0.md',
});

/** idsync's own documents: the Data Pipe protocol and the profile idsync adds to DIDComm (docs/protocols.md). */
const idsyncDoc = (spec: string, version: string) => (section: string): RuleSource => ({
  spec,
  version,
  section,
  url: `docs/protocols.md#${headingAnchor(section)}`,
  file: 'docs/protocols.md',
});
export const DATA_PIPE = idsyncDoc('Data Pipe (idsync)', '1.0');
export const IDSYNC_PROFILE = idsyncDoc('idsync profile of DIDComm Messaging', 'v2.1');
