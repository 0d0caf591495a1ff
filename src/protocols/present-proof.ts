// Present Proof 3.0 (https://didcomm.org/present-proof/3.0, WACI-DIDComm v1.0 profile) as idsync
// uses it: DID authentication before each sync (docs/protocols.md "Sync" step 1). The verifier
// asks with a DIF Presentation Exchange definition without input descriptors plus a challenge and
// domain; the prover answers with a presentation signed eddsa-jcs-2022 by an authentication key.
import type { MessageRule } from '../conformance/types.js';
import { buildAck, ackRule, parseAck, type AckInput, type ParsedAck } from './ack.js';
import { createMessage, type MessageDeps } from '../didcomm/message.js';
import type { ProtocolModule } from '../router/router.js';
import type { PlainMessage } from '../didcomm/types.js';
import type { DocumentResolver } from '../did/types.js';
import { verifyPresentation, type PresentationVerification, type VerifiablePresentation } from '../credentials/presentation.js';
import { uuid } from '../clock.js';
import {
  assertRules,
  assertType,
  attachmentJson,
  attachmentRule,
  attachmentsOf,
  draftHeaders,
  isPlainObject,
  isString,
  jsonAttachment,
  parsedProtocol,
  protocolError,
  rule,
  type HandlersFor,
  type MessageHeaders,
} from './protocol-kit.js';
import { startDoneMachine, type StateMachine } from './thread-state.js';

export const PRESENT_PROOF_PIURI = 'https://didcomm.org/present-proof/3.0';
export const PRESENT_PROOF = {
  propose: `${PRESENT_PROOF_PIURI}/propose-presentation`,
  request: `${PRESENT_PROOF_PIURI}/request-presentation`,
  presentation: `${PRESENT_PROOF_PIURI}/presentation`,
  ack: `${PRESENT_PROOF_PIURI}/ack`,
} as const;
/** Attachment formats (present-proof 3.0 §Presentation Request / §Presentations Attachment Registry). */
export const PE_DEFINITION_FORMAT = 'dif/presentation-exchange/definitions@v1.0';
export const PE_SUBMISSION_FORMAT = 'dif/presentation-exchange/submission@v1.0';
export const SYNC_AUTH_GOAL_CODE = 'idsync.sync.authenticate';
const CREDENTIALS_V1 = 'https://www.w3.org/2018/credentials/v1';

// ---- builders ------------------------------------------------------------------------------

/** WACI `propose-presentation`: empty body, starts a thread (thid = own id) answering an invitation (pthid). */
export function buildProposePresentation(input: Omit<MessageHeaders, 'thid'> & { pthid: string }, deps: MessageDeps): PlainMessage {
  const id = input.id ?? (deps.ids ?? uuid)();
  return createMessage({ type: PRESENT_PROOF.propose, ...draftHeaders({ ...input, id, thid: id }), body: {} }, deps);
}

export interface RequestPresentationInput extends MessageHeaders {
  challenge: string;
  domain: string;
  /** presentation_definition.id (default: a fresh uuid). */
  definitionId?: string;
  /** DIF PE input descriptors; empty for DID authentication. */
  inputDescriptors?: unknown[];
  goalCode?: string;
  willConfirm?: boolean;
}

export function buildRequestPresentation(input: RequestPresentationInput, deps: MessageDeps): PlainMessage {
  const ids = deps.ids ?? uuid;
  const definition = { id: input.definitionId ?? ids(), input_descriptors: input.inputDescriptors ?? [] };
  return createMessage(
    {
      type: PRESENT_PROOF.request,
      ...draftHeaders(input),
      body: { goal_code: input.goalCode ?? SYNC_AUTH_GOAL_CODE, will_confirm: input.willConfirm ?? true },
      attachments: [jsonAttachment(ids(), PE_DEFINITION_FORMAT, { options: { challenge: input.challenge, domain: input.domain }, presentation_definition: definition })],
    },
    deps,
  );
}

/**
 * The unsigned DID-auth presentation (docs/protocols.md "Sync"): a VP with a presentation
 * submission for `definitionId` and no credentials. Sign it with signPresentation.
 */
export function buildDidAuthPresentation(input: { holder: string; definitionId: string; submissionId?: string }): VerifiablePresentation {
  return {
    '@context': [CREDENTIALS_V1],
    type: ['VerifiablePresentation'],
    holder: input.holder,
    presentation_submission: { id: input.submissionId ?? uuid(), definition_id: input.definitionId, descriptor_map: [] },
  };
}

