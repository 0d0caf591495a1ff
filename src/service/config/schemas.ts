// Configuration inputs (fixtures file and admin API): data profiles, projects with issuance
// settings, tenants with their API clients.
import { Type, type Static } from '@fastify/type-provider-typebox';
import { literalUnion } from '../http/literal-union.js';
import { DATAPOINT_KEYS } from '../../credentials/datapoints.js';
import { ID_PATTERN } from '../http/schemas.js';

/**
 * The longest credential validity taken: a hundred years. An expirationDate is now + validityMs,
 * and past the largest Date (8.64e15 ms) no credential could be issued at all.
 */
export const MAX_VALIDITY_MS = 100 * 365 * 24 * 3600 * 1000;

export const IssuanceSettingsSchema = Type.Object(
  {
    format: Type.Optional(Type.Union([Type.Literal('ldp'), Type.Literal('jwt')], { description: 'ldp: Data Integrity proof; jwt: VC-JWT' })),
    validityMs: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: MAX_VALIDITY_MS }), Type.Null()], { description: 'Credential validity in ms (at most a hundred years); null: no expirationDate' })),
    statusList: Type.Optional(Type.Boolean({ description: 'Give credentials a credentialStatus (revocation/suspension)' })),
  },
  { additionalProperties: false, title: 'IssuanceSettings' },
);

export const ProfileFieldSchema = Type.Object(
  {
    key: literalUnion(DATAPOINT_KEYS),
    required: Type.Boolean(),
    format: Type.Optional(literalUnion(['date', 'country', 'email', 'phone', 'string'])),
    pattern: Type.Optional(Type.String({ maxLength: 512 })),
    label: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);

export const DataProfileInput = Type.Object(
  {
    id: Type.String({ pattern: ID_PATTERN }),
    name: Type.String({ minLength: 1, maxLength: 256 }),
    version: Type.Optional(Type.String({ maxLength: 64 })),
    description: Type.Optional(Type.String({ maxLength: 2048 })),
    fields: Type.Array(ProfileFieldSchema, { minItems: 1, maxItems: 64 }),
  },
  { additionalProperties: false, title: 'DataProfileInput' },
);

export const ProjectInput = Type.Object(
  {
    id: Type.String({ pattern: ID_PATTERN }),
    name: Type.Optional(Type.String({ maxLength: 256 })),
    dataProfileId: Type.Optional(Type.String({ pattern: ID_PATTERN, description: 'Default: idsync-kyc-default (the whole vocabulary)' })),
    issuance: Type.Optional(IssuanceSettingsSchema),
  },
  { additionalProperties: false, title: 'ProjectInput' },
);

export const ClientInput = Type.Object(
  {
    clientId: Type.String({ pattern: ID_PATTERN }),
    clientSecret: Type.String({ minLength: 8, maxLength: 1024 }),
    scopes: Type.Optional(Type.Array(Type.String(), { description: 'Default: every scope' })),
  },
  { additionalProperties: false },
);

export const TenantInput = Type.Object(
  {
    id: Type.String({ pattern: ID_PATTERN }),
    name: Type.Optional(Type.String({ maxLength: 256 })),
    defaultProjectId: Type.Optional(Type.String({ pattern: ID_PATTERN })),
    clients: Type.Optional(Type.Array(ClientInput)),
    dataProfiles: Type.Optional(Type.Array(DataProfileInput)),
    projects: Type.Optional(Type.Array(ProjectInput)),
  },
  { additionalProperties: false },
);

export const ServiceFixtures = Type.Object(
  { $schema: Type.Optional(Type.String()), tenants: Type.Array(TenantInput) },
  { additionalProperties: false, title: 'ServiceFixtures' },
);

export type DataProfileInputT = Static<typeof DataProfileInput>;
export type ProjectInputT = Static<typeof ProjectInput>;
export type ServiceFixturesT = Static<typeof ServiceFixtures>;
