// `conformance run --role mediator --target <DID | invitation URL>`: idsync plays a mediator's
// recipient and a sender (suites/mediator-*.ts) and judges the mediator case by case: mediation
// granted and denied, the keylist, forward then pickup, live mode, limits and headers.
import { IdsyncError } from '../errors.js';
import type { CaseContext, CaseDefinition } from './case-kit.js';
import { startCounterpart } from './counterpart.js';
import { readInvitation, runCases, summarize, DEFAULT_CASE_TIMEOUT_MS, type RunOptions } from './run.js';
import { MEDIATOR_COORDINATION_CASES } from './suites/mediator-coordination.js';
import { MEDIATOR_LIMIT_CASES } from './suites/mediator-limits.js';
import { MEDIATOR_LIVE_CASES } from './suites/mediator-live.js';
import { MEDIATOR_PICKUP_CASES } from './suites/mediator-pickup.js';
import type { ConformanceReport } from './types.js';

/** The cases for a mediator, in the order they run. */
export const MEDIATOR_CASES: CaseDefinition[] = [...MEDIATOR_COORDINATION_CASES, ...MEDIATOR_PICKUP_CASES, ...MEDIATOR_LIVE_CASES, ...MEDIATOR_LIMIT_CASES];
export const MEDIATOR_SUITES = [...new Set(MEDIATOR_CASES.map((c) => c.suite))];

export async function runMediatorConformance(options: Omit<RunOptions, 'role'>): Promise<ConformanceReport> {
  const requested = options.target ?? '';
  const isUrl = /^https?:\/\//i.test(requested);
  if (!isUrl && !requested.startsWith('did:')) throw new IdsyncError('invalid_argument', `--target must be the mediator's DID or its out-of-band invitation URL: ${requested}`);
  const target = isUrl ? String((await readInvitation(requested)).message.from) : requested;
  const suites = options.suites ?? MEDIATOR_SUITES;
  const unknown = suites.filter((s) => !MEDIATOR_SUITES.includes(s));
  if (unknown.length) throw new IdsyncError('invalid_argument', `unknown suite ${unknown.join(', ')} (mediator suites: ${MEDIATOR_SUITES.join(', ')})`);
  const timeoutMs = options.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS;
  const started = Date.now();
  const cp = await startCounterpart({ target, resolve: options.resolve, postTimeoutMs: Math.max(timeoutMs, 1000), ...(options.transport ? { transport: options.transport } : {}) });
  const ctx: CaseContext = { cp, target, timeoutMs };
  const cases = await runCases(ctx, MEDIATOR_CASES.filter((c) => suites.includes(c.suite)), options.onCase, options.profile);
  return {
    target: requested,
    role: `recipient and sender of the mediator ${target.slice(0, 60)}${target.length > 60 ? '…' : ''} (coordinate-mediation, forward, Message Pickup 3.0)`,
    harnessDid: cp.did,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    cases,
    summary: summarize(cases),
  };
}
