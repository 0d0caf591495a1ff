// A URL given on the command line: parsed, its scheme one the option can use, and a host named.
// Checked before anything starts, so a wrong scheme is a usage error (exit 2) and not a URL put
// into a DID document, an invitation or a running server's configuration.
import { usageError } from './errors.js';

/** http(s): where the service, the mediator and the SMS gateway are reached. */
export const HTTP_SCHEMES = ['http:', 'https:'] as const;
/**
 * A DIDComm endpoint's `uri`: DIDComm Messaging v2.1 §Service Endpoint, "MUST contain a URI for a
 * transport specified in the [transports] section of this spec", and §Transports names HTTPS and
 * WebSockets. (A DID as the endpoint is the other form the section allows; the commands that
 * take one say so.)
 */
export const DIDCOMM_SCHEMES = ['http:', 'https:', 'ws:', 'wss:'] as const;
/** An SMTP server: what nodemailer's transports take. */
export const SMTP_SCHEMES = ['smtp:', 'smtps:'] as const;

/** `value` as a URL of one of `schemes` with a host, or a usage error naming `flag`. */
export function parseUrlOption(flag: string, value: string, schemes: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError('invalid_argument', `${flag} is not a URL: ${value}`);
  }
  const names = schemes.map((s) => s.replace(/:$/, '')).join(', ');
  if (!schemes.includes(url.protocol)) throw usageError('invalid_argument', `${flag} must be a URL of ${names}: ${value}`);
  if (url.hostname === '') throw usageError('invalid_argument', `${flag} names no host: ${value}`);
  return url;
}

/**
 * `value` as the public base URL of a server idsync runs (the service, the mediator): what its
 * paths are appended to (`/didcomm`, `/invitation`, `/.well-known/did.json`), so no query, no
 * fragment and no user name or password, which would end up inside those URLs and the DID.
 */
export function parseBaseUrlOption(flag: string, value: string, schemes: readonly string[]): URL {
  const url = parseUrlOption(flag, value, schemes);
  if (url.search !== '' || value.includes('?')) throw usageError('invalid_argument', `${flag} is a base URL, without a query: ${value}`);
  if (url.hash !== '' || value.includes('#')) throw usageError('invalid_argument', `${flag} is a base URL, without a fragment: ${value}`);
  if (url.username !== '' || url.password !== '') throw usageError('invalid_argument', `${flag} must not carry a user name or password (not repeated here)`);
  return url;
}
