// Registers every route group: the spec's API, the DIDComm endpoint and its documents, then
// issuance workflows, the admin API and the dev outbox.
import type { App } from '../http/app-types.js';
import type { ServiceDeps } from '../deps.js';
import type { TokenService } from '../auth/tokens.js';
import type { AddressLimits, RateLimiter } from '../http/rate-limit.js';
import { healthRoutes } from './health.js';
import { problemRoutes } from './problems.js';
import { tokenRoutes } from './token.js';
import { userRoutes } from './users.js';
import { userDatapointRoutes } from './user-datapoints.js';
import { userSessionRoutes } from './user-session.js';
import { usersByDidRoutes } from './users-by-did.js';
import { connectRoutes } from './connect.js';
import { wellKnownRoutes } from './well-known.js';
import { didcommRoutes } from './didcomm-endpoint.js';
import { contextRoutes } from './contexts.js';
import { statusListRoutes } from './status-lists.js';
import { issuanceWorkflowRoutes } from './issuance-workflows.js';
import { adminRoutes } from './admin.js';
import { devOutboxRoutes } from './dev-outbox.js';


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
  await issuanceWorkflowRoutes(app, deps);
  await adminRoutes(app, deps);
  await devOutboxRoutes(app, deps);
}
