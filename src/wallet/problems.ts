// Problem reports, both ways. Received: the thread named by pthid is abandoned (issue-credential
// 3.0 and present-proof 3.0 §States; the Data Pipe connection becomes 'refused'), then
// 'problem-received' fires. Warnings and duplicate notices end nothing (problemEndsThread).
// Replays are answered by the router itself (e.p.msg.duplicate).
import type { PlainMessage } from '../didcomm/types.js';
import { DATA_PIPE_PIURI, DATA_PIPE_WALLET } from '../protocols/data-pipe.js';
import { ISSUE_CREDENTIAL_HOLDER, ISSUE_CREDENTIAL_PIURI } from '../protocols/issue-credential.js';
import { PRESENT_PROOF_PIURI, PRESENT_PROOF_PROVER } from '../protocols/present-proof.js';
import type { ParsedProblem } from '../protocols/report-problem.js';
import { isFinal, problemEndsThread, type StateMachine } from '../protocols/thread-state.js';
import type { WalletContext } from './context.js';
import { dataPipeRefusedOps } from './data-pipe.js';
import { receiveStep } from './thread-steps.js';

const MACHINES: Record<string, StateMachine> = {
  [DATA_PIPE_PIURI]: DATA_PIPE_WALLET as StateMachine,
  [PRESENT_PROOF_PIURI]: PRESENT_PROOF_PROVER as StateMachine,
  [ISSUE_CREDENTIAL_PIURI]: ISSUE_CREDENTIAL_HOLDER as StateMachine,
};

export async function onProblemReceived(ctx: WalletContext, problem: ParsedProblem, message: PlainMessage, sender: string | undefined): Promise<void> {
  try {
    const thread = await ctx.threads.get(problem.pthid);
    const machine = thread ? MACHINES[thread.protocol] : undefined;
    // "Your message arrived twice" or a warning is no failure of the thread.
    const endsThread = problemEndsThread(message);
    if (thread && machine && endsThread && !isFinal(machine, thread.state)) {
      // Checks the reporter is the thread's peer, as the envelope proves it (not its `from`
      // header); a stranger's report changes nothing. The thread, its connection refused and its
      // pending item taken: one step, one write.
      await receiveStep(ctx, machine, message, sender, {
        also: async () => [
          ...(thread.protocol === DATA_PIPE_PIURI ? await dataPipeRefusedOps(ctx, String(thread.data.connectionId ?? thread.thid), problem.code) : []),
          ...((await ctx.pending.get(thread.thid)) !== undefined ? [ctx.pending.removeOp(thread.thid)] : []),
        ],
      });
    }
  } catch (err) {
    ctx.logger('warn', 'a problem report did not apply to its thread', { pthid: problem.pthid, code: (err as { code?: string }).code });
  } finally {
    ctx.events.emit('problem-received', { problem, message });
  }
}
