// Registers every route group: ours (with the DIDComm side's status lists), then engineer G's
// (issuance workflows, admin, dev outbox).
import type { App } from '../app-types.js';
import type { ServiceDeps } from '../deps.js';
import type { TokenService } from '../tokens.js';
import type { RateLimiter } from '../rate-limit.js';
import type { WorkGate } from '../work-gate.js';
import { healthRoutes } from './health.js';
import { problemRoutes } from './problems.js';
import { tokenRoutes } from './token.js';
import { userRoutes } from './users.js';
import { userDatapointRoutes } from './user-datapoints.js';
import { userSessionRoutes } from './user-session.js';
import { usersByDidRoutes } from './users-by-did.js';
import { connectRoutes } from './connect.js';
import { wellKnownRoutes } from './well-known.js';
import { didcommRoutes } from './didcomm.js';
import { contextRoutes } from './contexts.js';
import { statusListRoutes } from '../didcomm/routes.js';
import { issuanceWorkflowRoutes } from './issuance-workflows.js';
import { adminRoutes } from './admin.js';
import { devOutboxRoutes } from './dev-outbox.js';

/** Limits per remote address and on expensive work (app.ts builds them; docs/service.md "Limits"). */
export interface AddressLimits {
  /** POST /didcomm and WebSocket upgrades and frames, keyed by addressKey(). */
  didcomm: RateLimiter;
  /** POST /api/v1/auth/token, keyed by addressKey(). */
  token: RateLimiter;
  /** Client secret checks (scrypt) at once. */
  secretChecks: WorkGate;
}

export async function registerRoutes(app: App, ctx: { deps: ServiceDeps; tokens: TokenService; limiter: RateLimiter; limits: AddressLimits }): Promise<void> {
  const { deps } = ctx;
  await healthRoutes(app);
  await problemRoutes(app);
  await tokenRoutes(app, ctx);
  await userRoutes(app, deps);
  await userDatapointRoutes(app, deps);
  await userSessionRoutes(app, deps);
  await usersByDidRoutes(app, deps);
  await connectRoutes(app, deps);
  await wellKnownRoutes(app, deps);
  await didcommRoutes(app, deps, ctx.limits.didcomm);
  // Public credential resources: status list credentials and the KYC context.
  await statusListRoutes(app, deps);
  await contextRoutes(app);
  // Engineer G's route groups.
  await issuanceWorkflowRoutes(app, deps);
  await adminRoutes(app, deps);
  await devOutboxRoutes(app, deps);
}
