// Checks startTestbed's options before anything starts. A misspelt option or value would
// otherwise fall back to a default without a word ('storage: "disk"' runs on temporary
// folders, a fault rule with `direction: 'to-server'` never matches, so the test passes with no
// fault applied): a test would then prove nothing while looking green.
import { IdsyncError } from '../errors.js';
import type { FaultInjector, FaultPlan } from './fault-plan.js';

const OPTION_NAMES = [
  'wallets', 'storage', 'transport', 'walletMode', 'walletDidMethod', 'policy', 'service', 'clock', 'webhooks', 'faults', 'envelopeEngine', 'retry',
] as const;
export const WALLET_MODES = ['endpoint', 'pickup', 'live', 'mediated'] as const;
/** The streams the testbed labels its DIDComm traffic with (fault rules' `direction`). */
export const TESTBED_DIRECTIONS = ['to-service', 'to-wallet'] as const;

export function checkTestbedOptions(options: Record<string, unknown>): void {
  if (typeof options !== 'object' || options === null) throw invalid('startTestbed takes an options object');
  for (const name of Object.keys(options)) {
    if (!(OPTION_NAMES as readonly string[]).includes(name)) throw invalid(`unknown option '${name}'${suggest(name, OPTION_NAMES)}`);
  }
  oneOf('transport', options.transport, ['memory', 'http']);
  oneOf('storage', options.storage, ['memory', 'temp']);
  oneOf('walletMode', options.walletMode, WALLET_MODES);
  oneOf('envelopeEngine', options.envelopeEngine, ['native', 'didcomm-node']);
  const n = options.wallets;
  if (n !== undefined && !(Number.isInteger(n) && (n as number) >= 0)) throw invalid(`wallets must be a whole number of wallets (0 or more): ${String(n)}`);
  checkDirections(options.faults as FaultPlan | FaultInjector | undefined);
}

/** addWallet's `mode`, checked as the option is. */
export function checkWalletMode(mode: unknown): void {
  oneOf('mode', mode, WALLET_MODES);
}

/** A plan's rules may only name the testbed's two streams; an injector given ready-made is the caller's. */
function checkDirections(faults: FaultPlan | FaultInjector | undefined): void {
  if (!faults || 'decide' in faults || !Array.isArray(faults.rules)) return;
  for (const [i, rule] of faults.rules.entries()) {
    if (rule?.direction === undefined || (TESTBED_DIRECTIONS as readonly string[]).includes(rule.direction)) continue;
    throw invalid(`fault rule ${i}: direction must be ${TESTBED_DIRECTIONS.map((d) => `'${d}'`).join(' or ')} in the testbed: ${String(rule.direction).slice(0, 40)}`);
  }
}

function oneOf(name: string, value: unknown, allowed: readonly string[]): void {
  if (value === undefined || allowed.includes(value as string)) return;
  throw invalid(`${name} must be ${allowed.map((a) => `'${a}'`).join(', ')}: ${String(value).slice(0, 40)}`);
}

/** " (did you mean 'wallets'?)" for a name one edit or a plural away from a known one. */
function suggest(name: string, known: readonly string[]): string {
  const close = known.find((k) => k.toLowerCase().startsWith(name.toLowerCase()) || name.toLowerCase().startsWith(k.toLowerCase()));
  return close ? ` (did you mean '${close}'?)` : '';
}

function invalid(message: string): IdsyncError {
  return new IdsyncError('invalid_argument', message);
}
