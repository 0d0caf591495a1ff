// User, datapoints and sync-context schemas (service-interface.md "User", "Datapoints",
// "User sync context"). Datapoint keys come from the one vocabulary (credentials/datapoints.ts).
import { Type, type TOptional, type TSchema } from '@fastify/type-provider-typebox';
import { ADDRESS_FIELDS, DATAPOINT_KEYS, KEY_ALIASES, MAX_DATAPOINT_LENGTH, type AddressKey, type DatapointKey } from '../../../credentials/datapoints.js';

const ADDRESS_KEYS = new Set<string>(Object.keys(ADDRESS_FIELDS));

/** Optional properties `keys`, each of schema `value()`; typed by key so that Static<> names every datapoint. */
function objectOf<K extends string, T extends TSchema>(keys: readonly K[], value: () => T, options: Record<string, unknown> = {}) {
  const properties = Object.fromEntries(keys.map((k) => [k, Type.Optional(value())])) as { [P in K]: TOptional<T> };
  return Type.Object(properties, options);
}

const Value = () => Type.String({ maxLength: MAX_DATAPOINT_LENGTH });
const ValueOrNull = () => Type.Union([Type.String({ maxLength: MAX_DATAPOINT_LENGTH }), Type.Null()]);

/** Flat datapoints as the service returns them (all values are strings). */
export const FlatDatapoints = objectOf(DATAPOINT_KEYS, Value, { additionalProperties: false, title: 'FlatDatapoints' });

/** Nested form: residentialAddress* keys grouped in `residentialAddress`. */
const NESTED_KEYS = DATAPOINT_KEYS.filter((k): k is Exclude<DatapointKey, AddressKey> => !ADDRESS_KEYS.has(k));
export const NestedDatapoints = Type.Object(
  {
    ...objectOf(NESTED_KEYS, Value).properties,
    residentialAddress: Type.Optional(objectOf(Object.values(ADDRESS_FIELDS), Value, { additionalProperties: false })),
  },
  { additionalProperties: false, title: 'NestedDatapoints' },
);

/**
 * Datapoints as a client may send them: a string sets, null removes (RFC 7396). The input-only
 * alias `residentialAddressountry` (the spec's sample spelling) and a nested
 * `residentialAddress` object are accepted too.
 */
const patchKeys = {
  ...Object.fromEntries([...DATAPOINT_KEYS, ...Object.keys(KEY_ALIASES)].map((k) => [k, Type.Optional(ValueOrNull())])),
  residentialAddress: Type.Optional(objectOf(Object.values(ADDRESS_FIELDS), ValueOrNull, { additionalProperties: false })),
};
export const DatapointsPatch = Type.Object(patchKeys, { additionalProperties: false, title: 'DatapointsPatch' });

export const DatapointsUpdateBody = Type.Object(
  {
    datapoints: Type.Optional(DatapointsPatch),
    autoSync: Type.Optional(Type.Boolean({ description: 'false: store without starting a sync' })),
    noAutoSync: Type.Optional(Type.Boolean({ description: 'true: store without starting a sync' })),
    // The bare flat form (datapoint keys at top level) is accepted too; not mixed with `datapoints`.
    ...patchKeys,
  },
  { additionalProperties: false, title: 'DatapointsUpdate' },
);

export const AutoSyncQuery = Type.Object({
  autoSync: Type.Optional(Type.Boolean({ default: true, description: 'false: store without starting a sync' })),
  // A string so that a bare `?noAutoSync` (empty value) is accepted.
  noAutoSync: Type.Optional(Type.Union([Type.Literal(''), Type.Literal('true'), Type.Literal('false'), Type.Literal('1'), Type.Literal('0')], { description: 'present (bare or true): store without starting a sync' })),
});

export const UserSettings = Type.Object({ isSyncOn: Type.Boolean() });

const userFields = {
  userStatus: Type.String({ description: 'Registered' }),
  userId: Type.String(),
  userDID: Type.Optional(Type.String({ description: 'Long-form did:ion of the linked wallet; absent until linked' })),
  shortUserDID: Type.Optional(Type.String({ description: 'Short-form did:ion; absent until linked' })),
  userLogins: Type.Integer({ description: 'Successful DID authentications of the user' }),
  userLastLoginAt: Type.Optional(Type.String({ format: 'date-time', description: 'Absent before the first login' })),
};

export const User = Type.Object(
  {
    ...userFields,
    settings: UserSettings,
    datapointsFlat: FlatDatapoints,
    syncContext: Type.Object({ datapointsSynced: NestedDatapoints, datapointsLatest: NestedDatapoints }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'User' },
);

/** The create-or-update response repeats the user fields inside datapointsFlat (spec "User"). */
export const UserWithEcho = Type.Object(
  {
    ...User.properties,
    datapointsFlat: Type.Object({ ...FlatDatapoints.properties, ...userFields }, { additionalProperties: false }),
  },
  { title: 'UserUpsertResponse' },
);

export const UserUpsertBody = Type.Object(
  { settings: Type.Optional(Type.Object({ isSyncOn: Type.Optional(Type.Boolean()) }, { additionalProperties: false })) },
  // Read-only fields a client copies from GET (userId, datapointsFlat, …) are ignored.
  { additionalProperties: true, title: 'UserUpsert' },
);

export const UserList = Type.Object({
  counts: Type.Object({ total: Type.Integer() }),
  users: Type.Array(User),
  paging: Type.Object({
    limit: Type.Integer(),
    offset: Type.Optional(Type.Integer()),
    nextCursor: Type.Optional(Type.String({ description: 'Pass as `cursor` for the next page; absent on the last page' })),
  }),
});

export const UserListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  cursor: Type.Optional(Type.String({ maxLength: 1024, description: 'Opaque; from paging.nextCursor' })),
});

export const DatapointsWithDid = Type.Object(
  { ...FlatDatapoints.properties, userDID: Type.Optional(Type.String()) },
  { additionalProperties: false, title: 'UserDatapoints' },
);

export const SyncContext = Type.Object(
  {
    isSyncOn: Type.Boolean(),
    isSessionEstablished: Type.Boolean(),
    isLinked: Type.Boolean(),
    datapoints: Type.Array(Type.String(), { description: 'PascalCase sync scope names from the project\'s data profile' }),
    issuerDIDs: Type.Array(Type.String(), { description: 'DIDs that issue the user\'s credentials (vendor-facts)' }),
    syncContext: Type.Object({ datapointsSynced: NestedDatapoints, datapointsLatest: NestedDatapoints }),
  },
  { title: 'UserSyncContext' },
);

export const InviteResponse = Type.Object(
  {
    isSessionEstablished: Type.Boolean(),
    isLinked: Type.Boolean(),
    invitationUrl: Type.Optional(Type.String({ description: 'Absent when the session is already established' })),
    invitationExpiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the invitation stops being accepted (its expires_time; default 30 days). Not in the spec.' }),
    ),
    isAlreadyConnected: Type.Boolean({ description: 'Older response shape (vendor-facts); equals isSessionEstablished' }),
  },
  { title: 'UserInvitation' },
);

export const SyncStarted = Type.Object({
  operationId: Type.String({ description: 'dataSyncOperationId of the DATA_SYNC_* events' }),
  status: Type.String({ description: 'queued' }),
});
