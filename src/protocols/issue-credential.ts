// Issue Credential 3.0 (https://didcomm.org/issue-credential/3.0) in the WACI-DIDComm v1.0
// `streamlined-vc` shape (docs/protocols.md "Issue-credential 3.0"): offer with a DIF Credential
// Manifest and a credential preview, request with a signed credential application, issue with a
// credential fulfillment, ack. The credential-manifest objects live in credential-manifest-messages.ts.
import type { MessageRule } from '../conformance/types.js';
import { uuid } from '../clock.js';
import { createMessage, type MessageDeps } from '../didcomm/message.js';
import type { ProtocolModule } from '../router/router.js';
import type { PlainMessage } from '../didcomm/types.js';
import type { FlatDatapoints } from '../credentials/datapoints.js';
import type { VerifiablePresentation } from '../credentials/presentation.js';
import { ackRule, buildAck, parseAck, type AckInput, type ParsedAck } from './ack.js';
import {
  APPLICATION_FORMAT,
  FULFILLMENT_FORMAT,
  MANIFEST_FORMAT,
  STATUS_LIST_FORMAT,
  applicationProblems,
  buildFulfillment,
  datapointsFromPreview,
  fulfillmentProblems,
  manifestProblems,
  previewProblems,
  readFulfillment,
  type CredentialPreview,
  type FulfilledCredential,
  type FulfillmentInput,
} from './credential-manifest-messages.js';
import { assertRules, assertType, attachmentJson, attachmentRule, attachmentsOf, draftHeaders, isOptString, isString, jsonAttachment, parsedProtocol, rule, type HandlersFor, type MessageHeaders } from './protocol-kit.js';
import { startDoneMachine, type StateMachine } from './thread-state.js';

export * from './credential-manifest-messages.js';

export const ISSUE_CREDENTIAL_PIURI = 'https://didcomm.org/issue-credential/3.0';
export const ISSUE_CREDENTIAL = {
  propose: `${ISSUE_CREDENTIAL_PIURI}/propose-credential`,
  offer: `${ISSUE_CREDENTIAL_PIURI}/offer-credential`,
  request: `${ISSUE_CREDENTIAL_PIURI}/request-credential`,
  issue: `${ISSUE_CREDENTIAL_PIURI}/issue-credential`,
  ack: `${ISSUE_CREDENTIAL_PIURI}/ack`,
} as const;
/** WACI-DIDComm v1.0 §Issuance: the goal code of the streamlined issuance flow. */
export const STREAMLINED_VC = 'streamlined-vc';

// ---- builders ------------------------------------------------------------------------------

const withReplacement = (body: Record<string, unknown>, replacementId?: string) => (replacementId === undefined ? body : { ...body, replacement_id: replacementId });

/** `propose-credential` (issuance workflows): empty body, thid = own id, pthid = the invitation. */
export function buildProposeCredential(input: Omit<MessageHeaders, 'thid'> & { pthid: string }, deps: MessageDeps): PlainMessage {
  const id = input.id ?? (deps.ids ?? uuid)();
  return createMessage({ type: ISSUE_CREDENTIAL.propose, ...draftHeaders({ ...input, id, thid: id }), body: {} }, deps);
}

export interface OfferInput extends MessageHeaders {
  /** The DIF Credential Manifest (credentials/manifest.ts credentialManifestFor). */
  manifest: Record<string, unknown>;
  preview: CredentialPreview;
  challenge: string;
  domain: string;
  /** The id of the credential this one replaces (a re-sync). */
  replacementId?: string;
  goalCode?: string;
}

/** `offer-credential`; without thid it starts the thread (its id is the thread id). */
export function buildOffer(input: OfferInput, deps: MessageDeps): PlainMessage {
  const manifest = { options: { challenge: input.challenge, domain: input.domain }, credential_manifest: input.manifest };
  return createMessage(
    {
      type: ISSUE_CREDENTIAL.offer,
      ...draftHeaders(input),
      body: withReplacement({ goal_code: input.goalCode ?? STREAMLINED_VC, credential_preview: input.preview }, input.replacementId),
      attachments: [jsonAttachment((deps.ids ?? uuid)(), MANIFEST_FORMAT, manifest)],
    },
    deps,
  );
}

/** `request-credential` carrying the signed credential application (buildCredentialApplication + signPresentation). */
export function buildRequestCredential(input: MessageHeaders & { thid: string; application: VerifiablePresentation }, deps: MessageDeps): PlainMessage {
  return createMessage(
    { type: ISSUE_CREDENTIAL.request, ...draftHeaders(input), body: {}, attachments: [jsonAttachment((deps.ids ?? uuid)(), APPLICATION_FORMAT, input.application)] },
    deps,
  );
}

