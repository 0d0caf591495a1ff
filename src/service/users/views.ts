// Stored user → the API's User, datapoints and sync-context shapes (service-interface.md).
import { toNested, type FlatDatapoints } from '../../credentials/datapoints.js';
import type { UserRecord } from './users.js';

type Dated = Pick<UserRecord, 'userStatus' | 'userId' | 'userDID' | 'shortUserDID' | 'userLogins' | 'userLastLoginAt'>;

function userFields(u: UserRecord): Dated {
  const out: Dated = { userStatus: u.userStatus, userId: u.userId, userLogins: u.userLogins } as Dated;
  if (u.userDID) out.userDID = u.userDID;
  if (u.shortUserDID) out.shortUserDID = u.shortUserDID;
  if (u.userLastLoginAt) out.userLastLoginAt = u.userLastLoginAt;
  return out;
}

export function syncContextOf(u: UserRecord) {
  return { datapointsSynced: toNested(u.datapointsSynced), datapointsLatest: toNested(u.datapoints) };
}

export function userView(u: UserRecord) {
  return {
    ...userFields(u),
    settings: { isSyncOn: u.settings.isSyncOn },
    datapointsFlat: { ...u.datapoints } as FlatDatapoints & Record<string, unknown>,
    syncContext: syncContextOf(u),
    createdAt: u.createdAt,
    updatedAt: u.updatedAt,
  };
}

/** The create-or-update response: datapointsFlat also repeats the user fields (spec "User"). */
export function userViewWithEcho(u: UserRecord) {
  const view = userView(u);
  view.datapointsFlat = { ...view.datapointsFlat, ...userFields(u) };
  return view;
}

/** GET .../datapoints: flat datapoints plus userDID. */
export function datapointsView(u: UserRecord): FlatDatapoints & { userDID?: string } {
  return u.userDID ? { ...u.datapoints, userDID: u.userDID } : { ...u.datapoints };
}
