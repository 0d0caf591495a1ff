// The service twin's HTTP server: builds deps, seeds configuration, registers every route,
// problem handlers, OpenAPI and the DIDComm endpoints, and runs the
// DIDComm agent (didcomm/agent.ts) unless given another.
import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { systemClock, uuid, type Clock, type IdGenerator } from '../clock.js';
import { listenError } from '../listen.js';
import type { Store } from '../store/store.js';
import { attachWsEndpoint, type WsEndpoint } from '../didcomm/transport/ws.js';
import type { EnvelopeEngine } from '../didcomm/types.js';
import type { App } from './http/app-types.js';
import type { ServiceAgent } from './didcomm-seam.js';
import { createServiceAgent } from './didcomm/agent.js';
import { DEFAULT_INVITATION_TTL_MS } from './users/invitations.js';
import type { AuthContext } from './auth/route-auth.js';
import { createServiceConfig } from './config/config.js';
import { silentLogger, type EventSink, type ServiceLogger } from './context.js';
import type { ServiceDeps } from './deps.js';
import { installProblemHandlers, sendProblem } from './http/problem-handlers.js';
import { answerClientError } from './http/client-error.js';
import { strictStringsCompiler } from './http/strict-strings.js';
import { loadServiceIdentity } from './identity.js';
import { createAuthenticator } from './auth/authenticator.js';
import { createRateLimiter, DEFAULT_DIDCOMM_ADDRESS_LIMIT, DEFAULT_RATE_LIMIT, DEFAULT_TOKEN_ADDRESS_LIMIT, type RateLimitOptions } from './http/rate-limit.js';
import type { AddressLimits } from './http/rate-limit.js';
import { createWorkGate, DEFAULT_SECRET_CHECKS, type WorkGateOptions } from './http/work-gate.js';
import { limitWsInbound } from './http/ws-limits.js';
import { DEFAULT_ENDPOINT_POLICY, type EndpointPolicy } from './net/endpoint-policy.js';
import type { HostResolver } from '../net/connect-guard.js';
import { createTokenService } from './auth/tokens.js';
import { createUserStore } from './users/users.js';
import { applyFixtures, seedDemoTenant, seedFromEnv, type DemoCredentials, type EnvSeed } from './seed.js';
import { installJsonParsers } from './http/body-parsers.js';
import { scopeDocumentation, type ScopedRoute } from './auth/scope-docs.js';
import { openapiOptions } from './http/openapi.js';
import { registerRoutes } from './routes/index.js';
import { wsInboundHandler } from './routes/didcomm-endpoint.js';
import { wireExtensions } from './issuance/wiring.js';

export interface CreateServiceOptions {
  store: Store;
  clock?: Clock;
  ids?: IdGenerator;
  /** The URL clients and wallets reach the service at. Omitted: the listen address, known after listen(). */
  publicUrl?: string;
  /** IDSYNC_CLIENT_ID / IDSYNC_CLIENT_SECRET / IDSYNC_PROJECT_ID. */
  env?: EnvSeed;
  /** Parsed fixtures JSON (fixtures/service-fixtures.json shows the shape). */
  fixtures?: unknown;
  /** Per-client token bucket; false turns it off (and, unless `addressRateLimit` says otherwise, the per-address ones). */
  rateLimit?: RateLimitOptions | false;
  /**
   * Per remote address (IPv6: per /64): `didcomm` counts POST /didcomm requests and WebSocket
   * upgrades and frames (default burst 600, 100/s), `token` counts token requests (default burst
   * 60, 5/s). false turns one off. Default: on, unless `rateLimit` is false.
   */
  addressRateLimit?: { didcomm?: RateLimitOptions | false; token?: RateLimitOptions | false };
  /** Client secret (scrypt) checks at once and waiting; more are answered 429 (default 2 and 32). */
  secretChecks?: WorkGateOptions;
  /**
   * Which DIDComm endpoints named in peers' DID documents the agent may send to (docs/service.md
   * "Outbound endpoints"): loopback allowed, private ranges refused by default; link-local and
   * cloud metadata addresses always refused.
   */
  outboundEndpoints?: EndpointPolicy;
  /**
   * Resolves host names for every outbound connection (DIDComm endpoints, did:web, webhooks); each
   * address it gives is checked against the policies before connecting. Default: the system
   * resolver (getaddrinfo, /etc/hosts). Tests inject one.
   */
  resolveHost?: HostResolver;
  /** Envelope engine of the DIDComm agent: 'native' (default) or 'didcomm-node'. */
  envelopeEngine?: EnvelopeEngine;
  smtpUrl?: string;
  smsGatewayUrl?: string;
  /** true: fastify's pino logger; a pino-like instance; default: no logging. */
  logger?: boolean | FastifyBaseLogger;
  /**
   * The DIDComm side, or a factory given the finished deps (users, identity) to build it from.
   * Default: the service's DIDComm agent, `createServiceAgent(deps)`. Its start() is called once
   * the service DID is final: here when a publicUrl is given, else from listen().
   */
  agent?: ServiceAgent | ((deps: ServiceDeps) => ServiceAgent);
  /** Lifetime of Data Pipe invitations in ms (default 30 days). */
  invitationTtlMs?: number;
  /** Where events go; default the webhook dispatcher when present, else logged. */
  events?: EventSink;
  /** Create a demo tenant on a store without tenants (default true unless env seeds one). */
  demoTenant?: boolean;
  /**
   * More routes on the service's server (e.g. the web console, src/console), each called once
   * with the app and the composed deps after the service's own routes and before the server is
   * ready (fastify takes no routes after that).
   */
  plugins?: ServicePlugin[];
}

