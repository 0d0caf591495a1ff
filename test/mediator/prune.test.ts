// The standalone mediator deletes what expired for recipients that never come back: once at
// start and on a sweep (the queue itself deletes a recipient's expired messages only when it next
// looks at that recipient's queue). Time is a ManualClock; the sweep's period is a few ms, and the
// test waits for its event.
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, sequentialIds } from '../../src/clock.js';
import { startMediator } from '../../src/mediator/server.js';
import { messageQueue } from '../../src/mediator/queue.js';
import { openStore } from '../../src/store/store.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe("the mediator's queue sweep", () => {
  it('deletes messages past the TTL at start and on its sweep, and keeps the rest', async () => {
    const store = await openStore();
    cleanup.push(() => store.close());
    const clock = new ManualClock();
    // Left by an earlier run: one message already past its TTL when the mediator starts.
    await messageQueue({ store, clock, ids: sequentialIds('old') }, { ttlMs: 1000 }).enqueue('did:example:gone', 'old');
    clock.advance(2000);
    const waitingAtStart = messageQueue({ store, clock, ids: sequentialIds('x') });
    expect(await waitingAtStart.recipients()).toEqual(['did:example:gone']);

    const m = await startMediator({ store, clock, queue: { ttlMs: 1000 }, pruneEveryMs: 5 });
    cleanup.push(() => m.close());
    const [atStart] = (await once(m.agent.events, 'queue-pruned')) as [{ removed: number }];
    expect(atStart.removed).toBe(1);

    await m.agent.mediator.queue.enqueue('did:example:also-gone', 'a');
    await m.agent.mediator.queue.enqueue('did:example:stays', 'b', { messageId: 'b' });
    clock.advance(600);
    await m.agent.mediator.queue.enqueue('did:example:stays', 'c');
    clock.advance(600);
    const [swept] = (await once(m.agent.events, 'queue-pruned')) as [{ removed: number }];
    expect(swept.removed).toBe(2);
    expect((await m.agent.mediator.queue.list('did:example:stays')).map((e) => e.packed)).toEqual(['c']);
    expect(await store.collection('med-queue').count()).toBe(1);
  });
});
