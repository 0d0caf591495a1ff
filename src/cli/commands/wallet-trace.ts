// `idsync wallet messages --format mermaid|html`: the wallet's message log as a sequence diagram
// (harness/trace.ts): the wallet on the left, each peer DID a lifeline, refusals and broken
// rules in red.
import { buildTrace, traceHtml, traceMermaid, type TraceEntry } from '../../harness/trace.js';
import type { MessageView } from './wallet-views.js';

export const MESSAGE_FORMATS = ['text', 'mermaid', 'html'] as const;
export type MessageFormat = (typeof MESSAGE_FORMATS)[number];

export function traceEntryOf(m: MessageView, party = 'wallet'): TraceEntry {
  return {
    party, at: m.at, direction: m.direction, type: m.type, mode: m.mode, thid: m.thid,
    ...(m.from ? { from: m.from } : {}), ...(m.to ? { to: m.to } : {}), ...(m.result ? { result: m.result } : {}),
    ...(m.problemCode ? { problemCode: m.problemCode } : {}), ...(m.conformanceFailures ? { failures: m.conformanceFailures } : {}),
  };
}

export function messagesDiagram(list: MessageView[], format: Exclude<MessageFormat, 'text'>, thid?: string): string {
  const trace = buildTrace(list.map((m) => traceEntryOf(m)), { wallet: [] });
  return format === 'mermaid' ? traceMermaid(trace) : traceHtml(`idsync wallet messages${thid ? ` (thread ${thid})` : ''}`, trace);
}
