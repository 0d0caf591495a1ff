// The wallet's outbound address policy (src/net): where it may connect on others' say-so.
import type { AddressPolicy } from '../net/address-policy.js';

/** Loopback yes (the local service twin runs there), private ranges no; link-local and metadata never. */
export const DEFAULT_WALLET_ADDRESSES: Required<AddressPolicy> = { allowLoopback: true, allowPrivate: false };
