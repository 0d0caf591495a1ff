// Data Pipe 1.0 (ours, docs/protocols.md "Data Pipe 1.0"): the wallet accepts an out-of-band
// invitation (the user's consent) with an authcrypted `request` from its long-form did:ion; the
// service links that DID to the user and answers `established`; either side may `close`.
import type { MessageRule } from '../conformance/types.js';
import { createMessage, sameDid, type MessageDeps } from '../didcomm/message.js';
import type { ProtocolModule } from '../router/router.js';
import type { PlainMessage, UnpackMetadata } from '../didcomm/types.js';
import { isIonLongForm } from '../did/ion-form.js';
import { uuid } from '../clock.js';
import { createInvitation, type Invitation } from './out-of-band.js';
import {
  assertRules,
  assertType,
  isDateTime,
  isDid,
  isOptString,
  isPlainObject,
  isString,
  parsedProtocol,
  protocolError,
  rule,
  type HandlersFor,
  type ModuleParser,
} from './protocol-kit.js';
import type { StateMachine } from './thread-state.js';

export const DATA_PIPE_PIURI = 'https://idsync.dev/didcomm/data-pipe/1.0';
export const DATA_PIPE = {
  request: `${DATA_PIPE_PIURI}/request`,
  established: `${DATA_PIPE_PIURI}/established`,
  close: `${DATA_PIPE_PIURI}/close`,
} as const;
export const DATA_PIPE_GOAL_CODE = 'idsync.data-pipe';

// ---- builders ------------------------------------------------------------------------------

/** The out-of-band 2.0 invitation of a Data Pipe, from the service DID. */
export function createDataPipeInvitation(input: { from: string; id?: string; expiresInMs?: number }, deps: Partial<MessageDeps> = {}): Invitation {
  return createInvitation({ from: input.from, id: input.id, goal_code: DATA_PIPE_GOAL_CODE, goal: 'Connect', expiresInMs: input.expiresInMs }, deps);
}

export interface DataPipeRequestInput {
  /** The wallet's long-form did:ion. */
  from: string;
  to: string;
  invitationId: string;
  /** When the user consented (ISO 8601). */
  consentAt: string;
  label?: string;
  id?: string;
}

/** `request`: thid = its own id, pthid = the invitation id. */
export function buildDataPipeRequest(input: DataPipeRequestInput, deps: MessageDeps): PlainMessage {
  const id = input.id ?? (deps.ids ?? uuid)();
  const body: Record<string, unknown> = { consent: { granted: true, at: input.consentAt } };
  if (input.label !== undefined) body.label = input.label;
  return createMessage({ type: DATA_PIPE.request, id, from: input.from, to: [input.to], thid: id, pthid: input.invitationId, body }, deps);
}

export interface EstablishedInput {
  from: string;
  to: string;
  /** The request's id. */
  thid: string;
  /** The wallet's long form as linked, and its short form. */
  did: string;
  shortDid: string;
  establishedAt: string;
  id?: string;
}

export function buildEstablished(input: EstablishedInput, deps: MessageDeps): PlainMessage {
  return createMessage(
    {
      type: DATA_PIPE.established,
      id: input.id,
      from: input.from,
      to: [input.to],
      thid: input.thid,
      body: { did: input.did, short_did: input.shortDid, established_at: input.establishedAt },
    },
    deps,
  );
}

export function buildDataPipeClose(input: { from: string; to: string; thid: string; reason?: string; id?: string }, deps: MessageDeps): PlainMessage {
  const body: Record<string, unknown> = {};
  if (input.reason !== undefined) body.reason = input.reason;
  return createMessage({ type: DATA_PIPE.close, id: input.id, from: input.from, to: [input.to], thid: input.thid, body }, deps);
}

// ---- body rules (conformance) --------------------------------------------------------------

const D = 'data-pipe';
const requestRules: MessageRule[] = [
  (m) => {
    const consent = m.body.consent;
    return [
      rule(`${D}.request.thid`, m.thid === m.id, 'a request starts its thread: thid = its own id'),
      rule(`${D}.request.pthid`, isString(m.pthid), 'pthid must name the invitation'),
      rule(`${D}.request.from`, isDid(m.from), 'from is required: the wallet DID'),
      rule(
        `${D}.request.consent`,
        isPlainObject(consent) && consent.granted === true && isDateTime(consent.at),
        'body.consent must be {granted: true, at: <ISO 8601 date-time>}',
      ),
      rule(`${D}.request.label`, isOptString(m.body.label), 'body.label must be a string'),
    ];
  },
];
const establishedRules: MessageRule[] = [
  (m) => [
    rule(`${D}.established.thid`, isString(m.thid), 'established must carry thid = the request id'),
    rule(`${D}.established.did`, isDid(m.body.did), 'body.did must be the linked DID'),
    rule(`${D}.established.short_did`, isDid(m.body.short_did), 'body.short_did must be a DID'),
    rule(`${D}.established.established_at`, isDateTime(m.body.established_at), 'body.established_at must be an ISO 8601 date-time'),
  ],
];
const closeRules: MessageRule[] = [
  (m) => [
    rule(`${D}.close.thid`, isString(m.thid), 'close must carry thid = the request id'),
    rule(`${D}.close.reason`, isOptString(m.body.reason), 'body.reason must be a string'),
  ],
];

export const DATA_PIPE_RULES: Record<string, MessageRule[]> = { request: requestRules, established: establishedRules, close: closeRules };

// ---- parsers -------------------------------------------------------------------------------

