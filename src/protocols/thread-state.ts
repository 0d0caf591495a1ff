// Per-thread protocol state as plain data: a machine is a table state → event → next state, a
// thread record says where one thread stands. Agents store records; these functions only decide.
// Events are `<send|receive>:<message name>`; an error problem report sent or received abandons
// any thread that has not ended (issue-credential 3.0 and present-proof 3.0 §States: every error
// moves both parties to `abandoned`). A warning (`w.` sorter, DIDComm v2 §Problem Codes) or
// e.p.msg.duplicate ("I already had that": the first copy was handled) is the event
// `<dir>:problem-notice`, which leaves the thread where it stands.
import { parseMessageType, sameDid, threadId } from '../didcomm/message.js';
import type { PlainMessage } from '../didcomm/types.js';
import { problemCodeOf } from '../errors.js';
import { protocolError } from './protocol-kit.js';

export type Direction = 'send' | 'receive';

export interface StateMachine<S extends string = string> {
  /** Protocol identifier URI. */
  protocol: string;
  role: string;
  /** The state before the first message (e.g. `start`, `invitation-received`). */
  initial: S;
  /** States after which no message is expected (`done`, `abandoned`, `closed`). */
  final: readonly S[];
  /** state → event → next state. */
  transitions: Readonly<Partial<Record<S, Readonly<Record<string, S>>>>>;
}

/** Where one thread stands; the agent persists it (JSON). */
export interface ThreadRecord<S extends string = string> {
  thid: string;
  protocol: string;
  role: string;
  state: S;
  /** The other party's DID (ion long and short forms compare equal). */
  peer?: string;
  pthid?: string;
  /** Ids of the messages seen on this thread, in order. */
  messages: string[];
}

export const ABANDONED = 'abandoned';
const PROBLEM_NAME = 'problem-report';
/** The event of a problem report that does not end its thread (see problemEndsThread). */
export const PROBLEM_NOTICE = 'problem-notice';
/** docs/protocols.md "Refusals that change no state": a replay was dropped. */
const DUPLICATE_CODE = problemCodeOf('duplicate_message');

/** The states every issue-credential 3.0 and present-proof 3.0 role has (§States). */
export type StartDoneState = 'start' | 'done' | 'abandoned';

/**
 * A machine of those protocols: threads begin in `start` and end in `done`, or in `abandoned`
 * after an error problem report; `transitions` holds the role's own states.
 */
export function startDoneMachine<S extends string>(protocol: string, role: string, transitions: StateMachine<S | StartDoneState>['transitions']): StateMachine<S | StartDoneState> {
  return { protocol, role, initial: 'start', final: ['done', 'abandoned'], transitions };
}

/**
 * Whether a problem report ends the thread it names: errors do, except e.p.msg.duplicate (and
 * its more specific descriptors), which says the first copy of a message was already handled;
 * warnings (`w.`) never do. A report without a code string counts as an error.
 */
export function problemEndsThread(message: { body?: Record<string, unknown> }): boolean {
  const code = message.body?.code;
  if (typeof code !== 'string') return true;
  if (code.startsWith('w.')) return false;
  return !(code === DUPLICATE_CODE || code.startsWith(`${DUPLICATE_CODE}.`));
}

function isProblemType(type: unknown): boolean {
  return (parseMessageType(String(type))?.name ?? String(type)) === PROBLEM_NAME;
}

/**
 * The event a message makes: `receive:offer-credential`. Problem reports give
 * `<dir>:problem-report`, or `<dir>:problem-notice` when they do not end the thread.
 */
export function eventOf(direction: Direction, message: Pick<PlainMessage, 'type'> & { body?: Record<string, unknown> }): string {
  const name = parseMessageType(String(message.type))?.name ?? String(message.type);
  if (name === PROBLEM_NAME && !problemEndsThread(message)) return `${direction}:${PROBLEM_NOTICE}`;
  return `${direction}:${name}`;
}

