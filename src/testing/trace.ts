// trace(testbed): every DIDComm message of a testbed's service and wallets, from their message
// logs, drawn as one sequence diagram (harness/trace.ts) in a self-contained HTML file — for
// looking at a flow after the fact. Waits that time out write one and name it (wait.ts). Those
// written to the OS temp folder are pruned as more are written (trace-retention.ts).
import { writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../clock.js';
import { buildTrace, traceHtml, traceMermaid, type TraceEntry } from '../harness/trace.js';
import { messageLog, threadOf, type LoggedMessage } from '../store/messages.js';
import type { Store } from '../store/store.js';
import type { Wallet } from '../wallet/wallet.js';
import { pruneTraceFilesSoon, TRACE_FILE_PREFIX } from './trace-retention.js';

export interface TraceOptions {
  /**
   * Where to write the HTML (default: a new file in the OS temp folder; the newest 50 such files
   * are kept, older ones are removed once an hour old, any after a day: trace-retention.ts).
   */
  file?: string;
  /** Only this thread. */
  thid?: string;
  title?: string;
}

export interface TraceResult {
  /** The HTML file written. */
  file: string;
  /** The same diagram as Mermaid text. */
  mermaid: string;
  /** Messages drawn. */
  messages: number;
}

/** What trace() reads: the service's store (its message log) and DID, and the wallets. */
export interface TraceSource {
  service: { did: string; deps: { store: Store } };
  wallets: Wallet[];
}

function entryOf(party: string, m: LoggedMessage): TraceEntry {
  const failures = (m.conformance ?? []).filter((c) => !c.ok && (c.severity ?? 'error') === 'error').map((c) => c.rule);
  return {
    party, at: m.at, direction: m.direction, type: m.type, mode: m.mode, thid: threadOf(m),
    ...(m.from ? { from: m.from } : {}), ...(m.to ? { to: m.to } : {}), ...(m.result ? { result: m.result } : {}),
    ...(m.problemCode ? { problemCode: m.problemCode } : {}), ...(failures.length ? { failures } : {}),
  };
}

export async function trace(source: TraceSource, options: TraceOptions = {}): Promise<TraceResult> {
  const query = options.thid ? { thid: options.thid } : {};
  const entries: TraceEntry[] = (await messageLog(source.service.deps.store, systemClock).list(query)).map((m) => entryOf('service', m));
  const dids: Record<string, string[]> = { service: [source.service.did] };
  for (const [i, w] of source.wallets.entries()) {
    const party = `wallet-${i + 1}`;
    dids[party] = [w.did, w.shortDid];
    entries.push(...(await w.messages(query)).map((m) => entryOf(party, m)));
  }
  const drawn = buildTrace(entries, dids);
  const dir = options.file ? undefined : tmpdir();
  const file = options.file ?? join(dir!, `${TRACE_FILE_PREFIX}${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.html`);
  await writeFile(file, traceHtml(options.title ?? `idsync testbed trace${options.thid ? ` (thread ${options.thid})` : ''}`, drawn));
  // In the background: a wait's error, which names this file, must not wait for a crowded folder.
  if (dir) void pruneTraceFilesSoon(dir);
  return { file, mermaid: traceMermaid(drawn), messages: drawn.entries.length };
}
