// A port for a server that a testbed restarts on the same address (its DID names the port).
// listen(0) draws from the kernel's ephemeral range, the range outbound connections draw their
// local ports from too: once the server is down, any connection on the machine may take that port
// as its local end, and the restart then fails with EADDRINUSE. A port below that range is taken
// only by another server listening on it, which a retry with another port survives.
import { readFileSync } from 'node:fs';
import { IdsyncError } from '../errors.js';

const ATTEMPTS = 20;

/** Starts a server with `start(port)` on a port below the ephemeral range, trying another port when the chosen one is in use. */
export async function startOnRestartablePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(restartablePort());
    } catch (err) {
      if (attempt >= ATTEMPTS || !isAddressInUse(err)) throw err;
    }
  }
}

/**
 * The ports the Fetch standard (§2.9 "port blocking", its list of bad ports) refuses to connect
 * to, above 1023: a server listening on one is unreachable by fetch ("fetch failed", cause "bad
 * port"), so every HTTP client of ours would fail against it.
 */
export const FETCH_BAD_PORTS: ReadonlySet<number> = new Set([1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080]);

/** A random port of restartableRange() that fetch can reach; not checked otherwise: the listen is the check. */
export function restartablePort(random: () => number = Math.random): number {
  const { from, to } = restartableRange();
  let port = from + Math.floor(random() * (to - from));
  // The next one instead (a range is never all bad ports).
  while (FETCH_BAD_PORTS.has(port)) port = port + 1 < to ? port + 1 : from;
  return port;
}

function isAddressInUse(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'EADDRINUSE' || (err instanceof IdsyncError && err.code === 'address_in_use');
}

let range: { from: number; to: number } | undefined;

/**
 * Ports [from, to) outside the kernel's ephemeral range: below it when it starts above 11000 (as
 * Linux's default 32768–60999, and 49152–65535 elsewhere), else above it when it ends below
 * 64536; a range covering both leaves nothing safe, and then the whole unprivileged range.
 */
export function restartableRange(): { from: number; to: number } {
  if (range) return range;
  let low = 32_768; // Linux's default; macOS and Windows ranges start higher (49152).
  let high = 60_999;
  try {
    const [a, b] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(a) && Number.isInteger(b) && a! <= b!) [low, high] = [a!, b!];
  } catch {
    // No such file (not Linux): the default stands.
  }
  return (range = portsOutside(low, high));
}

/** restartableRange() for an ephemeral range [low, high]. */
export function portsOutside(low: number, high: number): { from: number; to: number } {
  if (low > 11_000) return { from: Math.min(10_000, low - 1_000), to: low };
  if (high < 64_536) return { from: high + 1, to: 65_536 };
  return { from: 1_024, to: 65_536 };
}