/** The next state, or undefined when `event` is not allowed in `state`. */
export function transition<S extends string>(machine: StateMachine<S>, state: S, event: string): S | undefined {
  // A notice is allowed in every state, ended ones too: it may concern any earlier message.
  if (event.endsWith(`:${PROBLEM_NOTICE}`)) return state;
  if (event.endsWith(`:${PROBLEM_NAME}`)) return machine.final.includes(state) ? undefined : (ABANDONED as S);
  return machine.transitions[state]?.[event];
}

/** Like transition, but throws 'unexpected_message' (→ e.p.msg.unexpected) when not allowed. */
export function nextState<S extends string>(machine: StateMachine<S>, state: S, event: string): S {
  const next = transition(machine, state, event);
  if (next === undefined) {
    throw protocolError('unexpected_message', `${event} is not expected in state ${state} (${machine.role} of ${machine.protocol})`, {
      state,
      event,
      role: machine.role,
    });
  }
  return next;
}

/**
 * A new thread record from the first message we send or receive. The message must be one the
 * machine accepts in its initial state, else 'unexpected_message' (e.g. an `ack` with no thread).
 */
export function startThread<S extends string>(machine: StateMachine<S>, direction: Direction, message: PlainMessage, peer?: string): ThreadRecord<S> {
  const state = nextState(machine, machine.initial, eventOf(direction, message));
  const record: ThreadRecord<S> = { thid: threadId(message), protocol: machine.protocol, role: machine.role, state, messages: [message.id] };
  const other = peer ?? (direction === 'receive' ? message.from : message.to?.[0]);
  if (other) record.peer = other;
  if (message.pthid) record.pthid = message.pthid;
  return record;
}

/**
 * The record after `message` (sent or received) on its thread; the input is not changed.
 * Refuses with 'unknown_thread' (→ e.p.msg.unknown-thread) a message of another thread or, on
 * receive, from another DID than the thread's peer; with 'unexpected_message' one out of order.
 */
export function advanceThread<S extends string>(
  machine: StateMachine<S>,
  record: ThreadRecord<S>,
  direction: Direction,
  message: PlainMessage,
  sender?: string,
): ThreadRecord<S> {
  // A problem report names its thread in pthid (DIDComm v2 §Problem Reports).
  const isProblem = isProblemType(message.type);
  const thid = isProblem ? message.pthid : threadId(message);
  if (thid !== record.thid) {
    throw protocolError('unknown_thread', `message ${message.id} is not on thread ${record.thid}`, { thid: thid ?? null });
  }
  // Only a sender the envelope proves (authcrypt, or a signature) is the thread's peer: a `from`
  // header anyone can write moves nothing (DIDComm v2.1 §Message Encryption: "Only authcrypt
  // provides direct assurances of who the sender is"). A stranger naming the peer in `from`
  // could otherwise end the peer's threads with a report, or answer for it.
  if (direction === 'receive' && record.peer && !sameDid(sender, record.peer)) {
    throw protocolError('unknown_thread', `thread ${record.thid} is with another DID than ${sender === undefined ? 'an unauthenticated sender' : sender}`, { thid });
  }
  // A message this thread already took (its id is recorded: a copy redelivered after a crash kept
  // its id from being marked seen) is a replay, not a message out of order: e.p.msg.duplicate,
  // which ends no thread, rather than e.p.msg.unexpected, which would.
  if (direction === 'receive' && typeof message.id === 'string' && record.messages.includes(message.id)) {
    throw protocolError('duplicate_message', `message ${message.id} was already received on thread ${record.thid}`, { id: message.id, thid: record.thid });
  }
  const state = nextState(machine, record.state, eventOf(direction, message));
  return { ...record, state, messages: [...record.messages, message.id] };
}

/** A received message whose thread we do not know: 'unknown_thread'. */
export function requireThread<S extends string>(record: ThreadRecord<S> | undefined, message: PlainMessage): ThreadRecord<S> {
  if (!record) throw protocolError('unknown_thread', `no thread ${threadId(message)} here`, { thid: threadId(message) });
  return record;
}

export function isFinal<S extends string>(machine: StateMachine<S>, state: S): boolean {
  return machine.final.includes(state);
}
