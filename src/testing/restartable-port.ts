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

/** A random port of restartableRange(); not checked: the listen is the check. */
export function restartablePort(): number {
  const { from, to } = restartableRange();
  return from + Math.floor(Math.random() * (to - from));
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
