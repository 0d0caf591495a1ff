// The service twin started in-process for tests, the demo and the benchmark: createService with
// a tenant, client and project of our choosing, its DIDComm agent wired, reachable either over
// real sockets (http: 127.0.0.1, port 0) or without any (memory: REST through fastify's inject,
// DIDComm through an in-memory network). Service state changes feed a ChangeSignal so that
// waiters re-read state when it changes instead of polling.
import type { Clock, IdGenerator } from '../clock.js';
import { httpTransport } from '../didcomm/transport/http.js';
import { IdsyncError } from '../errors.js';
import { IN_PROCESS, inProcessExchange, type InProcessFetch } from '../http-fetch.js';
import type { MemoryNetwork } from '../didcomm/transport/memory.js';
import type { EnvelopeEngine, Transport } from '../didcomm/types.js';
import { createService, type Service, type ServicePlugin } from '../service/app.js';
import type { ServiceEvent } from '../service/context.js';
import type { AgentOptions } from '../service/didcomm/core.js';
import { createServiceAgent, type ServiceDidcommAgent } from '../service/didcomm/agent.js';
import type { RateLimitOptions } from '../service/http/rate-limit.js';
import { DataProfileInput, IssuanceSettingsSchema, type DataProfileInputT } from '../service/config/schemas.js';
import { checkSchema } from '../service/seed.js';
import type { Store } from '../store/store.js';
import { changeSignal, type ChangeSignal } from './changes.js';
import { appFetch, routeFetch } from './inject-fetch.js';
import { claimMemoryServiceUrl, refuseOtherMemoryServices, type MemoryServiceName } from './memory-service-names.js';
import { createServiceClient, type ServiceClient } from './rest-client.js';

export interface TwinServiceOptions {
  clientId?: string;
  clientSecret?: string;
  tenantId?: string;
  projectId?: string;
  /** Issued credential format: 'ldp' (Data Integrity, default) or 'jwt' (VC-JWT). */
  format?: 'ldp' | 'jwt';
  /** Give credentials a credentialStatus entry (default true). */
  statusList?: boolean;
  /** Credential validity in ms; null: no expirationDate. */
  validityMs?: number | null;
  /** The project's data profile (default: the whole KYC vocabulary; firstName, lastName, birthDate required). */
  dataProfile?: DataProfileInputT;
  /**
   * Public URL (http: the bound address). Memory transport default: a name no other in-memory
   * service of this process holds while this one runs, http://service.idsync.test for the first,
   * http://service-2.idsync.test, … for the others (memory-service-names.ts).
   */
  publicUrl?: string;
  /** Per-client rate limit (default off in tests). */
  rateLimit?: RateLimitOptions | false;
  smtpUrl?: string;
  smsGatewayUrl?: string;
  /** Extra options for the DIDComm agent. */
  agent?: AgentOptions;
  /** Envelope engine of the service's DIDComm agent (default native). */
  envelopeEngine?: EnvelopeEngine;
  /** fastify/pino logging. */
  logger?: boolean;
  /** More routes on the service's server (createService `plugins`), e.g. the web console. */
  plugins?: ServicePlugin[];
}

export interface StartTwinOptions extends TwinServiceOptions {
  store: Store;
  transport: 'memory' | 'http';
  /** Memory transport: the network the service's endpoint is registered on. */
  network?: MemoryNetwork;
  clock?: Clock;
  ids?: IdGenerator;
  host?: string;
  port?: number;
  /** Called with every service event (webhook events), after it is queued for delivery. */
  onEvent?: (event: ServiceEvent) => void;
}

export interface ServiceTwin {
  service: Service;
  agent: ServiceDidcommAgent;
  /** Base URL (memory: the public URL, served by inject). */
  url: string;
  /** did:web of the service. */
  did: string;
  credentials: { tenantId: string; clientId: string; clientSecret: string; projectId: string };
  client: ServiceClient;
  changes: ChangeSignal;
  /** fetch reaching this service (memory: through inject; other URLs: the network). */
  fetch: typeof fetch;
  /** Memory transport: the service's DIDComm endpoint on the network. */
  memoryEndpoint?: string;
  close(): Promise<void>;
}

export { MEMORY_SERVICE_URL } from './memory-service-names.js';
export const MEMORY_SERVICE_ENDPOINT = 'memory://service';

/** Agent events that may mean REST-visible state changed (agent.ts lists them). */
const AGENT_EVENTS = [
  'data-pipe-established', 'data-pipe-closed', 'sync-requested', 'sync-started', 'sync-completed', 'sync-failed', 'sync-aborted',
  'credential-issued', 'credential-status-changed', 'workflow-in-progress', 'workflow-completed', 'workflow-failed',
  'message-queued', 'message-delivered', 'pickup-delivered', 'pickup-received', 'received', 'refused', 'agent-error',
];

export async function startServiceTwin(o: StartTwinOptions): Promise<ServiceTwin> {
  const credentials = {
    tenantId: o.tenantId ?? 'qa',
    clientId: o.clientId ?? 'qa-client',
    clientSecret: o.clientSecret ?? 'qa-client-secret',
    projectId: o.projectId ?? 'qa-project',
  };
  if (o.transport === 'memory' && !o.network) throw new IdsyncError('invalid_argument', 'startServiceTwin: the memory transport needs a network');
  checkServiceOptions(o);
  // Held until close(): two in-memory services running at once must not share a did:web.
  const name: MemoryServiceName | undefined = o.transport === 'memory' && !o.publicUrl ? claimMemoryServiceUrl() : undefined;
  try {
    return await startTwin(o, credentials, name);
  } catch (err) {
    name?.release();
    throw err;
  }
}

