// What a fleet run is made of: scenarios (one simulated holder's flow, in named, timed steps),
// load models (closed: N wallets, C at a time; open: arrivals at a rate), and the result
// document `idsync fleet --json` prints (its keys kept stable for scripts; new ones are added last).
import type { ServiceClient } from '../testing/rest-client.js';
import type { Wallet } from '../wallet/wallet.js';

/** What a scenario's flow gets: its wallet, the service's REST client, and a timer for steps. */
export interface FlowContext {
  /** The flow's number in the run (0-based, unique across workers). */
  index: number;
  /** A user id unique to this flow and run. */
  userId: string;
  wallet: Wallet;
  client: ServiceClient;
  /** The service's DID (did:web of the twin). */
  serviceDid: string;
  /** Times `fn` as the step `name` (its latency goes into that step's histogram). */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Guard for each wait inside the flow (ms). */
  timeoutMs: number;
  signal: AbortSignal;
}

/** One simulated holder's flow. Built-in: connect, sync, issuance (scenarios.ts). */
export interface Scenario {
  name: string;
  /** Step names, in order, as the report lists them (`total` is added). */
  steps: string[];
  run(ctx: FlowContext): Promise<void>;
}

export type LoadModel =
  | { kind: 'closed'; wallets: number; concurrency: number }
  | { kind: 'open'; ratePerSecond: number; durationMs: number; rampMs?: number };

export interface StepFigures {
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** The `--json` document, the last line of `idsync fleet --json`. */
export interface FleetSummary {
  scenario: string;
  wallets: number;
  workers: number;
  completed: number;
  failed: number;
  /** Present when the run was stopped (Ctrl-C): the flows then in flight, counted neither completed nor failed. */
  stopped?: number;
  durationMs: number;
  flowsPerSecond: number;
  steps: Record<string, StepFigures>;
  errors: Record<string, number>;
  /** Heap per idle wallet; null when no thread measured a growth (too few idle wallets for the heap's noise, or no forced GC there). */
  memoryPerWalletKB: number | null;
  /** Peak memory: the process's resident set (null: not measured) and each thread's heap (used + external), in MB. */
  peakMemoryMB: { rss: number | null; heap: Record<string, number> };
}
