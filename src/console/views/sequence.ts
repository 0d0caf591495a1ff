// A thread's messages as a sequence diagram (harness/sequence.ts draws it as SVG): this party on the
// left, each peer named by what the console knows of it (a user id on the service, else its DID).
import { shortType, sequenceSvg, type SequenceArrow } from '../../harness/sequence.js';
import type { LoggedMessage } from '../../store/messages.js';
import { shortForm } from '../../did/short-form.js';
import type { ConsoleContext } from '../context.js';
import { worstVerdict } from '../verdicts.js';
import { peerOf } from './message-row.js';

function didLabel(did: string): string {
  const s = shortForm(did);
  return s.length > 28 ? `${s.slice(0, 16)}…${s.slice(-8)}` : s;
}

/** Messages in log order, drawn between this party and its peers. */
export async function sequenceOf(ctx: ConsoleContext, tenantId: string | undefined, messages: LoggedMessage[]): Promise<string> {
  const names = new Map<string, string>();
  const nameOf = async (did: string | undefined): Promise<string> => {
    if (!did) return 'unknown sender';
    const key = did.split('#')[0]!;
    let n = names.get(key);
    if (n === undefined) {
      const known = await ctx.peerName?.(tenantId, key);
      n = known ?? didLabel(key);
      names.set(key, n);
    }
    return n;
  };
  const arrows: SequenceArrow[] = [];
  const participants = [ctx.self.name];
  for (const m of messages) {
    const peer = await nameOf(peerOf(m));
    if (!participants.includes(peer)) participants.push(peer);
    const v = worstVerdict(m.conformance);
    arrows.push({
      from: m.direction === 'out' ? ctx.self.name : peer,
      to: m.direction === 'out' ? peer : ctx.self.name,
      label: shortType(m.type || undefined),
      sublabel: [m.mode, m.result, m.problemCode, v !== 'pass' ? v : undefined].filter(Boolean).join(' · '),
      bad: v === 'fail' || m.result === 'refused' || m.result === 'undecryptable' || m.result === 'failed',
      dashed: m.transport === 'return-route',
    });
  }
  return sequenceSvg(participants, arrows);
}
