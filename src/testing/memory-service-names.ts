// Names of in-memory service twins. Each one running in this process gets a name of its own, so
// that its did:web differs from every other's: an invitation of one testbed's service handed to
// another testbed's wallet then names a service that wallet cannot reach, instead of one with
// the same DID that never issued it. The first name is the historical one, and a name is free
// again once its owner closed, so that tests running one testbed at a time keep seeing it.
import { IdsyncError } from '../errors.js';

/** The name of the first in-memory service (the only one while a single testbed runs). */
export const MEMORY_SERVICE_URL = 'http://service.idsync.test';

/** The domain every in-memory service is named under (.test names never resolve: RFC 6761). */
const MEMORY_DOMAIN = 'idsync.test';

const taken = new Set<number>();

/** The URL of in-memory service number `n` (1: MEMORY_SERVICE_URL). */
export function memoryServiceUrl(n: number): string {
  return n === 1 ? MEMORY_SERVICE_URL : `http://service-${n}.${MEMORY_DOMAIN}`;
}

export interface MemoryServiceName {
  url: string;
  /** Frees the name for a later service; a second call does nothing. */
  release(): void;
}

/** The lowest-numbered name no running in-memory service holds, held until release(). */
export function claimMemoryServiceUrl(): MemoryServiceName {
  let n = 1;
  while (taken.has(n)) n++;
  taken.add(n);
  let held = true;
  return {
    url: memoryServiceUrl(n),
    release() {
      if (held) taken.delete(n);
      held = false;
    },
  };
}

/** Whether `host` is under the in-memory services' domain (served in-process or by nobody). */
export function isMemoryServiceHost(host: string): boolean {
  return host === MEMORY_DOMAIN || host.endsWith(`.${MEMORY_DOMAIN}`);
}

/**
 * A fetch that refuses in-memory service names at once and sends everything else to `remote`:
 * such a name is not this process's network's to resolve, and asking DNS would only fail later
 * with a vaguer error. Put behind the fetch that serves the caller's own in-memory service.
 */
export function refuseOtherMemoryServices(remote: typeof fetch = globalThis.fetch): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!isMemoryServiceHost(url.hostname)) return remote(input, init);
    const origin = `${url.protocol}//${url.host}`;
    return Promise.reject(
      new IdsyncError(
        'transport_unreachable',
        `${origin} is an in-memory service that only its own testbed reaches (an invitation or DID from another testbed?)`,
        { details: { url: url.href, did: `did:web:${url.host}` } },
      ),
    );
  }) as typeof fetch;
}