/** Adds routes or hooks to the service's server; see CreateServiceOptions.plugins. */
export type ServicePlugin = (app: App, deps: ServiceDeps) => Promise<void> | void;

export interface Service {
  app: App;
  deps: ServiceDeps;
  /** Credentials of the demo tenant when this start created it (print them once). */
  demoCredentials?: DemoCredentials;
  /** Every route that needs a scope, with that scope (also in the OpenAPI as x-required-scope). */
  scopedRoutes: ScopedRoute[];
  /** The DIDComm WebSocket endpoint (pushTo a bound DID). */
  ws: WsEndpoint;
  listen(options?: { port?: number; host?: string }): Promise<string>;
  close(): Promise<void>;
}

const trimSlash = (url: string): string => url.replace(/\/+$/, '');

/** Issuer and audience of access tokens; stable across restarts even when the port changes. */
export function tokenIssuer(publicUrl: string | undefined): { issuer: string; audience: string } {
  return publicUrl ? { issuer: trimSlash(publicUrl), audience: `${trimSlash(publicUrl)}/api/v1` } : { issuer: 'urn:idsync:service', audience: 'urn:idsync:api:v1' };
}

export async function createService(options: CreateServiceOptions): Promise<Service> {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? uuid;
  const explicitUrl = options.publicUrl ? trimSlash(options.publicUrl) : undefined;
  let publicUrl = explicitUrl ?? 'http://127.0.0.1';

  const app = Fastify({
    ...(options.logger && typeof options.logger === 'object' ? { loggerInstance: options.logger } : { logger: options.logger === true }),
    bodyLimit: 1024 * 1024,
    // Long-form did:ion DIDs in paths are ~1-2 KB.
    routerOptions: { maxParamLength: 8192 },
    frameworkErrors: (err, request, reply) => sendProblem(request as FastifyRequest, reply as FastifyReply, err),
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  const logger: ServiceLogger = options.logger ? app.log : silentLogger;
  const config = createServiceConfig(store);
  const identity = await loadServiceIdentity(store, publicUrl);
  const deps = {
    store,
    clock,
    ids,
    config,
    publicUrl,
    serviceDid: identity.did,
    identity,
    events: options.events ?? { emit: async (e) => logger.info({ event: e.event, type: e.type }, 'event (no sink wired)') },
    logger,
    invitationTtlMs: options.invitationTtlMs ?? DEFAULT_INVITATION_TTL_MS,
    outboundEndpoints: { ...DEFAULT_ENDPOINT_POLICY, ...options.outboundEndpoints },
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    envelopeEngine: options.envelopeEngine,
    smtpUrl: options.smtpUrl,
    smsGatewayUrl: options.smsGatewayUrl,
  } as ServiceDeps;
  deps.users = createUserStore(deps);
  // The agent reads deps (DID, URL, events) when it uses them, so it may be built before listen().
  const given = options.agent;
  deps.agent = typeof given === 'object' ? given : (given ?? ((d: ServiceDeps) => createServiceAgent(d)))(deps);
  const extras = wireExtensions(deps, { eventsGiven: options.events !== undefined });
  let agentStarted = false;
  const startAgent = () => {
    if (agentStarted) return;
    agentStarted = true;
    deps.agent.start?.();
  };

  // Configuration before serving: fixtures, then the environment client, then (first start) a demo tenant.
  if (options.fixtures !== undefined) await applyFixtures(deps, options.fixtures);
  const envSeeded = options.env ? await seedFromEnv(deps, options.env) : false;
  const demoCredentials = options.demoTenant === false || envSeeded ? undefined : await seedDemoTenant(deps);

  const tokens = await createTokenService({ store, clock, ids, ...tokenIssuer(explicitUrl) });
  const limiter = createRateLimiter(clock, options.rateLimit ?? DEFAULT_RATE_LIMIT);
  const addressDefault = (given: RateLimitOptions | false | undefined, fallback: RateLimitOptions) =>
    given !== undefined ? given : options.rateLimit === false ? false : fallback;
  const limits: AddressLimits = {
    didcomm: createRateLimiter(clock, addressDefault(options.addressRateLimit?.didcomm, DEFAULT_DIDCOMM_ADDRESS_LIMIT)),
    token: createRateLimiter(clock, addressDefault(options.addressRateLimit?.token, DEFAULT_TOKEN_ADDRESS_LIMIT)),
    secretChecks: createWorkGate(options.secretChecks ?? DEFAULT_SECRET_CHECKS),
  };
  app.decorate('idsyncAuth', createAuthenticator({ deps, tokens, limiter }));
  app.decorateRequest('auth', null as AuthContext | null);

  // TypeBox validates: JSON bodies as sent (no type coercion), path and query strings converted
  // once they are written as what they convert to (strict-strings.ts).
  app.setValidatorCompiler(strictStringsCompiler);
  installJsonParsers(app);
  installProblemHandlers(app);
  const scopedRoutes = scopeDocumentation(app);
  await app.register(fastifySwagger, openapiOptions());
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  await registerRoutes(app, { deps, tokens, limiter, limits });
  for (const plugin of options.plugins ?? []) await plugin(app, deps);

  // WebSocket upgrades and frames count against the same per-address bucket as POST /didcomm.
  const wsLimits = limitWsInbound(app.server, { path: '/didcomm', limiter: limits.didcomm, logger });
  const ws = attachWsEndpoint(app.server, { path: '/didcomm', handler: wsLimits.wrap(wsInboundHandler(deps)) });
  app.addHook('onClose', async () => {
    await ws.close();
  });
  await app.ready();
  // With a public URL the DID is final now: in-process users that never listen() get a running agent.
  if (explicitUrl) startAgent();

  return {
    app,
    deps,
    demoCredentials,
    scopedRoutes,
    ws,
    async listen({ port = 0, host = '127.0.0.1' } = {}) {
      await app.listen({ port, host }).catch((err: unknown) => {
        throw listenError(err, host, port);
      });
      const addr = app.server.address();
      const bound = typeof addr === 'object' && addr ? addr : { address: host, port };
      // A wildcard bind address is not reachable as such: name the loopback instead.
      const addr4 = bound.address === '0.0.0.0' || bound.address === '::' ? '127.0.0.1' : bound.address;
      const h = addr4.includes(':') ? `[${addr4}]` : addr4;
      const url = `http://${h}:${bound.port}`;
      if (!explicitUrl) {
        // The DID and invitation URLs follow the address actually bound.
        publicUrl = url;
        deps.publicUrl = url;
        deps.identity = await loadServiceIdentity(store, url);
        deps.serviceDid = deps.identity.did;
      }
      startAgent();
      extras.start();
      return url;
    },
    async close() {
      // Inbound first (HTTP and WebSocket), then the agent's work in flight, then webhook delivery.
      await app.close();
      await deps.agent.close?.();
      await extras.stop();
    },
  };
}