export function buildPresentation(input: MessageHeaders & { thid: string; presentation: VerifiablePresentation; attachmentId?: string }, deps: MessageDeps): PlainMessage {
  return createMessage(
    {
      type: PRESENT_PROOF.presentation,
      ...draftHeaders(input),
      body: {},
      attachments: [jsonAttachment(input.attachmentId ?? (deps.ids ?? uuid)(), PE_SUBMISSION_FORMAT, input.presentation)],
    },
    deps,
  );
}

/** The verifier's ack (`will_confirm`); body `{"status": "OK"}`. */
export function buildPresentationAck(input: AckInput, deps: MessageDeps): PlainMessage {
  return buildAck(PRESENT_PROOF_PIURI, input, deps);
}

// ---- body rules (conformance) --------------------------------------------------------------

const P = 'present-proof';
const requestRules: MessageRule[] = [
  (m) => [
    rule(`${P}.request.will_confirm`, m.body.will_confirm === undefined || typeof m.body.will_confirm === 'boolean', 'body.will_confirm must be a boolean'),
    rule(`${P}.request.goal_code`, m.body.goal_code === undefined || typeof m.body.goal_code === 'string', 'body.goal_code must be a string'),
  ],
  attachmentRule(`${P}.request.definition`, PE_DEFINITION_FORMAT, (json) => {
    if (!isPlainObject(json)) return ['the definitions attachment must be a JSON object'];
    const problems: string[] = [];
    const options = json.options;
    // WACI-DIDComm v1.0 Step 3: "The options object MUST contain a challenge property" (a string).
    if (!isPlainObject(options) || !isString(options.challenge)) problems.push('options.challenge is required');
    const def = json.presentation_definition;
    if (!isPlainObject(def) || !isString(def.id)) problems.push('presentation_definition.id is required');
    else if (!Array.isArray(def.input_descriptors)) problems.push('presentation_definition.input_descriptors must be an array');
    return problems;
  }),
  // The domain is a MAY in WACI; idsync's prover signs for both, so it refuses a request without one.
  (m) => {
    const json = attachmentJson(attachmentsOf(m, PE_DEFINITION_FORMAT)[0]);
    if (!isPlainObject(json) || !isPlainObject(json.options) || !isString(json.options.challenge)) return [];
    return [rule(`${P}.request.domain`, isString(json.options.domain), 'options.domain is missing: idsync signs presentations for a challenge and a domain')];
  },
];

const presentationRules: MessageRule[] = [
  (m) => [rule(`${P}.presentation.thid`, isString(m.thid), 'a presentation must carry thid = the request thread')],
  attachmentRule(`${P}.presentation.submission`, PE_SUBMISSION_FORMAT, (json) => {
    if (!isPlainObject(json)) return ['the submission attachment must be a Verifiable Presentation object'];
    const problems: string[] = [];
    if (!Array.isArray(json.type) || !json.type.includes('VerifiablePresentation')) problems.push("type must include 'VerifiablePresentation'");
    if (!isString(json.holder)) problems.push('holder is required');
    const sub = json.presentation_submission;
    if (!isPlainObject(sub) || !isString(sub.definition_id) || !Array.isArray(sub.descriptor_map)) {
      problems.push('presentation_submission {id, definition_id, descriptor_map} is required');
    }
    if (!isPlainObject(json.proof)) problems.push('proof is required');
    return problems;
  }),
];

/** Body rules by message name, for the conformance registry (ProtocolModule.rules). */
export const PRESENT_PROOF_RULES: Record<string, MessageRule[]> = {
  'propose-presentation': [],
  'request-presentation': requestRules,
  presentation: presentationRules,
  ack: [ackRule(P)],
};

// ---- parsers -------------------------------------------------------------------------------

export interface ParsedRequestPresentation {
  id: string;
  thid: string;
  pthid?: string;
  challenge: string;
  domain: string;
  definitionId: string;
  inputDescriptors: unknown[];
  willConfirm: boolean;
  goalCode?: string;
}

export function parseRequestPresentation(message: PlainMessage): ParsedRequestPresentation {
  assertType(message, PRESENT_PROOF.request);
  assertRules(message, requestRules);
  const json = attachmentJson(attachmentsOf(message, PE_DEFINITION_FORMAT)[0]) as Record<string, Record<string, unknown>>;
  return {
    id: message.id,
    thid: message.thid ?? message.id,
    pthid: message.pthid,
    challenge: json.options.challenge as string,
    domain: json.options.domain as string,
    definitionId: json.presentation_definition.id as string,
    inputDescriptors: json.presentation_definition.input_descriptors as unknown[],
    willConfirm: message.body.will_confirm === true,
    goalCode: message.body.goal_code as string | undefined,
  };
}

