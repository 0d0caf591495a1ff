// What a thread needs to reach the fleet's service: plain data that crosses to worker threads,
// and the REST client made from it (kept apart from target.ts so that a worker does not load the
// service twin it never starts).
import { createServiceClient, type ServiceClient } from '../testing/rest-client.js';

export interface ServiceCredentials {
  clientId: string;
  clientSecret: string;
  projectId?: string;
}

export interface TargetInfo {
  url: string;
  did: string;
  credentials: ServiceCredentials;
  embedded: boolean;
}

/** The REST client of a target; `fetch` for one that goes another way than the network (a link). */
export function clientFor(t: TargetInfo, fetch?: typeof globalThis.fetch): ServiceClient {
  return createServiceClient({ url: t.url, ...t.credentials, ...(fetch ? { fetch } : {}) });
}
