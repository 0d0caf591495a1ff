// TypeBox schemas of the issuance-workflow API: they validate requests and document the API
// (OpenAPI). Deeper checks (data profile, DID and phone syntax) happen in the domain modules,
// which answer with the same `errors: [{field, code, message}]` shape.
import { Type } from '@fastify/type-provider-typebox';
import { literalUnion } from '../../http/literal-union.js';
import { ID_PATTERN } from '../../http/schemas.js';
import { FlatDatapoints } from './users.js';
import { WORKFLOW_STATUSES } from '../../issuance/states.js';
import { MAX_EXPIRES_IN } from '../../issuance/workflows.js';

const Iso = () => Type.String({ format: 'date-time' });

export const StatusChangeTermsSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('SUSPENDED'), Type.Literal('REVOKED')]),
    statusUpdateTrigger: Type.Union([Type.Literal('WORKFLOW_CREATION'), Type.Literal('WORKFLOW_COMPLETION')]),
  },
  { description: 'Suspend or revoke the issued credential when the trigger happens (vendor-facts)' },
);

export const CreateWorkflowBody = Type.Object(
  {
    projectId: Type.String({ minLength: 1, maxLength: 256 }),
    datapoints: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Flat datapoints; checked against the project\'s data profile (400 invalid_datapoints with field errors)',
    }),
    userId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    userDID: Type.Optional(Type.String({ minLength: 1, maxLength: 8192, description: 'The holder\'s DID; DIDCOMM invitations go there by default' })),
    expiresIn: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EXPIRES_IN, description: 'Milliseconds; default 2592000000 (30 days)' })),
    statusChangeTerms: Type.Optional(StatusChangeTermsSchema),
  },
  // Liberal in what we accept: unknown members are ignored.
  { additionalProperties: true, title: 'CreateIssuanceWorkflow' },
);

const Channel = Type.Union([Type.Literal('DIDCOMM'), Type.Literal('EMAIL'), Type.Literal('SMS')]);

export const SentDestinationSchema = Type.Object({
  channel: Channel,
  to: Type.String(),
  status: Type.Union([Type.Literal('sent'), Type.Literal('queued'), Type.Literal('pending'), Type.Literal('recorded'), Type.Literal('failed')]),
  outboxId: Type.String(),
  at: Iso(),
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
});

export const IssuanceWorkflowSchema = Type.Object(
  {
    id: Type.String(),
    projectId: Type.String(),
    userId: Type.Optional(Type.String()),
    userDID: Type.Optional(Type.String()),
    status: literalUnion(WORKFLOW_STATUSES, {
      description: 'CREATED → INVITATION_SENT → IN_PROGRESS → COMPLETED; FAILED (failure.code) or EXPIRED from any non-final state',
    }),
    datapoints: FlatDatapoints,
    statusChangeTerms: Type.Optional(StatusChangeTermsSchema),
    expiresIn: Type.Integer(),
    expiresAt: Iso(),
    createdAt: Iso(),
    updatedAt: Iso(),
    invitation: Type.Object({
      id: Type.String({ description: 'OOB invitation id; the wallet\'s first message carries it as pthid' }),
      url: Type.String({ description: '<public-url>/connect?_oob=<base64url OOB 2.0 invitation>' }),
    }),
    invitationUrl: Type.String({ description: 'Same as invitation.url' }),
    destinations: Type.Array(SentDestinationSchema),
    didcommThreadId: Type.Optional(Type.String()),
    credentialId: Type.Optional(Type.String()),
    failure: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
    history: Type.Array(Type.Object({ status: Type.String(), at: Iso(), reason: Type.Optional(Type.String()) })),
  },
  { title: 'IssuanceWorkflow' },
);

export const WorkflowEnvelope = Type.Object({ issuanceWorkflow: IssuanceWorkflowSchema });

export const WorkflowIdParams = Type.Object({
  issuanceWorkflowId: Type.String({ pattern: ID_PATTERN }),
});

export const WorkflowListQuery = Type.Object({
  projectId: Type.Optional(Type.String({ maxLength: 256 })),
  status: Type.Optional(literalUnion(WORKFLOW_STATUSES)),
  userId: Type.Optional(Type.String({ maxLength: 256 })),
  userDID: Type.Optional(Type.String({ maxLength: 8192 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  cursor: Type.Optional(Type.String({ maxLength: 1024, description: 'Opaque; from paging.nextCursor' })),
});

export const WorkflowList = Type.Object({
  counts: Type.Object({ total: Type.Integer() }),
  issuanceWorkflows: Type.Array(IssuanceWorkflowSchema),
  paging: Type.Object({
    limit: Type.Integer(),
    offset: Type.Optional(Type.Integer()),
    nextCursor: Type.Optional(Type.String()),
  }),
});

export const SendInvitationBody = Type.Object(
  {
    destinations: Type.Array(
      Type.Object(
        {
          channel: Type.String({ description: 'DIDCOMM, Email/EMAIL or SMS (any case)' }),
          target: Type.Optional(Type.String({ maxLength: 8192, description: 'DID, e-mail address or E.164 phone number; optional for DIDCOMM when the workflow has a userDID' })),
        },
        { additionalProperties: true },
      ),
      { minItems: 1, maxItems: 20 },
    ),
  },
  { additionalProperties: true, title: 'SendInvitation' },
);

export const SendInvitationResponse = Type.Object({
  issuanceWorkflow: IssuanceWorkflowSchema,
  deliveries: Type.Array(
    Type.Object({
      channel: Channel,
      to: Type.String(),
      status: Type.Union([Type.Literal('sent'), Type.Literal('queued'), Type.Literal('pending'), Type.Literal('recorded'), Type.Literal('failed')], {
        description: 'sent: accepted by SMTP / the SMS gateway / the DIDComm endpoint; queued: DIDComm pickup; pending: a DIDComm send not taken yet (the wallet\'s queue full), sent again with back-off; recorded: outbox only (no transport configured); failed: see error',
      }),
      outboxId: Type.String(),
      error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
    }),
  ),
});
