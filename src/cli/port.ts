// A TCP port given on the command line: a whole number 0-65535, 0 meaning any free port.
import { usageError } from './errors.js';

/** The port `value` names, or a usage error that names `flag`. */
export function parsePort(flag: string, value: string): number {
  const port = Number(value);
  if (value.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535) throw usageError('invalid_argument', `${flag} must be a port 0-65535: ${value}`);
  return port;
}
