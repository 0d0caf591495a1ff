// `conformance run --role mediator --target <DID | invitation URL>`: idsync plays a mediator's
// recipient and a sender (suites/mediator-*.ts) and judges the mediator case by case: mediation
// granted and denied, the keylist, forward then pickup, live mode, limits and headers.
import { IdsyncError } from '../errors.js';
import type { CaseDefinition } from './case-kit.js';
import { startCounterpart } from './counterpart.js';
import { aimAt, contextFor, counterpartOptions, readInvitation, reportOf, selectCases, type RunOptions } from './run.js';
import { runCases } from './run-cases.js';
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
  const defs = selectCases(MEDIATOR_CASES, options);
  const started = Date.now();
  const cp = await startCounterpart(counterpartOptions(options));
  const ctx = contextFor(cp, options, { target });
  await aimAt(cp, ctx, target);
  const cases = await runCases(ctx, defs, options);
  const role = `recipient and sender of the mediator ${target.slice(0, 60)}${target.length > 60 ? '…' : ''} (coordinate-mediation, forward, Message Pickup 3.0)`;
  return reportOf(options, { target: requested, role, harnessDid: cp.did }, started, cases, cp);
}
