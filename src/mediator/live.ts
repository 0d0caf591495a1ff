// Connections recipients asked to receive on (Message Pickup 3.0 §Live Mode): by DID, the push
// function of the persistent connection (a WebSocket) that asked. "If Live Mode is active, and
// the connection is broken, a new inbound connection starts with Live Mode disabled": a push that
// fails, or a connection that closes (forget), ends the binding.
import { ionShortForm } from '../did/ion-form.js';

export type Push = (packed: string) => Promise<void>;

export interface LiveRoutes {
  bind(did: string, push: Push): void;
  unbind(did: string): void;
  has(did: string): boolean;
  /** Sends on the bound connection; false (and unbound) when it is gone. */
  push(did: string, packed: string): Promise<boolean>;
  /** A connection closed: every DID bound to `push` is unbound. */
  forget(push: Push): void;
}

export function liveRoutes(): LiveRoutes {
  const sockets = new Map<string, Push>();
  return {
    bind: (did, push) => void sockets.set(ionShortForm(did), push),
    unbind: (did) => void sockets.delete(ionShortForm(did)),
    has: (did) => sockets.has(ionShortForm(did)),
    async push(did, packed) {
      const key = ionShortForm(did);
      const push = sockets.get(key);
      if (!push) return false;
      try {
        await push(packed);
        return true;
      } catch {
        if (sockets.get(key) === push) sockets.delete(key);
        return false;
      }
    },
    forget(push) {
      for (const [did, p] of sockets) if (p === push) sockets.delete(did);
    },
  };
}