export interface IssueInput extends MessageHeaders, FulfillmentInput {
  thid: string;
  replacementId?: string;
  /** The current status list credential (object or VC-JWT) when the credential has a status. */
  statusListCredential?: unknown;
}

export function buildIssueCredential(input: IssueInput, deps: MessageDeps): PlainMessage {
  const ids = deps.ids ?? uuid;
  const attachments = [jsonAttachment(ids(), FULFILLMENT_FORMAT, buildFulfillment(input))];
  if (input.statusListCredential !== undefined) attachments.push(jsonAttachment(ids(), STATUS_LIST_FORMAT, input.statusListCredential));
  return createMessage({ type: ISSUE_CREDENTIAL.issue, ...draftHeaders(input), body: withReplacement({}, input.replacementId), attachments }, deps);
}

/** The holder's ack after every check passed: `{"status": "OK"}`. */
export function buildIssueAck(input: AckInput, deps: MessageDeps): PlainMessage {
  return buildAck(ISSUE_CREDENTIAL_PIURI, input, deps);
}

// ---- body rules (conformance) --------------------------------------------------------------

const I = 'issue-credential';
const thidRule = (name: string): MessageRule => (m) => [rule(`${I}.${name}.thid`, isString(m.thid), `${name} must carry thid = the issuance thread`)];

const proposeRules: MessageRule[] = [(m) => [rule(`${I}.propose.goal_code`, isOptString(m.body.goal_code), 'body.goal_code must be a string')]];
const offerRules: MessageRule[] = [
  (m) => [
    rule(`${I}.offer.goal_code`, isOptString(m.body.goal_code), 'body.goal_code must be a string'),
    rule(`${I}.offer.replacement_id`, isOptString(m.body.replacement_id), 'body.replacement_id must be a string'),
    // The WACI vector offers without a preview; we always send one (the holder checks claims against it).
    m.body.credential_preview === undefined
      ? rule(`${I}.offer.credential_preview-missing`, false, 'the offer has no credential_preview')
      : rule(`${I}.offer.credential_preview`, previewProblems(m.body.credential_preview).length === 0, previewProblems(m.body.credential_preview).join('; ')),
  ],
  attachmentRule(`${I}.offer.manifest`, MANIFEST_FORMAT, manifestProblems),
];
const requestRules: MessageRule[] = [thidRule('request'), attachmentRule(`${I}.request.application`, APPLICATION_FORMAT, applicationProblems)];
const issueRules: MessageRule[] = [
  thidRule('issue'),
  (m) => [
    rule(`${I}.issue.replacement_id`, isOptString(m.body.replacement_id), 'body.replacement_id must be a string'),
    rule(`${I}.issue.status-list`, attachmentsOf(m, STATUS_LIST_FORMAT).length <= 1, `at most one ${STATUS_LIST_FORMAT} attachment`),
  ],
  attachmentRule(`${I}.issue.fulfillment`, FULFILLMENT_FORMAT, fulfillmentProblems),
];

export const ISSUE_CREDENTIAL_RULES: Record<string, MessageRule[]> = {
  'propose-credential': proposeRules,
  'offer-credential': offerRules,
  'request-credential': requestRules,
  'issue-credential': issueRules,
  ack: [ackRule(I)],
};

// ---- parsers -------------------------------------------------------------------------------

interface Threaded {
  id: string;
  thid: string;
  pthid?: string;
}
const threaded = (m: PlainMessage): Threaded => (m.pthid ? { id: m.id, thid: m.thid ?? m.id, pthid: m.pthid } : { id: m.id, thid: m.thid ?? m.id });

export function parseProposeCredential(message: PlainMessage): Threaded & { goalCode?: string } {
  assertType(message, ISSUE_CREDENTIAL.propose);
  assertRules(message, proposeRules);
  return { ...threaded(message), ...(typeof message.body.goal_code === 'string' ? { goalCode: message.body.goal_code } : {}) };
}

export interface ParsedOffer extends Threaded {
  goalCode?: string;
  replacementId?: string;
  /** Absent only in offers of other issuers (the WACI vector); ours always carry it. */
  preview?: CredentialPreview;
  /** The preview as flat datapoints (throws 'message_invalid_body' when a name is not a datapoint). */
  datapoints?: FlatDatapoints;
  manifest: Record<string, unknown>;
  challenge: string;
  domain: string;
}

