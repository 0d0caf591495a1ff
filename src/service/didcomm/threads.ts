// Durable per-thread state of the service's protocol threads (present-proof DID-auth and
// issue-credential): the protocol thread record (protocols/thread-state.ts: state machine
// position, peer, message ids) plus what the service needs to continue after a restart
// (challenge, datapoints, owner).
import type { FlatDatapoints } from '../../credentials/datapoints.js';
import type { CredentialFormat } from '../../credentials/types.js';
import { threadId } from '../../didcomm/message.js';
import type { PlainMessage } from '../../didcomm/types.js';
import { advanceThread, requireThread, type StateMachine, type ThreadRecord } from '../../protocols/thread-state.js';
import { IdsyncError } from '../../errors.js';
import { protocolError } from '../../protocols/protocol-kit.js';
import type { BatchOp, Store } from '../../store/store.js';
import { COLLECTIONS } from './collections.js';

/** Who started a thread and gets told how it ends. */
export type ThreadOwner = { kind: 'sync'; syncId: string } | { kind: 'workflow'; workflowId: string };

export interface DcThread extends ThreadRecord {
  kind: 'auth' | 'issue';
  owner: ThreadOwner;
  tenantId: string;
  userId?: string;
  /** The wallet DID in long form (what credentials and presentations name). */
  peerLong: string;
  /** present-proof / offer options: single-use challenge and our DID as domain. */
  challenge: string;
  domain: string;
  challengeUsed?: boolean;
  definitionId?: string;
  /** issue: what is offered and how it is issued. */
  datapoints?: FlatDatapoints;
  projectId?: string;
  manifestId?: string;
  format?: CredentialFormat;
  replacementId?: string;
  credentialId?: string;
  createdAt: string;
  updatedAt: string;
}

export interface ThreadStore {
  get(thid: string): Promise<DcThread | undefined>;
  put(thread: DcThread): Promise<void>;
  /** The store write of put(thread), to go into a step's batch. */
  putOp(thread: DcThread): BatchOp;
  /**
   * The thread of an inbound message, advanced by `machine` (throws 'unknown_thread' for an
   * unknown thread or another peer, 'unexpected_message' out of order). Not stored: callers
   * store the result once every other check passed, so a refused message changes nothing.
   */
  advance(machine: StateMachine, message: PlainMessage, sender: string | undefined): Promise<DcThread>;
}

/**
 * A thread as stored: `peerLong` as 0 when it is the `peer` (the wallet's DID as the Data Pipe
 * knows it, in long form: about 1 KB, which the record held twice). Its key keeps its place.
 */
export function storedThread(thread: DcThread): DcThread {
  return thread.peerLong === thread.peer ? ({ ...thread, peerLong: 0 } as unknown as DcThread) : thread;
}

/** A stored thread as the thread it stands for (changed in place: it was just read). */
export function readThread<T extends DcThread | undefined>(stored: T): T {
  if (stored && (stored.peerLong as unknown) === 0) stored.peerLong = stored.peer!;
  return stored;
}

export function threadStore(store: Store, now: () => string): ThreadStore {
  const col = store.collection<DcThread>(COLLECTIONS.threads);
  return {
    get: async (thid) => readThread(await col.get(thid)),
    async put(thread) {
      await col.put(thread.thid, storedThread({ ...thread, updatedAt: now() }));
    },
    putOp: (thread) => ({ type: 'put', collection: COLLECTIONS.threads, key: thread.thid, value: storedThread({ ...thread, updatedAt: now() }) }),
    async advance(machine, message, sender) {
      // Thread messages must come from an authenticated sender (authcrypt or signed): the peer check needs one.
      if (!sender) throw new IdsyncError('sender_not_authenticated', 'protocol messages must be authcrypted by the wallet');
      // A problem report names its thread in pthid (DIDComm v2 §Problem Reports).
      const thid = /\/problem-report$/.test(message.type) ? (message.pthid ?? '') : threadId(message);
      const thread = requireThread(readThread(await col.get(thid)), message) as DcThread;
      // A message of another protocol naming this thread is as good as an unknown thread.
      if (thread.protocol !== machine.protocol) throw protocolError('unknown_thread', `thread ${thid} is not a ${machine.protocol} thread`, { thid });
      const next = advanceThread(machine, thread, 'receive', message, sender);
      return { ...thread, ...next };
    },
  };
}

/** The record after a message we send (state machines also track our own moves). */
export function sent<T extends DcThread>(machine: StateMachine, thread: T, message: PlainMessage): T {
  return { ...thread, ...advanceThread(machine, thread, 'send', message) };
}
