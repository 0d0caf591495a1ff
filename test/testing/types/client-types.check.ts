// Compiled (never run) by test/testing/client-types.test.ts: what a QA test may write against the
// REST client's types. Each line must compile; the @ts-expect-error lines must not.
import type { NestedDatapoints, SyncContext, User } from '../../../src/testing/index.js';

export function namesSynced(c: SyncContext): Array<string | undefined> {
  const synced = c.syncContext.datapointsSynced;
  const latest: NestedDatapoints = c.syncContext.datapointsLatest;
  return [synced.firstName, synced.lastName, synced.birthDate, synced.nationality, synced.emailAddress, synced.residentialAddress?.locality, latest.residentialAddress?.country];
}

export function flatOfUser(u: User): Array<string | undefined> {
  return [u.datapointsFlat.firstName, u.datapointsFlat.residentialAddressCountry, u.syncContext.datapointsSynced.phoneNumber];
}

export function notDatapoints(c: SyncContext): unknown[] {
  return [
    // @ts-expect-error not a datapoint
    c.syncContext.datapointsSynced.shoeSize,
    // @ts-expect-error address fields are nested in this form
    c.syncContext.datapointsSynced.residentialAddressLocality,
    // @ts-expect-error not an address field
    c.syncContext.datapointsSynced.residentialAddress?.planet,
  ];
}
