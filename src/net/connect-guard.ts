// Outbound address policy after name resolution: a host is resolved once, every address it
// resolves to is classified (address-class.ts) and judged (address-policy.ts), and a connection
// goes only to the addresses that were checked. The `lookup` given to node:net / node:tls (and
// so to undici and ws) is the only resolution: there is no second lookup an attacker's DNS
// could answer differently (DNS rebinding). One refused address refuses the host: a name that
// resolves to a public and a metadata address is not a public name.
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { IdsyncError } from '../errors.js';
import { classifyAddress, classifyHostName } from './address-class.js';
import { classRefusal, type AddressPolicy } from './address-policy.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address of a host name (no literals are passed). Tests inject one: there is no DNS there. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** getaddrinfo through node:dns (honours /etc/hosts), every address, in the resolver's order. */
export const systemResolver: HostResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** The error code of a refused destination. */
export const ENDPOINT_REFUSED = 'endpoint_refused';

const URL_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:']);

export interface ConnectGuard {
  /** Why `url` is refused without a lookup (not a network URL, an IP literal or a name that says what it is), or undefined. */
  staticRefusal(url: string): string | undefined;
  /** The same for a bare host name or IP literal (brackets allowed). */
  hostRefusal(hostname: string): string | undefined;
  /** Resolves `hostname` (IP literals as they are) and checks every address; throws `endpoint_refused`. */
  resolve(hostname: string): Promise<ResolvedAddress[]>;
  /** Why `url` is refused, looking its host up; undefined when allowed or when the name does not resolve (then no connection can be made either). */
  check(url: string): Promise<string | undefined>;
  /** For node:net / node:tls `lookup`: resolves through `resolve`, so only checked addresses are connected to. */
  lookup: LookupFunction;
}

/** The `endpoint_refused` error for `host` (and the address it resolved to). */
export function refusedError(host: string, reason: string, address?: string): IdsyncError {
  return new IdsyncError('endpoint_refused', `not connecting to ${host.slice(0, 200)}${address && address !== host ? ` (${address})` : ''}: ${reason}`, {
    details: { host: host.slice(0, 200), ...(address ? { address } : {}), reason },
  });
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}

/** A guard under `policy` (read at every use when a function) resolving with `resolver`. */
export function connectGuard(policy: AddressPolicy | (() => AddressPolicy), resolver: HostResolver = systemResolver): ConnectGuard {
  const current = typeof policy === 'function' ? policy : () => policy;

  function hostRefusal(hostname: string): string | undefined {
    const cls = classifyHostName(hostname.replace(/^\[|\]$/g, ''));
    return cls ? classRefusal(cls, current()) : undefined;
  }

  function staticRefusal(url: string): string | undefined {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return 'not a URL';
    }
    if (!URL_SCHEMES.has(u.protocol)) return `not an HTTP(S) or WebSocket URL (${u.protocol})`;
    return hostRefusal(u.hostname);
  }

  async function resolve(hostname: string): Promise<ResolvedAddress[]> {
    const host = hostname.replace(/^\[|\]$/g, '');
    const refused = hostRefusal(host);
    if (refused) throw refusedError(host, refused);
    const literal = classifyAddress(host);
    if (literal) return [{ address: host, family: host.includes(':') ? 6 : 4 }];
    const addresses = await resolver(host);
    if (addresses.length === 0) throw notFound(host);
    for (const a of addresses) {
      const cls = classifyAddress(a.address);
      const why = cls ? classRefusal(cls, current()) : 'the resolver gave something that is not an IP address';
      if (why) throw refusedError(host, why, a.address);
    }
    return addresses;
  }

  const lookup = ((hostname: string, options: LookupOptions | number | ((...a: unknown[]) => void), callback?: (...a: unknown[]) => void) => {
    const cb = (typeof options === 'function' ? options : callback) as (err: Error | null, address?: string | LookupAddress[], family?: number) => void;
    const o: LookupOptions = typeof options === 'object' && options !== null ? options : typeof options === 'number' ? { family: options } : {};
    const family = o.family === 4 || o.family === 'IPv4' ? 4 : o.family === 6 || o.family === 'IPv6' ? 6 : 0;
    resolve(hostname).then(
      (all) => {
        const list = family ? all.filter((a) => a.family === family) : all;
        if (list.length === 0) return cb(notFound(hostname));
        if (o.all) cb(null, list);
        else cb(null, list[0].address, list[0].family);
      },
      (err: Error) => cb(err),
    );
  }) as LookupFunction;

  return {
    staticRefusal,
    hostRefusal,
    resolve,
    lookup,
    async check(url) {
      const refused = staticRefusal(url);
      if (refused) return refused;
      try {
        await resolve(new URL(url).hostname);
        return undefined;
      } catch (err) {
        return err instanceof IdsyncError && err.code === ENDPOINT_REFUSED ? String(err.details?.reason) : undefined;
      }
    },
  };
}
