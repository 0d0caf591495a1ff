// What the mediator accepts, as options (`idsync mediator --deny … --max-keys … --max-queue …`):
// who may not get mediation, how many recipient DIDs a party may register, how many messages wait
// per recipient, how large a forwarded message may be, how long a forward may ask to be held back
// (routing 2.0 delay_milli), and whether a forward for a party beyond this mediator is passed on.
// Each refusal has its own coded error (src/errors/catalogue.ts) and so its own problem code.
import { matchesPattern } from '../protocols/registry.js';
import { DEFAULT_QUEUE_MAX_PER_RECIPIENT } from './queue.js';

export interface MediatorPolicy {
  /** Requester DIDs that get mediate-deny: patterns where `*` matches any run of characters (`did:key:*`). */
  deny: string[];
  /**
   * Recipient DIDs one party may register (default 1000). Each pickup request without
   * recipient_did reaches every one of them, so an unbounded keylist would let one party make
   * each of its requests as costly as it likes.
   */
  maxKeys: number;
  /** Messages one recipient may have waiting (default 1000). */
  maxQueue: number;
  /** Largest forwarded message, in bytes of its packed form (default 256 KiB). */
  maxMessageBytes: number;
  /** Longest delay_milli honoured (default 1 hour); a longer one is refused. */
  maxDelayMs: number;
  /**
   * A forward whose `next` no recipient registered here is passed to the DIDComm endpoint of that
   * DID when it names one (routing 2.0: "onwards to another mediator"). Default false: on, anyone
   * may have the mediator POST what they like to any endpoint its address policy allows (an open
   * relay), so it is a choice for a mediator in a chain, not a default.
   */
  onwards: boolean;
}

export const DEFAULT_MAX_KEYS = 1000;
export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024;
export const DEFAULT_MAX_DELAY_MS = 3600 * 1000;

export function mediatorPolicy(given: Partial<MediatorPolicy> = {}): MediatorPolicy {
  return {
    deny: [...(given.deny ?? [])],
    maxKeys: given.maxKeys ?? DEFAULT_MAX_KEYS,
    maxQueue: given.maxQueue ?? DEFAULT_QUEUE_MAX_PER_RECIPIENT,
    maxMessageBytes: given.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    maxDelayMs: given.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
    onwards: given.onwards ?? false,
  };
}

/** The deny pattern `did` matches, or undefined when it may get mediation. */
export function deniedBy(policy: Pick<MediatorPolicy, 'deny'>, did: string): string | undefined {
  return policy.deny.find((pattern) => matchesPattern(pattern, did));
}
