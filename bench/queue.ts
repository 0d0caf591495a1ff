// The mediator's queue with a backlog: what one forward (enqueue, with its message id, as forward.ts
// queues it), a count, and a delivery of 10 with their confirmation cost while N messages of 13 KB
// already wait for the same recipient (a wallet offline for a while). Each is timed per operation;
// the medians at the start of the fill (0–99 waiting) and at its end (the last 100) are printed side
// by side, with their ratio: near 1 when an operation does not grow with the backlog. On LevelDB in
// a temp folder and in memory, one after the other in one run.
// Run: npm run bench:queue [-- --messages 1000 --json]; with --json the last line is one JSON document.
import { systemClock } from '../src/clock.js';
import { messageQueue } from '../src/mediator/queue.js';
import { openRunStore } from '../src/store/temporary.js';

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const json = argv.includes('--json');
// The first 100 and the last 100 of the fill are timed apart: fewer than 200 would overlap them.
const messages = Number(arg('messages') ?? 1000);
if (!Number.isInteger(messages) || messages < 200) {
  process.stderr.write('bench:queue: --messages must be a whole number of at least 200 (the first and the last 100 are timed apart)\n');
  process.exit(2);
}
const PACKED = JSON.stringify({ protected: 'p'.repeat(2000), iv: 'i', ciphertext: 'c'.repeat(11000), tag: 't' });

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const ms = (x: number) => +x.toFixed(3);

async function run(kind: 'leveldb' | 'memory') {
  const { store, close } = await openRunStore(kind === 'leveldb' ? 'disk' : 'memory', 'idsync-bench-queue-');
  let n = 0;
  const queue = messageQueue({ store, clock: systemClock, ids: () => `b${n++}` }, { maxPerRecipient: messages + 10 });
  const did = 'did:example:offline';
  const enqueue: number[] = [];
  const count: number[] = [];
  for (let i = 0; i < messages; i++) {
    let t = performance.now();
    await queue.enqueue(did, PACKED, { messageId: `m${i}`, type: 'forwarded' });
    enqueue.push(performance.now() - t);
    t = performance.now();
    await queue.count(did);
    count.push(performance.now() - t);
  }
  // The recipient comes back: deliveries of 10, each confirmed, until the queue is empty.
  const deliver: number[] = [];
  for (;;) {
    const t = performance.now();
    const batch = await queue.list(did, 10);
    if (batch.length === 0) break;
    await queue.remove(did, batch.map((e) => e.id));
    deliver.push(performance.now() - t);
  }
  await close();
  const grow = (xs: number[], end: number[]) => ({ start: ms(median(xs)), end: ms(median(end)), ratio: +(median(end) / median(xs)).toFixed(2) });
  return {
    store: kind,
    enqueue: grow(enqueue.slice(0, 100), enqueue.slice(-100)),
    count: grow(count.slice(0, 100), count.slice(-100)),
    // The first deliveries face the whole backlog, the last ones almost none.
    deliver10: grow(deliver.slice(-10), deliver.slice(0, 10)),
  };
}

const results = [await run('leveldb'), await run('memory')];
console.log(`\nidsync mediator queue: node ${process.version}, ${messages} messages of ${Buffer.byteLength(PACKED)} bytes for one recipient; medians in ms (the first 100 / the last 100 of the fill; a delivery of 10 with an empty / a full queue)\n`);
console.log('  store      operation            start       end     end/start');
for (const r of results) {
  for (const [op, v] of [['enqueue (forward)', r.enqueue], ['count', r.count], ['deliver 10 + confirm', r.deliver10]] as const) {
    console.log(`  ${r.store.padEnd(9)}  ${op.padEnd(20)} ${String(v.start).padStart(8)}  ${String(v.end).padStart(8)}  ${String(v.ratio).padStart(8)}`);
  }
}
if (json) console.log(JSON.stringify({ messages, bytes: Buffer.byteLength(PACKED), results }));
