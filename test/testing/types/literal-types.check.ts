// Compiled (never run) by test/testing/literal-types.test.ts: fields the schemas declare as a
// list of string literals are those literals to a QA test, not `never`. Each line must compile;
// the @ts-expect-error lines must not.
import type { IssuanceWorkflow, OutboxEntry, TestbedOptions } from '../../../src/testing/index.js';

type IsNever<T> = [T] extends [never] ? true : false;
export const statusIsNotNever: IsNever<IssuanceWorkflow['status']> = false;
export const outboxStatusIsNotNever: IsNever<OutboxEntry['status']> = false;

export function finished(wf: IssuanceWorkflow): boolean {
  switch (wf.status) {
    case 'COMPLETED':
    case 'FAILED':
    case 'EXPIRED':
      return true;
    case 'CREATED':
    case 'INVITATION_SENT':
    case 'IN_PROGRESS':
      return false;
  }
}

export function notAStatus(wf: IssuanceWorkflow, e: OutboxEntry): boolean[] {
  return [
    // @ts-expect-error not a workflow status
    wf.status === 'DONE',
    // @ts-expect-error not an outbox status
    e.status === 'delivered',
  ];
}

export const emailOnly: TestbedOptions = {
  service: { dataProfile: { id: 'email-only', name: 'E-mail only', fields: [{ key: 'emailAddress', required: true, format: 'email' }] } },
};

export const wrongKey: TestbedOptions = {
  // @ts-expect-error not a datapoint key
  service: { dataProfile: { id: 'p', name: 'P', fields: [{ key: 'email', required: true }] } },
};
