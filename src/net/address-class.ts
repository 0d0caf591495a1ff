// What kind of address an IP address is, for deciding whether we may connect to it on someone
// else's say-so (a DID document's endpoint, a webhook URL, a did:web host, a status list URL).
// Pure: no DNS, no sockets. Addresses that embed an IPv4 address (IPv4-mapped and -compatible,
// NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32) are judged by the IPv4
// address they reach, so a forbidden address cannot be dressed up as IPv6.
import { isIP } from 'node:net';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  /** Documentation, benchmarking, discard-only and other special-purpose ranges (RFC 6890). */
  | 'reserved';

/** Cloud instance metadata services at addresses outside 169.254/16 (Alibaba, AWS IPv6, Oracle, Azure WireServer). */
const METADATA_V4 = new Set(['100.100.100.200', '192.0.0.192', '168.63.129.16']);
/** AWS IMDS over IPv6 (fd00:ec2::254), in canonical group form. */
const METADATA_V6 = new Set(['fd00:ec2:0:0:0:0:0:254']);

/** Worst first: when one address stands for another, the stricter class wins. */
const SEVERITY: AddressClass[] = ['metadata', 'link-local', 'unspecified', 'multicast', 'reserved', 'loopback', 'private', 'public'];

/** The stricter of two classes (the one earlier in SEVERITY). */
export function stricter(a: AddressClass, b: AddressClass): AddressClass {
  return SEVERITY.indexOf(a) <= SEVERITY.indexOf(b) ? a : b;
}

function v4Octets(address: string): number[] | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : undefined;
}

/** RFC 6890 and the cloud metadata addresses; `address` is dotted-quad. */
function classifyV4([a, b, c, d]: number[]): AddressClass {
  const text = `${a}.${b}.${c}.${d}`;
  if (METADATA_V4.has(text)) return 'metadata';
  if (a === 169 && b === 254) return c === 169 && d === 254 ? 'metadata' : 'link-local';
  if (a === 0) return 'unspecified'; // 0/8 "this network": 0.0.0.0 reaches the local host on Linux
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return 'private';
  if (a >= 224) return a < 240 ? 'multicast' : 'reserved'; // 224/4 multicast; 240/4 and broadcast
  if ((a === 192 && b === 0 && (c === 0 || c === 2)) || (a === 198 && (b === 18 || b === 19)) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) {
    return 'reserved'; // 192.0.0/24 protocol assignments, TEST-NETs, 198.18/15 benchmarking
  }
  return 'public';
}

/** The 8 groups of an IPv6 address (zone id dropped), or undefined when it is not one. */
export function v6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(text) !== 6) return undefined;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const o = v4Octets(tail[1]);
    if (!o) return undefined;
    text = text.slice(0, -tail[1].length) + `${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':') : [];
  const t = rest ? rest.split(':') : [];
  const fill = rest === undefined ? [] : new Array(Math.max(0, 8 - h.length - t.length)).fill('0');
  const groups = [...h, ...fill, ...t].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

const v4Of = (hi: number, lo: number): number[] => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
const zero = (g: number[], from: number, to: number) => g.slice(from, to).every((x) => x === 0);

function classifyV6(g: number[]): AddressClass {
  if (METADATA_V6.has(g.map((x) => x.toString(16)).join(':'))) return 'metadata';
  if (zero(g, 0, 8)) return 'unspecified';
  if (zero(g, 0, 7) && g[7] === 1) return 'loopback';
  // ::ffff:a.b.c.d (IPv4-mapped), ::ffff:0:a.b.c.d (IPv4-translated) and the deprecated ::a.b.c.d.
  if (zero(g, 0, 5) && (g[5] === 0xffff || g[5] === 0)) return classifyV4(v4Of(g[6], g[7]));
  if (zero(g, 0, 4) && g[4] === 0xffff && g[5] === 0) return classifyV4(v4Of(g[6], g[7]));
  // RFC 6052 NAT64 well-known prefix 64:ff9b::/96: the last 32 bits are the IPv4 address reached.
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(g, 2, 6)) return classifyV4(v4Of(g[6], g[7]));
  // RFC 8215 local-use NAT64 64:ff9b:1::/48: a private network's translator, whatever it embeds.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return stricter('private', classifyV4(v4Of(g[6], g[7])));
  // RFC 3056 6to4 2002::/16: bits 16-47 are the IPv4 address of the relay it reaches.
  if (g[0] === 0x2002) return classifyV4(v4Of(g[1], g[2]));
  // RFC 4380 Teredo 2001::/32: the client's IPv4 address is the last 32 bits, inverted.
  if (g[0] === 0x2001 && g[1] === 0) return classifyV4(v4Of(~g[6] & 0xffff, ~g[7] & 0xffff));
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xffc0) === 0xfec0 || (g[0] & 0xfe00) === 0xfc00) return 'private'; // site-local (deprecated), unique local
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  if ((g[0] === 0x2001 && g[1] === 0xdb8) || (g[0] === 0x100 && zero(g, 1, 4))) return 'reserved'; // documentation, discard-only
  return 'public';
}

/** The class of an IP address (v4 dotted-quad, or v6 with or without brackets); undefined for anything else. */
export function classifyAddress(address: string): AddressClass | undefined {
  const v4 = isIP(address) === 4 ? v4Octets(address) : undefined;
  if (v4) return classifyV4(v4);
  const v6 = v6Groups(address);
  return v6 ? classifyV6(v6) : undefined;
}

/** Names of metadata services, answered by the cloud's own resolver. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal', 'metadata.azure.internal']);

/**
 * What a host name says about itself before any lookup: an IP literal's class; `metadata` for
 * metadata service names; `loopback` for localhost (RFC 6761 §6.3); and for names that embed an
 * IPv4 address the way wildcard DNS services answer them (`169.254.169.254.nip.io`,
 * `10-0-0-1.sslip.io`), the embedded address's class when it is not public. Undefined when only
 * a lookup can tell.
 */
export function classifyHostName(hostname: string): AddressClass | undefined {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const literal = classifyAddress(host);
  if (literal) return literal;
  if (METADATA_NAMES.has(host)) return 'metadata';
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  let worst: AddressClass | undefined;
  for (const m of host.matchAll(/(?:^|[.-])(\d{1,3})[.-](\d{1,3})[.-](\d{1,3})[.-](\d{1,3})(?=$|[.-])/g)) {
    const o = v4Octets(m.slice(1, 5).join('.'));
    const cls = o ? classifyV4(o) : undefined;
    if (cls && cls !== 'public') worst = worst ? stricter(worst, cls) : cls;
  }
  return worst;
}
