// A closed run makes its idle wallets before any flow, several at once (runner.ts PREPARE_LANES):
// behind a mediator each one asks for mediation and registers its keys, round trips to another
// thread that one at a time kept both sides waiting (9 s for 1,000 mediated wallets, 5 s now).
import { describe, expect, it } from 'vitest';
import { PREPARE_LANES, runShard } from '../../src/fleet/runner.js';
import type { Scenario } from '../../src/fleet/types.js';
import type { WalletPool } from '../../src/fleet/wallet-pool.js';
import type { ServiceClient } from '../../src/testing/rest-client.js';
import type { Wallet } from '../../src/wallet/wallet.js';

function slowPool(prepareMs: number) {
  const prepared: number[] = [];
  let running = 0;
  let most = 0;
  const pool: WalletPool = {
    async prepare(index: number) {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, prepareMs));
      running -= 1;
      prepared.push(index);
    },
    async wallet() {
      return {} as Wallet;
    },
    async release() {},
    size: 0,
    idle: { inMemory: 0, onDisk: 0 },
  } as unknown as WalletPool;
  return { pool, prepared, most: () => most };
}

const scenario: Scenario = { name: 'nothing', steps: ['step'], run: async (ctx) => void (await ctx.step('step', async () => undefined)) };
const plan = (wallets: number) => ({ shard: 0, shards: 1, model: { kind: 'closed' as const, wallets, concurrency: 4 }, startAt: Date.now(), runId: 'r', timeoutMs: 5_000, idleSample: 0 });

describe('runShard: idle wallets', () => {
  it('makes them several at once, each once, before the flows', async () => {
    const p = slowPool(15);
    const r = await runShard(plan(40), { scenario, pool: p.pool, client: {} as ServiceClient, serviceDid: 'did:example:svc' });
    expect(r.completed).toBe(40);
    expect(p.prepared.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    // Not one at a time, and bounded.
    expect(p.most()).toBeGreaterThan(1);
    expect(p.most()).toBe(Math.min(PREPARE_LANES, 40));
  });

  it('stops making them when the run is aborted', async () => {
    const p = slowPool(15);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 40);
    await runShard(plan(1_000), { scenario, pool: p.pool, client: {} as ServiceClient, serviceDid: 'did:example:svc', signal: ac.signal });
    expect(p.prepared.length).toBeGreaterThan(0);
    expect(p.prepared.length).toBeLessThan(1_000);
  });

  it('counts the flows in flight when the run stops as cut short, neither failed nor completed', async () => {
    const p = slowPool(0);
    const ac = new AbortController();
    let inFlight = 0;
    // Two flows fail on their own, then four wait on the stop (the scenario ends them with it).
    const waiting: Scenario = {
      name: 'waits',
      steps: ['step'],
      run: async (ctx) => {
        if (ctx.index < 2) throw new Error('a real failure');
        inFlight += 1;
        if (inFlight === 4) setTimeout(() => ac.abort(), 10);
        await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }));
      },
    };
    const r = await runShard(plan(100), { scenario: waiting, pool: p.pool, client: {} as ServiceClient, serviceDid: 'did:example:svc', signal: ac.signal });
    expect([r.completed, r.failed, r.stopped]).toEqual([0, 2, 4]);
    expect(Object.values(r.errors).reduce((a, b) => a + b, 0)).toBe(2);
    // Nothing is left in flight in the run's timeline.
    const t = r.seconds;
    expect(t.started.reduce((a, b) => a + b, 0)).toBe(2);
  });
});
