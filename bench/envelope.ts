// Envelope throughput: the native engine against didcomm-node, in one run, per mode: authcrypt,
// anoncrypt, signed, authcrypt+signed (an authcrypted JWS) and anoncrypt(authcrypt) (protect_sender).
// Both sides go through idsync's pack/unpack (src/didcomm/envelope/), on the same message and DIDs:
// a did:ion long-form sender, a did:peer:2 recipient, the project resolver, store-backed secrets.
// Rounds interleave the engines in rotating order so that drift on a noisy machine hits both
// alike; figures are medians of CPU time per operation.
// Run: npm run bench [-- --json] [-- --quick]   (node --import tsx bench/envelope.ts)
// --json: the last line is {"modes": {"<mode>": {"native": {"roundTripUs": n, …}, "didcommNode": {…}, "ratio": r}}}.
import { createIonDid } from '../src/did/ion.js';
import { createPeerDid } from '../src/did/peer.js';
import { createResolver, documentResolver } from '../src/did/resolver.js';
import { pack, unpack } from '../src/didcomm/envelope/index.js';
import type { EnvelopeContext, EnvelopeEngine, PackOptions, PlainMessage } from '../src/didcomm/types.js';
import { storeSecrets } from '../src/store/secrets.js';
import { openStore } from '../src/store/store.js';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const ROUNDS = quick ? 5 : 15;

type Op = { pack: () => Promise<string>; unpack: (packed: string) => Promise<unknown> };

const MODES: { name: string; options: Omit<PackOptions, 'engine'>; batch: number }[] = [
  { name: 'authcrypt', options: { mode: 'authcrypt' }, batch: 30 },
  { name: 'anoncrypt', options: { mode: 'anoncrypt' }, batch: 40 },
  { name: 'signed', options: { mode: 'signed' }, batch: 60 },
  { name: 'authcrypt+signed', options: { mode: 'authcrypt-signed', protectSender: false }, batch: 20 },
  { name: 'anoncrypt(authcrypt)', options: { mode: 'anoncrypt-authcrypt' }, batch: 20 },
];
const TARGETS: Record<string, number> = { authcrypt: 5, anoncrypt: 5, signed: 5 };
const ENGINES: { engine: EnvelopeEngine; key: 'native' | 'didcommNode' }[] = [
  { engine: 'native', key: 'native' },
  { engine: 'didcomm-node', key: 'didcommNode' },
];

// --- parties -------------------------------------------------------------------------------
const wallet = createIonDid({ endpoint: 'https://wallet.example/didcomm' }); // sender
const service = createPeerDid({ endpoint: 'https://service.example/didcomm' }); // recipient

const message: PlainMessage = {
  id: 'bench-1',
  type: 'https://didcomm.org/basicmessage/2.0/message',
  from: wallet.did,
  to: [service.did],
  created_time: 1_700_000_000,
  body: { content: 'x'.repeat(1024) }, // a fixed 1 KB payload
};

const senderStore = await openStore();
const recipientStore = await openStore();
const senderSecrets = storeSecrets(senderStore);
const recipientSecrets = storeSecrets(recipientStore);
await senderSecrets.add(wallet.secrets);
await recipientSecrets.add(service.secrets);
// The resolver as src/did ships it (its cache shares deep-frozen results).
const resolve = documentResolver(createResolver());

function op(options: Omit<PackOptions, 'engine'>, engine: EnvelopeEngine): Op {
  const sender: EnvelopeContext = { resolve, secrets: senderSecrets, engine };
  const recipient: EnvelopeContext = { resolve, secrets: recipientSecrets, engine };
  return {
    pack: async () => (await pack(message, options, sender)).packed,
    unpack: (packed) => unpack(packed, recipient),
  };
}

// --- measurement ---------------------------------------------------------------------------
// CPU time of this process (user + system), not wall time: the machine is shared, and the work
// is single-threaded, so CPU time is what an operation costs; wall time is printed alongside.
interface Sample { pack: number; unpack: number; rt: number; wall: number }

