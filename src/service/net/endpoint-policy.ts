// Which URLs the service may send to on someone else's say-so: DIDComm endpoints named in a
// peer's DID document (didcomm/outbound.ts) and webhook subscription URLs (webhooks/subscriptions.ts).
// A URL whose host is a literal IP address (or `localhost`) is classified by its address;
// hostnames are NOT resolved, so a name that resolves to a private or link-local address is
// not caught (docs/service.md "Outbound endpoints"). Link-local addresses (169.254.0.0/16,
// fe80::/10, where cloud metadata services live) and the known metadata hosts are refused
// always; loopback and private ranges only when the policy allows them.
import { isIP } from 'node:net';

export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'name';

export interface EndpointPolicy {
  /** 127.0.0.0/8, ::1 and `localhost`: wallets of this local twin run there (default true). */
  allowLoopback?: boolean;
  /** 10/8, 172.16/12, 192.168/16, 100.64/10 (shared), fc00::/7 (unique local) (default false). */
  allowPrivate?: boolean;
}

export const DEFAULT_ENDPOINT_POLICY: Required<EndpointPolicy> = { allowLoopback: true, allowPrivate: false };

/** Webhook URLs: only link-local and metadata addresses are refused (subscribers are configured by an admin). */
export const WEBHOOK_ENDPOINT_POLICY: Required<EndpointPolicy> = { allowLoopback: true, allowPrivate: true };

/** Cloud metadata services reachable by name or by an address outside 169.254/16 (AWS IPv6, Alibaba). */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);
const METADATA_ADDRESSES = new Set(['100.100.100.200', 'fd00:ec2::254', '192.0.0.192']);

function ipv4Octets(address: string): number[] {
  return address.split('.').map((p) => Number(p));
}

function classifyIpv4(address: string): AddressClass {
  if (METADATA_ADDRESSES.has(address)) return 'metadata';
  const [a, b] = ipv4Octets(address);
  if (a === 0) return 'unspecified'; // 0.0.0.0/8 "this network": 0.0.0.0 reaches the local host on Linux
  if (a === 127) return 'loopback';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return 'private';
  if (a >= 224) return 'multicast'; // 224/4 multicast and 240/4 reserved, broadcast
  return 'public';
}

/** The 8 groups of an IPv6 address as numbers (the URL parser has already normalised it). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = ipv4Octets(v4[1]);
    text = text.slice(0, -v4[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array(Math.max(0, 8 - h.length - t.length)).fill('0');
  const groups = [...h, ...fill, ...t].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

function classifyIpv6(address: string): AddressClass {
  const g = ipv6Groups(address);
  if (!g) return 'unspecified';
  const canonical = g.map((x) => x.toString(16)).join(':');
  if (canonical === 'fd00:ec2:0:0:0:0:0:254') return 'metadata';
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible form: the embedded address decides.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    return classifyIpv4(`${g[6] >> 8}.${g[6] & 0xff}.${g[7] >> 8}.${g[7] & 0xff}`);
  }
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xfe00) === 0xfc00) return 'private';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  return 'public';
}

/** How the host of a URL is classified (without DNS). */
export function classifyHost(hostname: string): AddressClass {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (METADATA_HOSTS.has(host)) return 'metadata';
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  const kind = isIP(host);
  if (kind === 4) return classifyIpv4(host);
  if (kind === 6) return classifyIpv6(host);
  return 'name';
}

/** Why `url` may not be sent to under `policy`, or undefined when it may. Non-network schemes (memory:) pass. */
export function endpointRefusal(url: string, policy: EndpointPolicy = DEFAULT_ENDPOINT_POLICY): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(u.protocol)) return undefined;
  const kind = classifyHost(u.hostname);
  const allowLoopback = policy.allowLoopback ?? DEFAULT_ENDPOINT_POLICY.allowLoopback;
  const allowPrivate = policy.allowPrivate ?? DEFAULT_ENDPOINT_POLICY.allowPrivate;
  switch (kind) {
    case 'public':
    case 'name':
      return undefined;
    case 'loopback':
      return allowLoopback ? undefined : 'loopback addresses are not allowed';
    case 'private':
      return allowPrivate ? undefined : 'private network addresses are not allowed';
    case 'link-local':
      return 'link-local addresses (cloud metadata) are never allowed';
    case 'metadata':
      return 'cloud metadata endpoints are never allowed';
    case 'unspecified':
      return 'unspecified addresses are not allowed';
    case 'multicast':
      return 'multicast and reserved addresses are not allowed';
  }
}
