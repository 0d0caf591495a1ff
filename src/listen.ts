// Listening on a TCP address, for every server idsync runs (the service, the wallet's DIDComm
// endpoints, the wallet serve control API, the testbed's webhook receiver): the listen call, the
// address as it goes into a URL, and the OS's refusals as coded errors a user can act on.
import type { Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { IdsyncError } from './errors.js';

/** `host` as it stands in a URL: IPv6 literals in brackets (RFC 3986 §3.2.2). */
export function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The host of a URL that reaches a server listening on `host`: a wildcard bind address is not
 * something clients can reach, so the loopback is named instead.
 */
export function reachableUrlHost(host: string): string {
  return urlHost(host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host);
}

/**
 * The OS's refusal to listen on host:port as a coded error: `address_in_use` (EADDRINUSE: another
 * process listens there) and `address_not_available` (EADDRNOTAVAIL: no such local address;
 * ENOTFOUND: a name that does not resolve), each with what to do. Anything else comes back as it was.
 */
export function listenError(err: unknown, host: string, port: number, hint = 'stop it, or listen on another port'): unknown {
  const code = (err as { code?: unknown })?.code;
  if (code === 'EADDRINUSE') return addressInUse(host, port, hint, err);
  if (code === 'EADDRNOTAVAIL') {
    return new IdsyncError('address_not_available', `${host} is not an address of this machine: listen on one of its addresses (127.0.0.1, or 0.0.0.0 for all)`, { details: { host, port }, cause: err });
  }
  // A host name that does not resolve (getaddrinfo): no address to listen on either.
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new IdsyncError('address_not_available', `${host} does not resolve to an address of this machine: listen on one of its addresses (127.0.0.1, or 0.0.0.0 for all)`, { details: { host, port }, cause: err });
  }
  return err;
}

/** `address_in_use` for host:port, with `hint` (what to do) at the end of the message. */
export function addressInUse(host: string, port: number, hint: string, cause?: unknown): IdsyncError {
  return new IdsyncError('address_in_use', `${urlHost(host)}:${port} is already in use by another process: ${hint}`, { details: { host, port, hint }, cause });
}

/** Listens on host:port (0: any free port) and resolves with the port bound; refusals as listenError. */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const failed = (err: unknown) => reject(listenError(err, host, port));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
