// A fleet flow waits for its credential and ends early on a problem the service reports — but
// not on a warning or on e.p.msg.duplicate ("I had that one already", the answer to a retry that
// crossed the service's reply; DIDComm v2 §Problem Codes), which ends no thread: the credential
// still comes. Under load such retries happen, and counting them as failed flows was wrong.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { nextCredential } from '../../src/fleet/scenarios.js';
import type { Wallet } from '../../src/wallet/wallet.js';
import { waitForEvent } from '../../src/wait.js';

/** Just the waits nextCredential uses, on events the test emits. */
function stubWallet() {
  const events = new EventEmitter();
  const wallet = {
    waitFor: (event: string, predicate: ((e: unknown) => boolean) | undefined, o: { timeoutMs?: number; signal?: AbortSignal }) => waitForEvent(events, event, predicate, o),
    waitForCredential: (o: { timeoutMs?: number; signal?: AbortSignal }) => waitForEvent(events, 'credential-stored', undefined, o),
  } as unknown as Wallet;
  return { wallet, events };
}

const ctx = () => ({ timeoutMs: 5_000, signal: new AbortController().signal });

describe('fleet flows and problem reports', () => {
  it('keeps waiting through e.p.msg.duplicate and warnings, and gets the credential', async () => {
    const { wallet, events } = stubWallet();
    const waiting = nextCredential(wallet, ctx());
    events.emit('problem-received', { problem: { code: 'e.p.msg.duplicate', pthid: 't' } });
    events.emit('problem-received', { problem: { code: 'w.p.xfer.late', pthid: 't' } });
    events.emit('credential-stored', { id: 'urn:uuid:1' });
    await expect(waiting).resolves.toEqual({ id: 'urn:uuid:1' });
  });

  it('ends the flow on any other problem, with its code', async () => {
    const { wallet, events } = stubWallet();
    const waiting = nextCredential(wallet, ctx());
    events.emit('problem-received', { problem: { code: 'e.p.req.invalid-state', pthid: 't' } });
    await expect(waiting).rejects.toMatchObject({ code: 'fleet_flow_failed', details: { problemCode: 'e.p.req.invalid-state' } });
  });
});
