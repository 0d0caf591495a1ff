// idsync/fleet: simulated holder wallets against a service, as a library (what `idsync fleet`
// runs), with scenarios of one's own, and the Artillery engine behind `engine: idsync`.
export { runFleet, resolveWorkers } from './fleet.js';
export type { FleetOptions, FleetProgress, FleetResult } from './fleet.js';
export { connectFlow, syncConnected, nextCredential, connectScenario, syncScenario, issuanceScenario, builtinScenario, BUILTIN_SCENARIOS, DATAPOINTS } from './scenarios.js';
export type { ScenarioRef } from './scenario-ref.js';
export type { FlowContext, Scenario, LoadModel, FleetSummary, StepFigures } from './types.js';
export { latencyHistogram, decodeHistogram } from './histogram.js';
export type { LatencyHistogram, LatencySummary } from './histogram.js';
export { fleetTable, reportDocument, reportHtml, writeReport } from './report.js';
export { startWalletPool } from './wallet-pool.js';
export type { WalletPool, WalletPoolOptions } from './wallet-pool.js';
export { IdsyncArtilleryEngine, ARTILLERY_METRICS, stopArtilleryEngine } from './artillery-engine.js';
export type { FlowAction } from './artillery-engine.js';
