// Message logs drawn as sequence diagrams: `idsync wallet messages --format mermaid|html` and the
// testbed's trace() (src/testing/trace.ts). The input is what message logs keep (store/messages.ts
// records, or the CLI's views of them): direction, type, mode, from/to, result, problem code and
// the rules each message broke. One self-contained HTML file, no script, opens offline.
import { escapeXml, sequenceMermaid, sequenceSvg, shortType, type SequenceArrow } from './sequence.js';

export interface TraceEntry {
  /** Whose log it comes from (a label such as "wallet-1" or "service"). */
  party: string;
  at: string;
  direction: 'in' | 'out';
  type: string;
  mode: string;
  from?: string;
  to?: string[];
  thid?: string;
  result?: string;
  problemCode?: string;
  /** Rules broken (errors). */
  failures?: string[];
}

export interface Trace {
  participants: string[];
  arrows: SequenceArrow[];
  entries: TraceEntry[];
}

/** Outcomes not worth a word in a diagram. */
const OK_RESULTS = ['accepted', 'handled', 'sent', 'delivered'];

/** `did:ion:EiAb…xyz` for a long DID: enough to tell parties apart in a diagram. */
export function shortDid(did: string): string {
  const base = did.split(/[?#]/)[0]!;
  const parts = base.split(':');
  const id = parts.slice(2).join(':');
  return parts[1] !== 'web' && id.length > 14 ? `${parts[0]}:${parts[1]}:${id.slice(0, 8)}…${id.slice(-4)}` : base;
}

/**
 * Arrows of the logs of one or more parties. `dids` names the parties' own DIDs (long and short
 * forms) so that a message between two parties of the trace is drawn once, from the sender's log;
 * a message received from someone outside the trace is drawn from the receiver's log.
 */
export function buildTrace(entries: TraceEntry[], dids: Record<string, string[]> = {}): Trace {
  const owner = (did: string | undefined): string | undefined => {
    if (!did) return undefined;
    const base = did.split(/[?#]/)[0]!;
    for (const [party, list] of Object.entries(dids)) if (list.some((d) => d === base || base.startsWith(`${d}:`) || d.startsWith(`${base}:`))) return party;
    return undefined;
  };
  const sorted = [...entries].sort((a, b) => a.at.localeCompare(b.at));
  const participants: string[] = [];
  const add = (p: string) => {
    if (!participants.includes(p)) participants.push(p);
    return p;
  };
  for (const party of Object.keys(dids)) add(party);
  const kept: TraceEntry[] = [];
  const arrows: SequenceArrow[] = [];
  for (const e of sorted) {
    add(e.party);
    const peer = e.direction === 'out' ? e.to?.[0] : e.from;
    const peerParty = owner(peer);
    const ordinary = e.result === undefined || OK_RESULTS.includes(e.result);
    // Between two parties of the trace: drawn from the sender's 'out' record only (unless refused on arrival).
    if (e.direction === 'in' && peerParty && peerParty !== e.party && ordinary) continue;
    const other = add(peerParty ?? (peer ? shortDid(peer) : '(unknown sender)'));
    const bits = [e.mode, ordinary ? undefined : e.result, e.problemCode, e.failures?.length ? `broke ${e.failures.join(', ')}` : undefined].filter(Boolean);
    arrows.push({
      from: e.direction === 'out' ? e.party : other,
      to: e.direction === 'out' ? other : e.party,
      label: shortType(e.type),
      sublabel: bits.join(' · '),
      bad: (e.failures?.length ?? 0) > 0 || e.result === 'refused' || e.result === 'failed',
    });
    kept.push(e);
  }
  return { participants, arrows, entries: kept };
}

export function traceMermaid(trace: Trace): string {
  return sequenceMermaid(trace.participants, trace.arrows) + '\n';
}

export function traceHtml(title: string, trace: Trace): string {
  const rows = trace.entries
    .map((e, i) => `<tr><td>${i + 1}</td><td>${escapeXml(e.at)}</td><td>${escapeXml(e.party)} ${e.direction}</td><td><code>${escapeXml(e.type)}</code></td><td>${escapeXml(e.mode)}</td><td>${escapeXml(e.thid ?? '')}</td><td>${escapeXml([e.result, e.problemCode, ...(e.failures ?? [])].filter(Boolean).join(' '))}</td></tr>`)
    .join('');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#1d2733}table{border-collapse:collapse;margin-top:1rem}td,th{border:1px solid #d5dde6;padding:.2rem .4rem;font-size:.85rem;text-align:left}code{overflow-wrap:anywhere}svg.sequence{max-width:100%;height:auto}</style></head>
<body><h1>${escapeXml(title)}</h1>
<p>${trace.entries.length} messages between ${trace.participants.map(escapeXml).join(', ')}. Red: refused, failed or broke a rule of the catalogue (docs/rules.md).</p>
${sequenceSvg(trace.participants, trace.arrows)}
<table><tr><th>#</th><th>at</th><th>log</th><th>type</th><th>mode</th><th>thread</th><th>outcome</th></tr>${rows}</table>
</body></html>
`;
}