async function startTwin(o: StartTwinOptions, credentials: ServiceTwin['credentials'], name: MemoryServiceName | undefined): Promise<ServiceTwin> {
  const changes = changeSignal();
  const transports: Transport[] | undefined = o.transport === 'memory' ? [o.network!.transport(), httpTransport()] : undefined;
  let agent: ServiceDidcommAgent | undefined;

  const service: Service = await createService({
    store: o.store,
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.ids ? { ids: o.ids } : {}),
    ...(o.publicUrl ? { publicUrl: o.publicUrl } : name ? { publicUrl: name.url } : {}),
    fixtures: fixturesFor(credentials, o),
    demoTenant: false,
    rateLimit: o.rateLimit ?? false,
    logger: o.logger ?? false,
    ...(o.envelopeEngine ? { envelopeEngine: o.envelopeEngine } : {}),
    ...(o.smtpUrl ? { smtpUrl: o.smtpUrl } : {}),
    ...(o.smsGatewayUrl ? { smsGatewayUrl: o.smsGatewayUrl } : {}),
    ...(o.plugins ? { plugins: o.plugins } : {}),
    // The DIDComm agent, built from the deps createService assembles.
    agent: (deps) =>
      (agent = createServiceAgent(deps, {
        ...o.agent,
        ...(transports ? { transports } : {}),
        ...(o.transport === 'memory' ? { ownEndpoints: [MEMORY_SERVICE_ENDPOINT, ...(o.agent?.ownEndpoints ?? [])] } : {}),
      })),
    // Events go to the webhook dispatcher (signed deliveries) and tell waiters state changed.
    events: {
      async emit(event) {
        await service.deps.webhooks!.emit(event);
        changes.bump();
        o.onEvent?.(event);
      },
    },
  });

  const real = agent!;
  for (const name of AGENT_EVENTS) real.events.on(name, () => changes.bump());

  let url: string;
  let memoryEndpoint: string | undefined;
  let closeEndpoint = () => {};
  let fetchFn: typeof fetch;
  if (o.transport === 'http') {
    try {
      url = await service.listen({ port: o.port ?? 0, host: o.host ?? '127.0.0.1' });
    } catch (err) {
      // Refused (e.g. address in use): stop what createService started; the store is the caller's.
      await service.close().catch(() => undefined);
      throw err;
    }
    fetchFn = globalThis.fetch;
  } else {
    url = service.deps.publicUrl;
    // An HTTP-like endpoint (replies made while handling go back on the "response").
    const ep = o.network!.endpoint(MEMORY_SERVICE_ENDPOINT, (packed, info) => real.receive(packed, { transport: 'http', reply: info.reply }));
    memoryEndpoint = ep.url;
    closeEndpoint = ep.close;
    // Another in-memory service's name is refused here rather than looked up in DNS.
    fetchFn = routeFetch(url, appFetch(service.app), refuseOtherMemoryServices());
    // listen() starts webhook delivery; without a socket we start it ourselves.
    service.deps.webhooks!.start();
  }
  // A REST call that changes something is a change too (e.g. a workflow's invitation sent).
  const changingFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const res = await fetchFn(input, init);
    if ((init?.method ?? 'GET') !== 'GET') changes.bump();
    return res;
  }) as InProcessFetch;
  // The same for a request handed over as plain data (the service client takes that way in when
  // the fetch offers one: appFetch without sockets).
  changingFetch[IN_PROCESS] = (target) => {
    const exchange = inProcessExchange(fetchFn, target);
    return exchange && (async (req) => {
      const res = await exchange(req);
      if (req.method !== 'GET') changes.bump();
      return res;
    });
  };
  const client = createServiceClient({ url, ...credentials, fetch: changingFetch, changes, ...(o.clock ? { clock: o.clock } : {}) });

  let closed = false;
  return {
    service,
    agent: real,
    url,
    did: service.deps.serviceDid,
    credentials,
    client,
    changes,
    fetch: fetchFn,
    ...(memoryEndpoint ? { memoryEndpoint } : {}),
    async close() {
      if (closed) return;
      closed = true;
      closeEndpoint();
      try {
        if (o.transport === 'memory') await service.deps.webhooks!.stop();
        await service.close();
      } finally {
        name?.release();
      }
    },
  };
}

/**
 * The options that become the service's fixtures, checked as the options they are: checked as
 * fixtures, a mistake would be reported at a fixtures path (/tenants/0/dataProfiles/0/…) of a
 * file the caller never wrote.
 */
function checkServiceOptions(o: TwinServiceOptions): void {
  if (o.dataProfile !== undefined) checkSchema(DataProfileInput, o.dataProfile, 'invalid_config', 'invalid service option dataProfile');
  checkSchema(IssuanceSettingsSchema, issuanceOf(o), 'invalid_config', 'invalid service options (format, statusList, validityMs)');
}

function issuanceOf(o: TwinServiceOptions) {
  return {
    format: o.format ?? 'ldp',
    ...(o.statusList !== undefined ? { statusList: o.statusList } : {}),
    ...(o.validityMs !== undefined ? { validityMs: o.validityMs } : {}),
  };
}

function fixturesFor(c: ServiceTwin['credentials'], o: TwinServiceOptions): unknown {
  const issuance = issuanceOf(o);
  return {
    tenants: [
      {
        id: c.tenantId,
        name: 'QA tenant',
        defaultProjectId: c.projectId,
        clients: [{ clientId: c.clientId, clientSecret: c.clientSecret }],
        ...(o.dataProfile ? { dataProfiles: [o.dataProfile] } : {}),
        projects: [{ id: c.projectId, name: 'QA project', ...(o.dataProfile ? { dataProfileId: o.dataProfile.id } : {}), issuance }],
      },
    ],
  };
}