export function parseOffer(message: PlainMessage): ParsedOffer {
  assertType(message, ISSUE_CREDENTIAL.offer);
  assertRules(message, offerRules);
  const json = attachmentJson(attachmentsOf(message, MANIFEST_FORMAT)[0]) as { options: { challenge: string; domain: string }; credential_manifest: Record<string, unknown> };
  const b = message.body;
  const offer: ParsedOffer = { ...threaded(message), manifest: json.credential_manifest, challenge: json.options.challenge, domain: json.options.domain };
  if (typeof b.goal_code === 'string') offer.goalCode = b.goal_code;
  if (typeof b.replacement_id === 'string') offer.replacementId = b.replacement_id;
  if (b.credential_preview !== undefined) {
    offer.preview = b.credential_preview as CredentialPreview;
    offer.datapoints = datapointsFromPreview(offer.preview);
  }
  return offer;
}

export interface ParsedRequestCredential extends Threaded {
  application: VerifiablePresentation;
  applicationId: string;
  manifestId: string;
}

export function parseRequestCredential(message: PlainMessage): ParsedRequestCredential {
  assertType(message, ISSUE_CREDENTIAL.request);
  assertRules(message, requestRules);
  const vp = attachmentJson(attachmentsOf(message, APPLICATION_FORMAT)[0]) as VerifiablePresentation & { credential_application: { id: string; manifest_id: string } };
  return { ...threaded(message), application: vp, applicationId: vp.credential_application.id, manifestId: vp.credential_application.manifest_id };
}

export interface ParsedIssueCredential extends Threaded {
  replacementId?: string;
  fulfillmentId: string;
  manifestId: string;
  credentials: FulfilledCredential[];
  statusListCredential?: unknown;
}

export function parseIssueCredential(message: PlainMessage): ParsedIssueCredential {
  assertType(message, ISSUE_CREDENTIAL.issue);
  assertRules(message, issueRules);
  const fulfillment = readFulfillment(attachmentJson(attachmentsOf(message, FULFILLMENT_FORMAT)[0]));
  const parsed: ParsedIssueCredential = { ...threaded(message), ...fulfillment };
  if (typeof message.body.replacement_id === 'string') parsed.replacementId = message.body.replacement_id;
  const status = attachmentsOf(message, STATUS_LIST_FORMAT)[0];
  if (status) parsed.statusListCredential = attachmentJson(status);
  return parsed;
}

export function parseIssueAck(message: PlainMessage): ParsedAck {
  assertType(message, ISSUE_CREDENTIAL.ack);
  return parseAck(message, I);
}

// ---- states (issue-credential 3.0 §States) ---------------------------------------------------

export type HolderState = 'start' | 'proposal-sent' | 'offer-received' | 'request-sent' | 'credential-received' | 'done' | 'abandoned';
export type IssuerState = 'start' | 'proposal-received' | 'offer-sent' | 'request-received' | 'credential-issued' | 'done' | 'abandoned';

export const ISSUE_CREDENTIAL_HOLDER: StateMachine<HolderState> = startDoneMachine(ISSUE_CREDENTIAL_PIURI, 'holder', {
  start: { 'send:propose-credential': 'proposal-sent', 'receive:offer-credential': 'offer-received' },
  'proposal-sent': { 'receive:offer-credential': 'offer-received' },
  'offer-received': { 'send:request-credential': 'request-sent' },
  'request-sent': { 'receive:issue-credential': 'credential-received' },
  'credential-received': { 'send:ack': 'done' },
});

export const ISSUE_CREDENTIAL_ISSUER: StateMachine<IssuerState> = startDoneMachine(ISSUE_CREDENTIAL_PIURI, 'issuer', {
  start: { 'receive:propose-credential': 'proposal-received', 'send:offer-credential': 'offer-sent' },
  'proposal-received': { 'send:offer-credential': 'offer-sent' },
  'offer-sent': { 'receive:request-credential': 'request-received' },
  'request-received': { 'send:issue-credential': 'credential-issued' },
  'credential-issued': { 'receive:ack': 'done' },
});

// ---- protocol module -----------------------------------------------------------------------

const PARSERS = {
  'propose-credential': parseProposeCredential,
  'offer-credential': parseOffer,
  'request-credential': parseRequestCredential,
  'issue-credential': parseIssueCredential,
  ack: parseIssueAck,
} as const;

/** Per message name, the agent's handler given the parsed message. */
export type IssueCredentialHandlers = HandlersFor<typeof PARSERS>;

/** The module for router.use(): PIURI, roles, goal code, body rules, and handlers given parsed messages. */
export function issueCredentialProtocol(handlers: IssueCredentialHandlers, roles: string[] = ['issuer', 'holder']): ProtocolModule {
  return parsedProtocol({ piuri: ISSUE_CREDENTIAL_PIURI, roles, goalCodes: [STREAMLINED_VC], rules: ISSUE_CREDENTIAL_RULES }, PARSERS, handlers);
}
