// `conformance run --verbose`: each message and HTTP answer as a few lines, as it happens — what
// the harness sent (mode, type, id, its plaintext), what the agent answered on the HTTP level,
// and what the agent sent (how it opened, the rules it broke).
import { shortType } from './sequence.js';
import type { ExchangedMessage } from './types.js';

const short = (id: string | undefined) => (id ? id.slice(0, 8) : '?');
const cut = (text: string, max: number) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
};

export function entryLines(e: ExchangedMessage, event: 'sent' | 'answered' | 'received'): string {
  if (event === 'answered') {
    if (e.http) return `   #${e.seq} answered HTTP ${e.http.status}${e.http.contentType ? ` ${e.http.contentType}` : ''}${e.http.body ? `: ${cut(e.http.body, 300)}` : ' (empty body)'}${e.http.readAsMessage ? ' (read as a DIDComm message)' : ''}`;
    return `   #${e.seq} ${e.note ?? (e.httpStatus === undefined ? 'sent (WebSocket)' : `HTTP ${e.httpStatus}`)}`;
  }
  const arrow = event === 'sent' ? '→' : '←';
  const head = [
    `${arrow} #${e.seq}`,
    event === 'received' ? e.via : undefined,
    e.mode,
    e.type ? shortType(e.type) : event === 'sent' ? 'raw body' : 'not opened',
    e.id ? `id ${short(e.id)}` : undefined,
    e.thid ? `thid ${short(e.thid)}` : undefined,
    e.pthid ? `pthid ${short(e.pthid)}` : undefined,
    e.problemCode,
    e.note,
    e.findings?.length ? `broke ${[...new Set(e.findings.map((f) => `${f.rule} (${f.severity})`))].join(', ')}` : undefined,
  ].filter(Boolean).join(' ');
  const body = e.plaintext ?? e.wire;
  return `${head}${body ? `\n     ${cut(body, 500)}` : ''}${event === 'received' && e.opened ? `\n     opened: ${cut(e.opened, 300)}` : ''}`;
}
