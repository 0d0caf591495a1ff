// The protocols every idsync agent speaks: report-problem (so failures are answered),
// trust-ping and discover-features. `router.use(...basicProtocols())`.
import type { ProtocolModule } from '../router/router.js';
import { discoverFeaturesProtocol, type DiscoverFeaturesOptions } from './discover-features.js';
import { reportProblemProtocol, type ReportProblemOptions } from './report-problem.js';
import { trustPingProtocol, type TrustPingOptions } from './trust-ping.js';

export interface BasicProtocolOptions {
  reportProblem?: ReportProblemOptions;
  trustPing?: TrustPingOptions;
  discoverFeatures?: DiscoverFeaturesOptions;
}

export function basicProtocols(options: BasicProtocolOptions = {}): ProtocolModule[] {
  return [reportProblemProtocol(options.reportProblem), trustPingProtocol(options.trustPing), discoverFeaturesProtocol(options.discoverFeatures)];
}
