import { describe, expect, it } from 'vitest';
import type { PlainMessage } from '../../src/didcomm/types.js';
import {
  advanceThread as advance,
  eventOf,
  nextState,
  problemEndsThread,
  startThread,
  transition,
  type StateMachine,
  type ThreadRecord,
} from '../../src/protocols/thread-state.js';

/** In these tests every message received comes from the DID its envelope proved: its own `from`. */
const advanceThread: typeof advance = (machine, record, direction, message, sender) =>
  advance(machine, record, direction, message, sender ?? (direction === 'receive' ? message.from : undefined));

const PIURI = 'https://example.org/order/1.0';
const PEER = 'did:example:shop';
const ME = 'did:example:me';

type S = 'start' | 'ordered' | 'done' | 'abandoned';
const BUYER: StateMachine<S> = {
  protocol: PIURI,
  role: 'buyer',
  initial: 'start',
  final: ['done', 'abandoned'],
  transitions: {
    start: { 'send:order': 'ordered' },
    ordered: { 'receive:deliver': 'done' },
  },
};

function msg(name: string, extra: Partial<PlainMessage> = {}): PlainMessage {
  return { id: `${name}-1`, type: `${PIURI}/${name}`, body: {}, ...extra };
}

function problem(code: unknown, extra: Partial<PlainMessage> = {}): PlainMessage {
  return { id: `p-${String(code)}`, type: 'https://didcomm.org/report-problem/2.0/problem-report', from: PEER, pthid: 'order-1', body: { code }, ...extra };
}

function ordered(): ThreadRecord<S> {
  return startThread(BUYER, 'send', msg('order', { from: ME, to: [PEER] }));
}

describe('thread state and problem reports', () => {
  it('moves a thread only for the sender its envelope proves, not for a from header naming the peer', () => {
    // No sender proven (plaintext or anoncrypt): the report's from is only a claim.
    expect(() => advance(BUYER, ordered(), 'receive', problem('e.p.req.declined'))).toThrow(expect.objectContaining({ code: 'unknown_thread' }));
    expect(() => advance(BUYER, ordered(), 'receive', msg('deliver', { thid: 'order-1', from: PEER }), undefined)).toThrow(expect.objectContaining({ code: 'unknown_thread' }));
    expect(() => advance(BUYER, ordered(), 'receive', msg('deliver', { thid: 'order-1', from: PEER }), 'did:example:other')).toThrow(expect.objectContaining({ code: 'unknown_thread' }));
    expect(advance(BUYER, ordered(), 'receive', msg('deliver', { thid: 'order-1', from: PEER }), PEER).state).toBe('done');
  });

  it('abandons an unfinished thread on an error problem report, received or sent', () => {
    expect(advanceThread(BUYER, ordered(), 'receive', problem('e.p.req.declined')).state).toBe('abandoned');
    expect(advanceThread(BUYER, ordered(), 'send', problem('e.p.msg.credential-invalid', { from: ME, to: [PEER] })).state).toBe('abandoned');
  });

  it('keeps the thread where it stands on e.p.msg.duplicate, and records the report', () => {
    const after = advanceThread(BUYER, ordered(), 'receive', problem('e.p.msg.duplicate'));
    expect(after.state).toBe('ordered');
    expect(after.messages).toEqual(['order-1', 'p-e.p.msg.duplicate']);
    // The thread goes on: the delivery still completes it.
    expect(advanceThread(BUYER, after, 'receive', msg('deliver', { thid: 'order-1', from: PEER })).state).toBe('done');
  });

  it('keeps the thread where it stands on a warning', () => {
    expect(advanceThread(BUYER, ordered(), 'receive', problem('w.p.xfer.retry')).state).toBe('ordered');
    expect(advanceThread(BUYER, ordered(), 'send', problem('w.m.msg.late', { from: ME, to: [PEER] })).state).toBe('ordered');
  });

  it('accepts a warning or a duplicate report on an ended thread without changing it', () => {
    const done = advanceThread(BUYER, ordered(), 'receive', msg('deliver', { thid: 'order-1', from: PEER }));
    expect(advanceThread(BUYER, done, 'receive', problem('e.p.msg.duplicate')).state).toBe('done');
    expect(advanceThread(BUYER, done, 'receive', problem('w.p.me')).state).toBe('done');
  });

  it('still refuses an error problem report on an ended thread as unexpected', () => {
    const done = advanceThread(BUYER, ordered(), 'receive', msg('deliver', { thid: 'order-1', from: PEER }));
    expect(() => advanceThread(BUYER, done, 'receive', problem('e.p.me'))).toThrow(expect.objectContaining({ code: 'unexpected_message' }));
  });

  it('still refuses a duplicate report from another DID or about another thread', () => {
    expect(() => advanceThread(BUYER, ordered(), 'receive', problem('e.p.msg.duplicate', { from: 'did:example:mallory' }))).toThrow(
      expect.objectContaining({ code: 'unknown_thread' }),
    );
    expect(() => advanceThread(BUYER, ordered(), 'receive', problem('e.p.msg.duplicate', { pthid: 'other' }))).toThrow(expect.objectContaining({ code: 'unknown_thread' }));
  });

  it('treats a report without a code string as an error that abandons', () => {
    expect(advanceThread(BUYER, ordered(), 'receive', problem(undefined)).state).toBe('abandoned');
    expect(advanceThread(BUYER, ordered(), 'receive', problem(42)).state).toBe('abandoned');
  });

  it('tells which problem codes end a thread', () => {
    const ends = (code: string) => problemEndsThread({ body: { code } });
    expect(ends('e.p.msg.duplicate')).toBe(false);
    expect(ends('e.p.msg.duplicate.ack')).toBe(false);
    expect(ends('w.p.msg.duplicate')).toBe(false);
    expect(ends('w.m.anything')).toBe(false);
    expect(ends('e.p.msg.duplicates')).toBe(true);
    expect(ends('e.p.msg.unexpected')).toBe(true);
    expect(ends('e.m.msg.malformed')).toBe(true);
    expect(problemEndsThread({})).toBe(true);
  });

  it('names the events: problem-report for errors, problem-notice for the rest', () => {
    expect(eventOf('receive', problem('e.p.req.declined'))).toBe('receive:problem-report');
    expect(eventOf('receive', problem('e.p.msg.duplicate'))).toBe('receive:problem-notice');
    expect(eventOf('send', problem('w.p.xfer'))).toBe('send:problem-notice');
    expect(eventOf('send', msg('order'))).toBe('send:order');
    expect(transition(BUYER, 'start', 'receive:problem-notice')).toBe('start');
    expect(transition(BUYER, 'ordered', 'receive:problem-report')).toBe('abandoned');
    expect(nextState(BUYER, 'done', 'send:problem-notice')).toBe('done');
  });
});
