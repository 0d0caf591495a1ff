// Connections recipients asked to receive on (Message Pickup 3.0 §Live Mode): by DID, the push
// functions of the persistent connections (WebSockets) that asked, the latest last. "If Live Mode
// is active, and the connection is broken, a new inbound connection starts with Live Mode
// disabled": a push that fails, or a connection that closes (forget), ends that connection's
// binding. A party live on two connections keeps receiving on the older one when the newer ends:
// it was told live_delivery true there, and that connection is not broken.
import { shortForm } from '../did/short-form.js';

export type Push = (packed: string) => Promise<void>;

export interface LiveRoutes {
  bind(did: string, push: Push): void;
  /** Live mode off: on connection `push` only, or on every connection of `did`. */
  unbind(did: string, push?: Push): void;
  has(did: string): boolean;
  /** Whether connection `push` is live for `did`. */
  bound(did: string, push: Push): boolean;
  /** Sends on the latest bound connection that takes it; false (and those unbound) when none does. */
  push(did: string, packed: string): Promise<boolean>;
  /** A connection closed: every DID bound to `push` is unbound from it. */
  forget(push: Push): void;
}

/** `ended`: told the (short-form) DID whose last live connection ended by a close, a failed push or an unbind. */
export function liveRoutes(o: { ended?: (did: string) => void } = {}): LiveRoutes {
  const sockets = new Map<string, Push[]>();
  const drop = (key: string, push: Push) => {
    const list = sockets.get(key);
    if (!list) return;
    const rest = list.filter((p) => p !== push);
    if (rest.length) sockets.set(key, rest);
    else {
      sockets.delete(key);
      o.ended?.(key);
    }
  };
  return {
    bind(did, push) {
      const key = shortForm(did);
      sockets.set(key, [...(sockets.get(key) ?? []).filter((p) => p !== push), push]);
    },
    unbind(did, push) {
      const key = shortForm(did);
      if (push) drop(key, push);
      else sockets.delete(key);
    },
    has: (did) => sockets.has(shortForm(did)),
    bound: (did, push) => sockets.get(shortForm(did))?.includes(push) ?? false,
    async push(did, packed) {
      const key = shortForm(did);
      for (;;) {
        const list = sockets.get(key);
        const push = list?.[list.length - 1];
        if (!push) return false;
        try {
          await push(packed);
          return true;
        } catch {
          drop(key, push);
        }
      }
    },
    forget(push) {
      for (const key of [...sockets.keys()]) drop(key, push);
    },
  };
}