async function batch(o: Op, n: number): Promise<Sample> {
  const packed: string[] = [];
  const w0 = performance.now();
  let c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) packed.push(await o.pack());
  const c1 = process.cpuUsage(c0);
  c0 = process.cpuUsage();
  for (const p of packed) await o.unpack(p);
  const c2 = process.cpuUsage(c0);
  const packUs = (c1.user + c1.system) / n;
  const unpackUs = (c2.user + c2.system) / n;
  return { pack: packUs, unpack: unpackUs, rt: packUs + unpackUs, wall: ((performance.now() - w0) * 1000) / n };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const say = (line: string) => {
  if (!json) console.log(line);
};
const us = (x: number) => `${x.toFixed(0).padStart(6)} µs`;
const started = performance.now();
say(`envelope bench: 1 KB body; sender did:ion long form (${wallet.did.length} chars), recipient did:peer:2`);
say(`node ${process.version}; CPU µs per op, medians over ${ROUNDS} rounds run in rotating engine order${quick ? ' (--quick)' : ''}\n`);
say('mode                   engine          pack        unpack      round trip   round trips/s   (wall µs)');

type Figures = { packUs: number; unpackUs: number; roundTripUs: number; roundTripsPerSecond: number };
const result: Record<string, Record<'native' | 'didcommNode', Figures> & { ratio: number }> = {};
for (const { name, options, batch: n } of MODES) {
  const ops = ENGINES.map((e) => op(options, e.engine));
  const samples: Sample[][] = ENGINES.map(() => []);
  for (const o of ops) await batch(o, n); // warm-up: JIT, WASM allocator, caches
  for (let i = 0; i < ROUNDS; i++) {
    // Rotate the order each round so that drift hits both engines alike.
    for (let k = 0; k < ops.length; k++) {
      const j = (i + k) % ops.length;
      samples[j]!.push(await batch(ops[j]!, n));
    }
  }
  const figures = samples.map((xs): Figures => {
    const rt = median(xs.map((x) => x.rt));
    return { packUs: median(xs.map((x) => x.pack)), unpackUs: median(xs.map((x) => x.unpack)), roundTripUs: rt, roundTripsPerSecond: 1e6 / rt };
  });
  ENGINES.forEach((e, j) => {
    const f = figures[j]!;
    say(`${name.padEnd(22)} ${e.engine.padEnd(14)} ${us(f.packUs)}   ${us(f.unpackUs)}   ${us(f.roundTripUs)}   ${f.roundTripsPerSecond.toFixed(0).padStart(8)}        (${median(samples[j]!.map((x) => x.wall)).toFixed(0)})`);
  });
  // Throughput ratio per round (both engines measured close together), then the median.
  const ratio = median(samples[1]!.map((d, i) => d.rt / samples[0]![i]!.rt));
  result[name] = { native: figures[0]!, didcommNode: figures[1]!, ratio };
}

say('\nround-trip throughput native / didcomm-node (target >= 5 for authcrypt, anoncrypt, signed):');
for (const [name, r] of Object.entries(result)) {
  const target = TARGETS[name];
  say(`  ${name.padEnd(22)} ${r.ratio.toFixed(2).padStart(6)}x${target ? (r.ratio >= target ? '  ok' : '  below target') : ''}`);
}
say(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
await senderStore.close();
await recipientStore.close();

const round = (x: number) => Math.round(x * 10) / 10;
if (json) {
  const modes = Object.fromEntries(
    Object.entries(result).map(([name, r]) => [
      name,
      {
        native: Object.fromEntries(Object.entries(r.native).map(([k, v]) => [k, round(v)])),
        didcommNode: Object.fromEntries(Object.entries(r.didcommNode).map(([k, v]) => [k, round(v)])),
        ratio: Math.round(r.ratio * 100) / 100,
      },
    ]),
  );
  console.log(JSON.stringify({ modes }));
}
