// What one sync flow writes and reads: puts and bytes of JSON by collection, counted where the in-memory
// store encodes a value (light-store.ts LightCollection.set: every put and every batch put goes
// through it) and decodes one (get, list), in one flow after a warm-up flow (testbed, memory transport, webhooks on).
// --flows N: then N more flows, 20 at a time after 20 to warm up, in a testbed without webhook
// subscribers (as the fleet's twin): the process's CPU and the bytes V8 allocated, per flow (the
// heap's growth between collections, from v8.GCProfiler).
// Run: npm run bench:writes   (node --import tsx bench/writes.ts); --json: the last line is one
// JSON document {"puts", "bytes", "collections", "reads", "readBytes", "readCollections", "perFlow"?}.
import { openStore } from '../src/store/store.js';
import { startTestbed } from '../src/testing/index.js';

import { GCProfiler, getHeapStatistics } from 'node:v8';

const json = process.argv.includes('--json');
const flowsAt = process.argv.indexOf('--flows');
const extraFlows = flowsAt >= 0 ? Number(process.argv[flowsAt + 1]) : 0;
const DATAPOINTS = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10', nationality: 'GB', emailAddress: 'ada@example.com' };

// The class every in-memory collection is: its set() sees each encoded value once.
const probe = await openStore();
type Light = { name: string; data: Map<string, string> };
const proto = Object.getPrototypeOf(probe.collection('probe')) as {
  set(this: Light, key: string, text: string): void;
  get(this: Light, key: string): Promise<unknown>;
  list(this: Light, options?: unknown): Promise<{ key: string }[]>;
};
await probe.close();
const counts = new Map<string, { puts: number; bytes: number }>();
const reads = new Map<string, { reads: number; bytes: number }>();
const read = (name: string, bytes: number) => {
  const c = reads.get(name) ?? { reads: 0, bytes: 0 };
  c.reads += 1;
  c.bytes += bytes;
  reads.set(name, c);
};
const get = proto.get;
proto.get = function (key) {
  const text = this.data.get(key);
  if (counting && text !== undefined) read(this.name, Buffer.byteLength(text));
  return get.call(this, key);
};
const list = proto.list;
proto.list = async function (options) {
  const out = await list.call(this, options);
  if (counting) for (const e of out) read(this.name, Buffer.byteLength(this.data.get(e.key) ?? ''));
  return out;
};
let counting = false;
const set = proto.set;
proto.set = function (key, text) {
  if (counting) {
    const c = counts.get(this.name) ?? { puts: 0, bytes: 0 };
    c.puts += 1;
    c.bytes += Buffer.byteLength(text);
    counts.set(this.name, c);
  }
  return set.call(this, key, text);
};

type Bed = Awaited<ReturnType<typeof startTestbed>>;
async function flow(bed: Bed, i: number): Promise<void> {
  const wallet = bed.wallets[i]!;
  const userId = `writes-${i}`;
  const { client } = bed.service;
  await client.putUser(userId, { settings: { isSyncOn: true } });
  const { invitationUrl } = await client.invite(userId);
  const established = bed.service.agent.waitFor('data-pipe-established', (e: { userId?: string }) => e.userId === userId, 30_000);
  await wallet.acceptInvitation(invitationUrl!, { timeoutMs: 30_000 });
  await established;
  const completed = bed.service.agent.waitFor('sync-completed', (e: { userId?: string }) => e.userId === userId, 30_000);
  const stored = wallet.waitForCredential({ timeoutMs: 30_000 });
  await client.putDatapoints(userId, DATAPOINTS);
  await Promise.all([completed, stored]);
}
const bed = await startTestbed({ wallets: 2 });
await flow(bed, 0);
counting = true;
await flow(bed, 1);
// Writes that follow the flow's end (webhook deliveries, acks) are part of it.
await new Promise((r) => setTimeout(r, 500));
counting = false;
await bed.close();

/** CPU and bytes allocated per flow over `n` flows, 20 at a time. */
async function perFlow(n: number): Promise<{ flows: number; cpuMs: number; allocatedKB: number }> {
  const WARM = 20;
  const AT_ONCE = 20;
  const many = await startTestbed({ wallets: n + WARM, webhooks: false });
  // Each flow waits on the agent's events: 20 listeners at once is expected here.
  many.service.agent.events.setMaxListeners(0);
  const run = async (from: number, count: number) => {
    for (let i = 0; i < count; i += AT_ONCE) await Promise.all(Array.from({ length: Math.min(AT_ONCE, count - i) }, (_, j) => flow(many, from + i + j)));
  };
  await run(0, WARM);
  const profiler = new GCProfiler();
  profiler.start();
  const h0 = getHeapStatistics().used_heap_size;
  const c0 = process.cpuUsage();
  await run(WARM, n);
  const c = process.cpuUsage(c0);
  const h1 = getHeapStatistics().used_heap_size;
  // Nothing is freed between two collections: what the heap grew by between them was allocated.
  let allocated = 0;
  let last = h0;
  for (const gc of profiler.stop()?.statistics ?? []) {
    allocated += gc.beforeGC.heapStatistics.usedHeapSize - last;
    last = gc.afterGC.heapStatistics.usedHeapSize;
  }
  allocated += h1 - last;
  await many.close();
  return { flows: n, cpuMs: +((c.user + c.system) / 1000 / n).toFixed(2), allocatedKB: +(allocated / 1024 / n).toFixed(1) };
}
const measured = extraFlows > 0 ? await perFlow(extraFlows) : undefined;

const rows = [...counts].sort((a, b) => b[1].bytes - a[1].bytes);
const puts = rows.reduce((n, [, c]) => n + c.puts, 0);
const bytes = rows.reduce((n, [, c]) => n + c.bytes, 0);
console.log('| collection | puts | KB |');
console.log('|---|---|---|');
for (const [name, c] of rows) console.log(`| ${name} | ${c.puts} | ${(c.bytes / 1000).toFixed(1)} |`);
console.log(`| **total** | **${puts}** | **${(bytes / 1000).toFixed(1)}** |`);
const readRows = [...reads].sort((a, b) => b[1].bytes - a[1].bytes);
console.log('\n| collection | values read | KB parsed |');
console.log('|---|---|---|');
for (const [name, c] of readRows) console.log(`| ${name} | ${c.reads} | ${(c.bytes / 1000).toFixed(1)} |`);
const readCount = readRows.reduce((n, [, c]) => n + c.reads, 0);
const readBytes = readRows.reduce((n, [, c]) => n + c.bytes, 0);
console.log(`| **total** | **${readCount}** | **${(readBytes / 1000).toFixed(1)}** |`);
if (measured) console.log(`\n${measured.flows} flows, 20 at a time: ${measured.cpuMs} ms of process CPU and ${measured.allocatedKB} KB allocated per flow`);
if (json) console.log(JSON.stringify({ puts, bytes, collections: Object.fromEntries(rows), reads: readCount, readBytes, readCollections: Object.fromEntries(readRows), ...(measured ? { perFlow: measured } : {}) }));