export interface ParsedDataPipeRequest {
  id: string;
  thid: string;
  invitationId: string;
  from: string;
  consentAt: string;
  label?: string;
}

export function parseDataPipeRequest(message: PlainMessage): ParsedDataPipeRequest {
  assertType(message, DATA_PIPE.request);
  assertRules(message, requestRules);
  const consent = message.body.consent as { at: string };
  const parsed: ParsedDataPipeRequest = { id: message.id, thid: message.id, invitationId: message.pthid as string, from: message.from as string, consentAt: consent.at };
  if (typeof message.body.label === 'string') parsed.label = message.body.label;
  return parsed;
}

/**
 * docs/protocols.md Data Pipe rules: the request MUST be authcrypted, its `from` MUST be the DID
 * of the sender key ('data_pipe_not_authenticated') and a long-form did:ion, never a short one the
 * service cannot resolve ('data_pipe_short_form'). Other self-resolving methods (did:key,
 * did:peer:2) pass. Call with the router's unpack metadata (HandlerContext.metadata).
 */
export function checkDataPipeRequestSender(message: PlainMessage, metadata: Pick<UnpackMetadata, 'encrypted' | 'authenticated' | 'encryptedFromKid'>): void {
  const kid = metadata.encryptedFromKid;
  if (!metadata.encrypted || !metadata.authenticated || !kid) {
    throw protocolError('data_pipe_not_authenticated', 'a data-pipe request must be authcrypted by the wallet');
  }
  const from = String(message.from ?? '');
  if (from.startsWith('did:ion:') && !isIonLongForm(from)) {
    throw protocolError('data_pipe_short_form', 'from must be the long form of the wallet did:ion');
  }
  // DIDComm v2 §Message Headers `from`: the sender key must belong to this DID (ion forms compare equal).
  if (!sameDid(from, kid)) throw protocolError('data_pipe_not_authenticated', `from ${from} is not the DID of the sender key`);
}

export interface ParsedEstablished {
  thid: string;
  did: string;
  shortDid: string;
  establishedAt: string;
}

export function parseEstablished(message: PlainMessage): ParsedEstablished {
  assertType(message, DATA_PIPE.established);
  assertRules(message, establishedRules);
  const b = message.body as Record<string, string>;
  return { thid: message.thid as string, did: b.did, shortDid: b.short_did, establishedAt: b.established_at };
}

export function parseDataPipeClose(message: PlainMessage): { thid: string; reason?: string } {
  assertType(message, DATA_PIPE.close);
  assertRules(message, closeRules);
  return typeof message.body.reason === 'string' ? { thid: message.thid as string, reason: message.body.reason } : { thid: message.thid as string };
}

// ---- states (docs/protocols.md "States") -----------------------------------------------------

export type WalletPipeState = 'invitation-received' | 'request-sent' | 'established' | 'closed' | 'abandoned';
export type ServicePipeState = 'invitation-created' | 'established' | 'closed' | 'abandoned';

/**
 * Wallet: a request may be sent again while unanswered (retry), and a repeated `established`
 * (the service's idempotent answer) changes nothing. A refusal (problem report) abandons.
 */
export const DATA_PIPE_WALLET: StateMachine<WalletPipeState> = {
  protocol: DATA_PIPE_PIURI,
  role: 'requester',
  initial: 'invitation-received',
  final: ['closed', 'abandoned'],
  transitions: {
    'invitation-received': { 'send:request': 'request-sent' },
    'request-sent': { 'send:request': 'request-sent', 'receive:established': 'established', 'send:close': 'closed', 'receive:close': 'closed' },
    established: { 'receive:established': 'established', 'send:close': 'closed', 'receive:close': 'closed' },
  },
};

/**
 * Service (per invitation): the first request establishes; a second one from the same DID is
 * answered with `established` again (idempotent); the caller refuses one from another DID with
 * 'data_pipe_already_linked' before asking this machine.
 */
export const DATA_PIPE_SERVICE: StateMachine<ServicePipeState> = {
  protocol: DATA_PIPE_PIURI,
  role: 'responder',
  initial: 'invitation-created',
  final: ['closed', 'abandoned'],
  transitions: {
    'invitation-created': { 'receive:request': 'established' },
    established: { 'receive:request': 'established', 'send:established': 'established', 'send:close': 'closed', 'receive:close': 'closed' },
  },
};

// ---- protocol module -----------------------------------------------------------------------

/** `request` as its handler gets it: checkDataPipeRequestSender first, then the body. */
const parseAuthenticatedRequest: ModuleParser<ParsedDataPipeRequest> = (message, ctx) => {
  checkDataPipeRequestSender(message, ctx.metadata);
  return parseDataPipeRequest(message);
};

const PARSERS = { request: parseAuthenticatedRequest, established: parseEstablished, close: parseDataPipeClose } as const;

/** Per message name, the agent's handler given the parsed message. */
export type DataPipeHandlers = HandlersFor<typeof PARSERS>;

/**
 * The module for router.use(). The `request` handler runs only after checkDataPipeRequestSender
 * passed on the envelope metadata, so handlers see authenticated long-form requests only.
 */
export function dataPipeProtocol(handlers: DataPipeHandlers, roles: string[] = ['requester', 'responder']): ProtocolModule {
  return parsedProtocol({ piuri: DATA_PIPE_PIURI, roles, goalCodes: [DATA_PIPE_GOAL_CODE], rules: DATA_PIPE_RULES }, PARSERS, handlers);
}
