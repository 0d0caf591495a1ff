// Problem reports, both ways. Received: the thread named by pthid is abandoned (issue-credential
// 3.0 and present-proof 3.0 §States; the Data Pipe connection becomes 'refused'), then
// 'problem-received' fires. Sent for replays: the router drops a message id it has seen; the
// wallet tells an authenticated sender with e.p.msg.duplicate (docs/protocols.md "Refusals that
// change no state").
import { createMessage, didOf } from '../didcomm/message.js';
import type { RouterResult } from '../didcomm/router.js';
import type { PlainMessage } from '../didcomm/types.js';
import { DATA_PIPE_PIURI, DATA_PIPE_WALLET } from '../protocols/data-pipe.js';
import { ISSUE_CREDENTIAL_HOLDER, ISSUE_CREDENTIAL_PIURI } from '../protocols/issue-credential.js';
import { PRESENT_PROOF_PIURI, PRESENT_PROOF_PROVER } from '../protocols/present-proof.js';
import { PROTOCOL_PROBLEM_CODES } from '../protocols/protocol-kit.js';
import { isProblemReport, problemReportDraft, type ParsedProblem } from '../protocols/report-problem.js';
import { isFinal, type StateMachine } from '../protocols/thread-state.js';
import { fromFor, type WalletContext } from './context.js';
import { dataPipeRefused } from './data-pipe.js';
import { receiveStep } from './thread-steps.js';

const MACHINES: Record<string, StateMachine> = {
  [DATA_PIPE_PIURI]: DATA_PIPE_WALLET as StateMachine,
  [PRESENT_PROOF_PIURI]: PRESENT_PROOF_PROVER as StateMachine,
  [ISSUE_CREDENTIAL_PIURI]: ISSUE_CREDENTIAL_HOLDER as StateMachine,
};

export async function onProblemReceived(ctx: WalletContext, problem: ParsedProblem, message: PlainMessage): Promise<void> {
  try {
    const thread = await ctx.threads.get(problem.pthid);
    const machine = thread ? MACHINES[thread.protocol] : undefined;
    // "Your message arrived twice" is no failure of the thread: the first copy was handled.
    const endsThread = problem.code !== PROTOCOL_PROBLEM_CODES.duplicate_message;
    if (thread && machine && endsThread && !isFinal(machine, thread.state)) {
      // Checks the reporter is the thread's peer; a stranger's report changes nothing.
      await receiveStep(ctx, machine, message, message.from);
      if (thread.protocol === DATA_PIPE_PIURI) await dataPipeRefused(ctx, String(thread.data.connectionId ?? thread.thid), problem.code);
      if ((await ctx.pending.get(thread.thid)) !== undefined) await ctx.pending.remove(thread.thid);
    }
  } catch (err) {
    ctx.logger('warn', 'a problem report did not apply to its thread', { pthid: problem.pthid, code: (err as { code?: string }).code });
  } finally {
    ctx.events.emit('problem-received', { problem, message });
  }
}

/** After an inbound message: a replay from an authenticated sender is answered with e.p.msg.duplicate. */
export async function answerDuplicate(ctx: WalletContext, result: RouterResult, transport: string | undefined): Promise<void> {
  // Message Pickup 3.0 (and a live socket flushing the queue) may deliver again what was not
  // acknowledged: that is redelivery by the mediator, not a replay to complain about.
  if (result.status !== 'duplicate' || transport === 'pickup' || transport === 'ws-live' || !result.message || isProblemReport(result.message)) return;
  const kid = result.metadata?.encryptedFromKid ?? result.metadata?.signFrom;
  if (!kid || typeof result.message.id !== 'string') return;
  const sender = didOf(kid);
  const draft = problemReportDraft(result.message, {
    code: PROTOCOL_PROBLEM_CODES.duplicate_message,
    comment: 'Message {1} was already received.',
    args: [result.message.id],
  });
  try {
    await ctx.router.send(createMessage({ ...draft, to: [sender], from: await fromFor(ctx, sender) }, { clock: ctx.clock, ids: ctx.ids }), { to: sender });
  } catch (err) {
    ctx.logger('warn', 'could not report a duplicate message', { id: result.message.id, code: (err as { code?: string }).code });
  }
}
