// DIDComm v2.1 §Message Headers: "The `id` attribute value MUST be unique to the sender, across all
// messages they send." A rule over many messages of one sender (a conversation, a conformance run),
// so it keeps what it has seen: a second message with a known id breaks it when its content differs
// (two messages, one id); the same message sent again (a retry, a resend after a lost answer) does
// not. A receiver's refusal of replays is another matter (plaintext.id-replayed, idsync's profile).
import type { PlainMessage } from '../didcomm/types.js';
import { b64uEncode, jcs, sha256 } from '../encoding.js';
import { check, type ConformanceResult } from './types.js';

export interface SenderIdCheck {
  /** Judges `message`, sent by `sender` (default: its from), against every message seen before it. */
  check(message: PlainMessage, sender?: string): ConformanceResult | undefined;
  /** How many distinct (sender, id) pairs it holds. */
  readonly size: number;
}

/** The digest of a message's content, whatever the order of its members. */
function contentOf(message: PlainMessage): string {
  try {
    return b64uEncode(sha256(jcs(message)));
  } catch {
    return `unhashable:${String(message.id)}`;
  }
}

/**
 * A fresh check; `max` bounds what it keeps (the oldest pairs are forgotten first), as the ids
 * come from outside.
 */
export function createSenderIdCheck(max = 100_000): SenderIdCheck {
  const seen = new Map<string, string>();
  return {
    check(message, sender = typeof message.from === 'string' ? message.from : '') {
      if (typeof message.id !== 'string' || message.id === '') return undefined;
      const key = `${sender} ${message.id}`;
      const content = contentOf(message);
      const before = seen.get(key);
      if (before === undefined) {
        if (seen.size >= max) seen.delete(seen.keys().next().value!);
        seen.set(key, content);
      }
      return check('plaintext', 'plaintext.id-unique', before === undefined || before === content, `${sender || 'the sender'} sent two different messages with id ${message.id}`);
    },
    get size() {
      return seen.size;
    },
  };
}
