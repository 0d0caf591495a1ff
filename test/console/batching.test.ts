// What keeps a page live under a fleet without falling behind: rows of a page's stream go in
// batches (the first after a quiet spell at once, then at most one batch per interval), a record
// completed before its batch left goes once, and each batch carries the id of its newest record;
// `changed` goes at most every 300 ms, and every second while changes keep coming.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { liveHub } from '../../src/console/live.js';
import { rowBatcher } from '../../src/console/views/row-batch.js';
import type { LoggedMessage } from '../../src/store/messages.js';

beforeEach(() => void vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => void vi.useRealTimers());

const msg = (seq: string, result = 'accepted') => ({ seq, id: `id-${seq}`, direction: 'in', type: 't', mode: 'authcrypt', at: '', size: 1, result, message: {} }) as unknown as LoggedMessage;

describe('rows in batches', () => {
  it('sends the first row at once, then gathers rows for the interval into one event', async () => {
    const sent: Array<{ data: string; id?: string }> = [];
    const counts: number[] = [];
    const b = rowBatcher((data, id) => sent.push({ data, ...(id ? { id } : {}) }), (m) => `<div id="m-${m.seq}">${m.result}</div>`, 100, (n) => counts.push(n));
    b.add(msg('1-1'), 'record');
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.id).toBe('1-1');
    // Within the interval: three records, one of them completed before leaving, and an update of the first.
    b.add(msg('1-2'), 'record');
    b.add(msg('1-3'), 'record');
    b.add(msg('1-2', 'handled'), 'update');
    b.add(msg('1-1', 'handled'), 'update');
    b.addRow('<div id="f-1">fault</div>');
    await vi.advanceTimersByTimeAsync(50);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(50);
    expect(sent).toHaveLength(2);
    const batch = sent[1]!.data.split('\n');
    expect(batch).toEqual([
      '<hx-partial hx-target="#message-rows" hx-swap="afterbegin"><div id="m-1-2">handled</div></hx-partial>',
      '<hx-partial hx-target="#message-rows" hx-swap="afterbegin"><div id="m-1-3">accepted</div></hx-partial>',
      '<hx-partial hx-target="#m-1-1" hx-swap="outerHTML"><div id="m-1-1">handled</div></hx-partial>',
      '<hx-partial hx-target="#message-rows" hx-swap="afterbegin"><div id="f-1">fault</div></hx-partial>',
    ]);
    expect(sent[1]!.id).toBe('1-3');
    expect(counts).toEqual([1, 4]);
    b.close();
  });
});

describe('`changed`, throttled', () => {
  function open(hub: ReturnType<typeof liveHub>) {
    const written: string[] = [];
    const raw = { writeHead() {}, write: (s: string) => written.push(s), on() {}, end() {}, writableLength: 0 };
    hub.open({ headers: {} } as FastifyRequest, { hijack() {}, raw } as unknown as FastifyReply, () => undefined);
    return () => written.filter((w) => w.startsWith('event: changed')).length;
  }

  it('goes at once after a quiet spell, then every 300 ms, and every second while changes keep coming', async () => {
    const hub = liveHub({ throttleMs: 300, busyThrottleMs: 1000, heartbeatMs: 60_000 });
    const changes = open(hub);
    hub.changed();
    await vi.advanceTimersByTimeAsync(0);
    expect(changes()).toBe(1);
    // A change soon after: it waits out the 300 ms.
    hub.changed();
    await vi.advanceTimersByTimeAsync(299);
    expect(changes()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(changes()).toBe(2);
    // Changes every 10 ms for 3 s: the two before came close together, so one a second now.
    for (let t = 0; t < 3000; t += 10) {
      hub.changed();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(changes()).toBe(5);
    // Quiet for 2 s: the next goes at once again.
    await vi.advanceTimersByTimeAsync(2000);
    const before = changes();
    hub.changed();
    await vi.advanceTimersByTimeAsync(0);
    expect(changes()).toBe(before + 1);
    hub.close();
  });
});
