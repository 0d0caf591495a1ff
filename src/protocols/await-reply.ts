// Sending a request and waiting for its answer in the same thread, or for a problem report
// about it (pthid = the request's thread), whichever comes first.
import type { MessageDraft } from '../didcomm/message.js';
import type { Router, SendOptions } from '../router/router.js';
import type { PlainMessage } from '../didcomm/types.js';
import { IdsyncError } from '../errors.js';
import type { ParsedProblem } from './report-problem.js';
import { stopWaits } from '../wait.js';

export interface RequestOptions extends SendOptions {
  timeoutMs?: number;
  /** Stops waiting for the answer: the request rejects with code 'aborted' at once. */
  signal?: AbortSignal;
}

/**
 * Sends `draft` and resolves with the first message emitted as `event` ({message}) whose
 * thid is the request's id. A problem report for the thread rejects with code
 * 'problem_reported' (details.problem holds it).
 */
export async function request(
  router: Router,
  draft: MessageDraft,
  event: string,
  options: RequestOptions = {},
): Promise<{ request: PlainMessage; response: PlainMessage }> {
  const { timeoutMs, signal, ...sendOptions } = options;
  // Stopped before it was sent: nothing goes out.
  if (signal?.aborted) throw new IdsyncError('aborted', `stopped before ${event}: the request was not sent`, { cause: signal.reason });
  const id = (draft.id as string | undefined) ?? router.ids();
  const stop = new AbortController();
  // Held: the caller awaits the answer and the finally below stops both waits, so a request
  // whose answer never comes (a 202 without the return-routed body) times out instead of
  // letting a process with nothing else to do exit unanswered.
  const waitOptions = { timeoutMs, signal: signal ? AbortSignal.any([stop.signal, signal]) : stop.signal, hold: true };
  const answered = router.waitFor<{ message: PlainMessage }>(event, (e) => e.message.thid === id, waitOptions);
  const refused = router.waitFor<{ problem: ParsedProblem }>('problem', (e) => e.problem.pthid === id, waitOptions);
  answered.catch(() => undefined);
  refused.catch(() => undefined);
  try {
    const sent = await router.send({ ...draft, id }, sendOptions);
    const outcome = await Promise.race([
      answered.then((e) => ({ response: e.message })),
      refused.then((e) => ({ problem: e.problem })),
    ]);
    if ('problem' in outcome) {
      throw new IdsyncError('problem_reported', `${outcome.problem.code}: ${outcome.problem.text}`, { details: { problem: outcome.problem } });
    }
    return { request: sent.message, response: outcome.response };
  } finally {
    stopWaits(stop);
  }
}
