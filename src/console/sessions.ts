// Console sign-in sessions, in memory: a session id is 32 random bytes (base64url) handed to the
// browser once, in a cookie; only its SHA-256 is kept, and a presented id is found by its hash and
// then compared in constant time. Sessions end at logout, after `ttlMs` (injected clock), and the
// oldest go first beyond `max`. A restart signs everyone out.
import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import { b64uEncode, randomId, sha256 } from '../encoding.js';
import { setBounded } from '../bounded.js';

/** Who signed in: a service client of a tenant, or the wallet's owner. */
export interface Principal {
  /** The client id (service), or the party a console on its own port shows ('wallet', 'mediator'). */
  subject: string;
  tenantId?: string;
}

export interface Sessions {
  /** Starts a session; returns the id to hand to the browser (never stored as such). */
  create(principal: Principal): string;
  /** The principal of a live session, or undefined. */
  get(id: string | undefined): Principal | undefined;
  delete(id: string | undefined): void;
  readonly size: number;
}

export const SESSION_TTL_MS = 12 * 3600 * 1000;
const MAX_SESSIONS = 1000;

interface Stored {
  hash: Buffer;
  principal: Principal;
  expiresAt: number;
}

const hashOf = (id: string): Buffer => Buffer.from(sha256(id));

export function createSessions(o: { clock: Clock; ttlMs?: number; max?: number }): Sessions {
  const ttl = o.ttlMs ?? SESSION_TTL_MS;
  const byHash = new Map<string, Stored>();
  return {
    create(principal) {
      const id = randomId(32);
      const hash = hashOf(id);
      setBounded(byHash, b64uEncode(hash), { hash, principal, expiresAt: o.clock.now() + ttl }, o.max ?? MAX_SESSIONS);
      return id;
    },
    get(id) {
      if (typeof id !== 'string' || id.length === 0 || id.length > 128) return undefined;
      const hash = hashOf(id);
      const key = b64uEncode(hash);
      const s = byHash.get(key);
      if (!s || !timingSafeEqual(s.hash, hash)) return undefined;
      if (o.clock.now() >= s.expiresAt) {
        byHash.delete(key);
        return undefined;
      }
      return s.principal;
    },
    delete(id) {
      if (typeof id === 'string') byHash.delete(b64uEncode(hashOf(id)));
    },
    get size() {
      return byHash.size;
    },
  };
}
