// The wallet's events and the promises built on them, so that callers (QA tests, the CLI) await
// states instead of sleeping. Each wait has a guard timeout that fails loudly, never a delay.
import { EventEmitter } from 'node:events';
import type { PlainMessage, EnvelopeMode } from '../didcomm/types.js';
import type { ConformanceResult } from '../conformance/types.js';
import type { ParsedProblem } from '../protocols/report-problem.js';
import type { ConnectionRecord } from '../store/connections.js';
import { waitForEvent as waitForAnyEvent, type WaitOptions } from '../wait.js';
import type { RejectedCredential, StoredCredential } from './credential-store.js';
import type { PendingItem } from './policies.js';

export interface WalletEventMap {
  /** A Data Pipe reached `established`. */
  'connection-established': { connection: ConnectionRecord };
  /** A credential passed every check and was stored (and acked). */
  'credential-received': { credential: StoredCredential; replaced?: string };
  /** refreshCredentialStatus() found a stored credential revoked, suspended, or valid again. */
  'credential-status-changed': { credential: StoredCredential; previous: string };
  /** A credential failed a check: report-problem e.p.msg.credential-invalid was sent. */
  'credential-refused': { thid: string; failedCheck: string; code?: string; rejected: RejectedCredential };
  /** An offer the wallet asked for arrived (before it is answered or held): e.g. a sync's DID authentication passed. */
  'offer-received': { thid: string; from: string };
  /** An offer waits for approve/decline (manual policy). */
  'offer-pending': { item: PendingItem };
  /** A proof request waits for approve/decline (proofRequests: 'manual'). */
  'proof-request-pending': { item: PendingItem };
  /** An out-of-band invitation arrived as a DIDComm message; it waits as a pending item (approve = accept). */
  'invitation-received': { item: PendingItem };
  /** `invitations: 'auto'` could not accept an invitation that arrived: it stays pending. */
  'auto-accept-failed': { item: PendingItem; code: string; message: string };
  /** A live WebSocket to a peer closed (goLive must be called again). */
  'live-ended': { peer: string; endpoint: string };
  /**
   * Behind a mediator, the running wallet changed how it collects: 'polling' when its live socket
   * ended (live mode is tried again on each round), 'live' when it is back.
   */
  'collecting-changed': { mediator: string; mode: 'live' | 'polling' };
  /**
   * Messages a pickup delivered were left queued at `peer`, not confirmed: their handling failed
   * in a way that may pass, or another copy was still being handled. A later pickup brings them again.
   */
  'pickup-left-queued': { peer: string; count: number };
  /**
   * A messages-received went to `peer` on a live socket; its status (which says the messages are
   * gone) comes back on the socket later. `ackId`: the messages-received's id.
   */
  'pickup-confirmed-live': { peer: string; ackId: string; count: number };
  /** A DID-auth presentation was sent. */
  'presentation-sent': { thid: string; domain: string; challenge: string };
  /** A thread ended: issuance or proof `done`, or `abandoned` after a problem. */
  'thread-ended': { thid: string; protocol: string; state: string };
  'problem-received': { problem: ParsedProblem; message: PlainMessage };
  /** Every message in or out (also in the message log). */
  message: {
    direction: 'in' | 'out';
    message?: PlainMessage;
    mode?: EnvelopeMode;
    /** in: the router's status (handled, duplicate, rejected, ...); out: 'sent'. */
    status: string;
    problemCode?: string;
    conformance?: ConformanceResult[];
    /** The message as it travelled (envelope and all): as received, or as sent. */
    packed?: string;
  };
}

export type WalletEventName = keyof WalletEventMap;

export type { WaitOptions };

/** Resolves with the first `event` payload that passes `predicate` (wait.ts waitForEvent, typed by event name). */
export function waitForEvent<K extends WalletEventName>(
  emitter: EventEmitter,
  event: K,
  predicate: (data: WalletEventMap[K]) => boolean = () => true,
  options: WaitOptions = {},
): Promise<WalletEventMap[K]> {
  return waitForAnyEvent<WalletEventMap[K]>(emitter, event, predicate, options);
}

/** An EventEmitter with the wallet's event names and payload types. */
export class WalletEvents extends EventEmitter {
  override emit<K extends WalletEventName>(event: K, data: WalletEventMap[K]): boolean {
    return super.emit(event, data);
  }
  override on<K extends WalletEventName>(event: K, listener: (data: WalletEventMap[K]) => void): this {
    return super.on(event, listener);
  }
  override once<K extends WalletEventName>(event: K, listener: (data: WalletEventMap[K]) => void): this {
    return super.once(event, listener);
  }
  override off<K extends WalletEventName>(event: K, listener: (data: WalletEventMap[K]) => void): this {
    return super.off(event, listener);
  }
}
