// Which address classes a caller may connect to: link-local, cloud metadata, unspecified,
// multicast and reserved addresses never; loopback and private ranges as the policy says.
import type { AddressClass } from './address-class.js';

export interface AddressPolicy {
  /** 127.0.0.0/8, ::1 and `localhost` (and what embeds them). */
  allowLoopback?: boolean;
  /** 10/8, 172.16/12, 192.168/16, 100.64/10 (shared), fc00::/7 (unique local), fec0::/10, local-use NAT64. */
  allowPrivate?: boolean;
}

/** Why `cls` may not be connected to under `policy`, or undefined when it may. */
export function classRefusal(cls: AddressClass, policy: AddressPolicy): string | undefined {
  switch (cls) {
    case 'public':
      return undefined;
    case 'loopback':
      return policy.allowLoopback ? undefined : 'loopback addresses are not allowed';
    case 'private':
      return policy.allowPrivate ? undefined : 'private network addresses are not allowed';
    case 'link-local':
      return 'link-local addresses (cloud metadata) are never allowed';
    case 'metadata':
      return 'cloud metadata endpoints are never allowed';
    case 'unspecified':
      return 'unspecified addresses are not allowed';
    case 'multicast':
      return 'multicast addresses are not allowed';
    case 'reserved':
      return 'reserved (special-purpose) addresses are not allowed';
  }
}
