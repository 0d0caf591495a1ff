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

/** A random port in [10000, start of the ephemeral range); not checked: the listen is the check. */
export function restartablePort(): number {
  const low = ephemeralLow();
  const from = Math.min(10_000, low - 1_000);
  return from + Math.floor(Math.random() * (low - from));
}

function isAddressInUse(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'EADDRINUSE' || (err instanceof IdsyncError && err.code === 'address_in_use');
}

let low: number | undefined;
function ephemeralLow(): number {
  if (low !== undefined) return low;
  try {
    const n = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    low = Number.isInteger(n) && n > 11_000 && n <= 65_535 ? n : 32_768;
  } catch {
    low = 32_768; // Linux's default lower bound; macOS and Windows ranges start higher (49152).
  }
  return low;
}
