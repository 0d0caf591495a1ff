// What the `idsync wallet` commands print: stored credentials, refused ones and logged messages
// as plain views (the --json output and the control API's answers), and the lines for people.
import { threadOf, type LoggedMessage } from '../../store/messages.js';
import type { RejectedCredential, StoredCredential } from '../../wallet/credential-store.js';

export interface CredentialView {
  id: string;
  type: string[];
  issuer: string;
  claims: Record<string, unknown>;
  format: string;
  verified: boolean;
  status: string;
  receivedAt: string;
  thid: string;
  replaces?: string;
  replacedBy?: string;
  failedCheck?: string;
}

export function credentialView(c: StoredCredential): CredentialView {
  return {
    id: c.id, type: c.type, issuer: c.issuer, claims: c.claims, format: c.format, verified: c.verified, status: c.status, receivedAt: c.receivedAt, thid: c.thid,
    ...(c.replaces ? { replaces: c.replaces } : {}),
    ...(c.replacedBy ? { replacedBy: c.replacedBy } : {}),
  };
}

/** A refused credential, shown for inspection: never verified, status 'rejected'. */
export function rejectedView(r: RejectedCredential): CredentialView {
  const raw = (typeof r.raw === 'object' && r.raw !== null ? r.raw : {}) as { type?: string[]; credentialSubject?: Record<string, unknown> };
  const { id: _id, ...claims } = raw.credentialSubject ?? {};
  return {
    id: r.id ?? r.key, type: raw.type ?? [], issuer: r.issuer ?? '', claims, format: typeof r.raw === 'string' ? 'jwt' : 'ldp',
    verified: false, status: 'rejected', receivedAt: r.receivedAt, thid: r.thid, failedCheck: r.failedCheck,
  };
}

export function messageView(m: LoggedMessage) {
  const failed = (m.conformance ?? []).filter((c) => !c.ok && (c.severity ?? 'error') === 'error').map((c) => c.rule);
  return {
    seq: m.seq, at: m.at, direction: m.direction, type: m.type, thid: threadOf(m), ...(m.pthid ? { pthid: m.pthid } : {}), mode: m.mode,
    ...(m.from ? { from: m.from } : {}), ...(m.to ? { to: m.to } : {}), ...(m.result ? { result: m.result } : {}),
    ...(m.problemCode ? { problemCode: m.problemCode } : {}), ...(m.transport ? { transport: m.transport } : {}), size: m.size,
    ...(failed.length ? { conformanceFailures: failed } : {}),
  };
}
export type MessageView = ReturnType<typeof messageView>;

export interface AcceptResult {
  kind: 'data-pipe' | 'issuance';
  invitationId: string;
  goalCode?: string;
  peer: string;
  thid: string;
  /** data-pipe: the connection's state ('established'). */
  state?: string;
  /** issuance with --wait: the credential received. */
  credential?: CredentialView;
}

// --- lines for people (without --json) --------------------------------------------------------

export function humanCredentials(list: CredentialView[]): string {
  if (list.length === 0) return 'no credentials';
  return list
    .map((c) => {
      const head = `${c.id}  ${c.status}  ${c.verified ? 'verified' : `NOT verified (${c.failedCheck})`}  ${c.format}`;
      const claims = Object.entries(c.claims).map(([k, v]) => `    ${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
      return [head, `  type: ${c.type.join(', ')}`, `  issuer: ${c.issuer}`, `  received: ${c.receivedAt}`, '  claims:', ...claims].join('\n');
    })
    .join('\n\n');
}

export function humanMessages(list: MessageView[]): string {
  if (list.length === 0) return 'no messages';
  return list
    .map((m) => {
      const extra = [m.result, m.problemCode, m.conformanceFailures ? `conformance: ${m.conformanceFailures.join(', ')}` : undefined].filter(Boolean).join(' ');
      return `${m.at}  ${m.direction.padEnd(3)} ${m.mode.padEnd(10)} ${m.type}  thid ${m.thid}${extra ? `  ${extra}` : ''}`;
    })
    .join('\n');
}

export function humanAccept(r: AcceptResult): string {
  if (r.kind === 'data-pipe') return `Data Pipe ${r.state} with ${r.peer} (thread ${r.thid})`;
  // Without --wait the command ends once the proposal is sent: the issuer's answer (the credential,
  // or a problem report such as an invitation already used) comes later, to a running wallet.
  if (!r.credential) return `credential proposal sent to ${r.peer} (thread ${r.thid}); its answer, the credential or a refusal, arrives while the wallet runs (wallet serve, or accept --wait)`;
  return [`credential received from ${r.peer} (thread ${r.thid})`, humanCredentials([r.credential])].join('\n');
}

const short = (type: string) => type.split('/').slice(-2).join('/');

/** One pending item, for people: what it is, from whom, and the commands that answer it. */
export function humanPendingItem(p: { id: string; kind: string; from: string; goalCode?: string; goal?: string; preview?: Record<string, string>; domain?: string }, dir: string): string {
  const what = p.kind === 'invitation' ? 'invitation' : p.kind === 'credential-offer' ? 'credential offer' : 'proof request';
  const about = [p.goalCode, p.goal, p.domain ? `for ${p.domain}` : undefined, p.preview ? Object.entries(p.preview).map(([k, v]) => `${k}: ${v}`).join(', ') : undefined].filter(Boolean).join('; ');
  return `${what} ${p.id} from ${p.from}${about ? ` (${about})` : ''}: idsync wallet approve ${p.id} --data ${dir}, or decline`;
}

export function humanPending(list: Array<Parameters<typeof humanPendingItem>[0] & { receivedAt: string }>, dir: string): string {
  if (list.length === 0) return 'nothing pending';
  return list.map((p) => `${p.receivedAt}  ${humanPendingItem(p, dir)}`).join('\n');
}

export function humanPickup(v: {
  peers: string[];
  received: Array<{ type: string; thid?: string; status: string; problemCode?: string }>;
  pending: Array<Parameters<typeof humanPendingItem>[0]>;
  credentials: CredentialView[];
  connections: Array<{ theirDid: string; state: string }>;
  problems: Array<{ code: string; text: string }>;
}, dir: string): string {
  if (v.received.length === 0) return `nothing queued at ${v.peers.join(', ')}`;
  return [
    `collected ${v.received.length} message(s) from ${v.peers.join(', ')}`,
    ...v.received.map((m) => `  ${short(m.type)}${m.thid ? `  thid ${m.thid}` : ''}  ${m.status}${m.problemCode ? ` ${m.problemCode}` : ''}`),
    ...v.connections.map((c) => `Data Pipe ${c.state} with ${c.theirDid}`),
    ...v.credentials.map((c) => `credential ${c.id} received from ${c.issuer} (${c.format}, verified)`),
    ...v.problems.map((p) => `problem ${p.code}: ${p.text}`),
    ...v.pending.map((p) => `pending: ${humanPendingItem(p, dir)}`),
  ].join('\n');
}

export function humanApprove(r: { id: string; kind: string; thid: string; accepted?: AcceptResult; credential?: CredentialView }): string {
  if (r.accepted) return humanAccept(r.accepted);
  if (r.credential) return [`credential received (thread ${r.thid})`, humanCredentials([r.credential])].join('\n');
  return `${r.kind} ${r.id} approved (thread ${r.thid})`;
}