export interface ParsedPresentation {
  id: string;
  thid: string;
  presentation: VerifiablePresentation;
  definitionId: string;
}

export function parsePresentation(message: PlainMessage): ParsedPresentation {
  assertType(message, PRESENT_PROOF.presentation);
  assertRules(message, presentationRules);
  const vp = attachmentJson(attachmentsOf(message, PE_SUBMISSION_FORMAT)[0]) as VerifiablePresentation;
  return { id: message.id, thid: message.thid as string, presentation: vp, definitionId: (vp.presentation_submission as { definition_id: string }).definition_id };
}

export function parsePresentationAck(message: PlainMessage): ParsedAck {
  assertType(message, PRESENT_PROOF.ack);
  return parseAck(message, P);
}

/**
 * The verifier's check of a presentation against its request: the submission answers the
 * request's definition, and the VP verifies (challenge, domain, holder, authentication key).
 * Throws 'authentication_failed' (→ e.p.trust.sync.authentication-failed) naming the failed check.
 */
export async function verifyDidAuth(
  request: Pick<ParsedRequestPresentation, 'challenge' | 'domain' | 'definitionId'>,
  presentation: ParsedPresentation,
  o: { resolve: DocumentResolver; expectedHolder?: string },
): Promise<PresentationVerification> {
  if (presentation.definitionId !== request.definitionId) {
    throw protocolError('authentication_failed', 'the presentation answers another presentation definition', { check: 'definition_id' });
  }
  const result = await verifyPresentation(presentation.presentation, { resolve: o.resolve, challenge: request.challenge, domain: request.domain, expectedHolder: o.expectedHolder });
  if (!result.verified) throw protocolError('authentication_failed', `DID authentication failed: ${result.code}`, { check: result.code });
  return result;
}

// ---- states (present-proof 3.0 §States) ------------------------------------------------------

export type VerifierState = 'start' | 'proposal-received' | 'request-sent' | 'presentation-received' | 'done' | 'abandoned';
export type ProverState = 'start' | 'proposal-sent' | 'request-received' | 'presentation-sent' | 'done' | 'abandoned';

export const PRESENT_PROOF_VERIFIER: StateMachine<VerifierState> = startDoneMachine(PRESENT_PROOF_PIURI, 'verifier', {
  start: { 'receive:propose-presentation': 'proposal-received', 'send:request-presentation': 'request-sent' },
  'proposal-received': { 'send:request-presentation': 'request-sent' },
  'request-sent': { 'receive:presentation': 'presentation-received', 'receive:propose-presentation': 'proposal-received' },
  'presentation-received': { 'send:ack': 'done' },
});

export const PRESENT_PROOF_PROVER: StateMachine<ProverState> = startDoneMachine(PRESENT_PROOF_PIURI, 'prover', {
  start: { 'send:propose-presentation': 'proposal-sent', 'receive:request-presentation': 'request-received' },
  'proposal-sent': { 'receive:request-presentation': 'request-received' },
  'request-received': { 'send:presentation': 'presentation-sent', 'send:propose-presentation': 'proposal-sent' },
  'presentation-sent': { 'receive:ack': 'done' },
});

// ---- protocol module -----------------------------------------------------------------------

const PARSERS = {
  // A WACI proposal has an empty body: the handler gets the message itself.
  'propose-presentation': (message: PlainMessage): PlainMessage => message,
  'request-presentation': parseRequestPresentation,
  presentation: parsePresentation,
  ack: parsePresentationAck,
} as const;

/** Per message name, the agent's handler given the parsed message. */
export type PresentProofHandlers = HandlersFor<typeof PARSERS>;

/** The module for router.use(): PIURI, roles, body rules, and the agent's handlers given parsed messages. */
export function presentProofProtocol(handlers: PresentProofHandlers, roles: string[] = ['verifier', 'prover']): ProtocolModule {
  return parsedProtocol({ piuri: PRESENT_PROOF_PIURI, roles, goalCodes: [SYNC_AUTH_GOAL_CODE], rules: PRESENT_PROOF_RULES }, PARSERS, handlers);
}
