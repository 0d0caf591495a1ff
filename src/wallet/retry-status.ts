// What a wallet's retries stand at (router/retry): from its running scheduler, or, for a wallet
// that does not run, from what its store holds. A stopped wallet sends nothing; every step it
// waits on is due and goes out at once when it starts; a step given up stays recorded for a day.
import type { RetryCounts } from '../router/retry/scheduler.js';
import type { StepState } from '../router/steps/state.js';
import type { Store } from '../store/store.js';
import { RESEND_COLLECTION } from './runtime.js';

export type RetryStatus = RetryCounts & { byKind: Record<string, RetryCounts> };

/** The counts of a wallet that is not running, read from its store. */
export async function storedRetryStatus(store: Store): Promise<RetryStatus> {
  let due = 0;
  let abandoned = 0;
  for (const { value } of await store.collection<StepState>(RESEND_COLLECTION).list()) {
    if (value.retry) due++;
    else if (value.givenUp) abandoned++;
  }
  const counts = { scheduled: 0, due, retrying: 0, abandoned };
  return { ...counts, byKind: { step: counts } };
}
