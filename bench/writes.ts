// What one sync flow writes and reads: puts and bytes of JSON by collection, counted where the in-memory
// store encodes a value (light-store.ts LightCollection.set: every put and every batch put goes
// through it) and decodes one (get, list), in one flow after a warm-up flow (testbed, memory transport, webhooks on).
// Run: npm run bench:writes   (node --import tsx bench/writes.ts); --json: the last line is one
// JSON document {"puts", "bytes", "collections": {"<name>": {puts, bytes}}}.
import { openStore } from '../src/store/store.js';
import { startTestbed } from '../src/testing/index.js';

const json = process.argv.includes('--json');
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

const bed = await startTestbed({ wallets: 2 });
async function flow(i: number): Promise<void> {
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
await flow(0);
counting = true;
await flow(1);
// Writes that follow the flow's end (webhook deliveries, acks) are part of it.
await new Promise((r) => setTimeout(r, 500));
counting = false;
await bed.close();

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
if (json) console.log(JSON.stringify({ puts, bytes, collections: Object.fromEntries(rows), reads: readCount, readBytes, readCollections: Object.fromEntries(readRows) }));
