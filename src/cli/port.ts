// A TCP port given on the command line: a whole number 0-65535, 0 meaning any free port; and the
// address to listen on.
import { usageError } from './errors.js';

/** The port `value` names, or a usage error that names `flag`. */
export function parsePort(flag: string, value: string): number {
  const port = Number(value);
  // Decimal digits only: Number() also reads 0x50 (port 80) and 1e3.
  if (!/^\s*\d+\s*$/.test(value) || !Number.isInteger(port) || port < 0 || port > 65535) throw usageError('invalid_argument', `${flag} must be a port 0-65535: ${value}`);
  return port;
}

/**
 * The address `--host` names: not empty, as an empty host makes node listen on every interface
 * while the command prints 127.0.0.1. (Whether the address exists is found out by listening.)
 */
export function parseHost(value: string): string {
  const host = value.trim();
  if (host === '' || /\s/.test(host)) throw usageError('invalid_argument', `--host must be an address or host name to listen on, such as 127.0.0.1: ${JSON.stringify(value)}`);
  return host;
}
