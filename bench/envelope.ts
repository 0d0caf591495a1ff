// Envelope throughput: raw didcomm-node against idsync's envelope layer, in one run.
//   raw    = didcomm-node called directly with hand-built library-shaped documents, an object
//            map resolver and a Map of secrets (no adapters, no checks);
//   idsync = pack/unpack from src/didcomm/envelope.ts: our adapters over W3C documents from the
//            project resolver (did:ion long form ↔ did:peer:2), store-backed secrets.
// All sides use the same DIDs and keys, so message sizes match. Rounds interleave the sides in
// rotating order so that drift on a noisy machine hits all alike; figures are medians.
// Run: npm run bench   (node --import tsx bench/envelope.ts). The one place outside
// src/didcomm/envelope.ts that imports didcomm-node: it is what we measure against.
import { Message } from 'didcomm-node';
import { createIonDid } from '../src/did/ion.js';
import { createPeerDid } from '../src/did/peer.js';
import { createResolver, documentResolver } from '../src/did/resolver.js';
import type { CreatedDid, DocumentResolver } from '../src/did/types.js';
import { pack, unpack } from '../src/didcomm/envelope/index.js';
import type { EnvelopeContext, EnvelopeMode, PlainMessage } from '../src/didcomm/types.js';
import { storeSecrets } from '../src/store/secrets.js';
import { openStore } from '../src/store/store.js';

type Op = { pack: () => Promise<string>; unpack: (packed: string) => Promise<unknown> };
type Mode = Extract<EnvelopeMode, 'authcrypt' | 'anoncrypt' | 'signed'>;

const MODES: { mode: Mode; rounds: number; batch: number }[] = [
  { mode: 'authcrypt', rounds: 15, batch: 30 },
  { mode: 'anoncrypt', rounds: 15, batch: 50 },
  { mode: 'signed', rounds: 15, batch: 60 },
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

// --- raw: library-shaped documents written by hand -----------------------------------------
function publicOf(jwk: Record<string, unknown>): Record<string, unknown> {
  const { d: _d, ...pub } = jwk;
  return pub;
}

function rawDoc(p: CreatedDid, uri: string) {
  const [auth, agree] = p.secrets;
  return {
    id: p.did,
    authentication: [auth.id],
    keyAgreement: [agree.id],
    verificationMethod: [
      { id: auth.id, type: 'JsonWebKey2020', controller: p.did, publicKeyJwk: publicOf({ ...auth.privateKeyJwk }) },
      { id: agree.id, type: 'JsonWebKey2020', controller: p.did, publicKeyJwk: publicOf({ ...agree.privateKeyJwk }) },
    ],
    service: [{ id: `${p.did}#didcomm`, type: 'DIDCommMessaging', serviceEndpoint: { uri, accept: ['didcomm/v2'], routingKeys: [] } }],
  };
}

const rawDocs = new Map([
  [wallet.did, rawDoc(wallet, 'https://wallet.example/didcomm')],
  [service.did, rawDoc(service, 'https://service.example/didcomm')],
]);
const rawResolver = { resolve: async (did: string) => rawDocs.get(did) ?? null };
function rawSecrets(p: CreatedDid) {
  const byId = new Map(p.secrets.map((s) => [s.id, s]));
  return {
    get_secret: async (id: string) => byId.get(id) ?? null,
    find_secrets: async (ids: string[]) => ids.filter((id) => byId.has(id)),
  };
}
const rawSender = rawSecrets(wallet);
const rawRecipient = rawSecrets(service);

function rawOp(mode: Mode): Op {
  return {
    async pack() {
      const m = new Message(message as ConstructorParameters<typeof Message>[0]);
      try {
        if (mode === 'signed') return (await m.pack_signed(wallet.did, rawResolver, rawSender))[0];
        const from = mode === 'authcrypt' ? wallet.did : null;
        return (await m.pack_encrypted(service.did, from, null, rawResolver, rawSender, { forward: true, protect_sender: false }))[0];
      } finally {
        m.free();
      }
    },
    async unpack(packed) {
      const [m] = await Message.unpack(packed, rawResolver, rawRecipient, {});
      try {
        return m.as_value();
      } finally {
        m.free();
      }
    },
  };
}

// --- idsync: the envelope layer over the project's resolver and store ----------------------
const senderStore = await openStore();
const recipientStore = await openStore();
const senderSecrets = storeSecrets(senderStore);
const recipientSecrets = storeSecrets(recipientStore);
await senderSecrets.add(wallet.secrets);
await recipientSecrets.add(service.secrets);

function idsyncOp(mode: Mode, resolve: DocumentResolver): Op {
  const senderCtx: EnvelopeContext = { resolve, secrets: senderSecrets };
  const recipientCtx: EnvelopeContext = { resolve, secrets: recipientSecrets };
  return {
    pack: async () => (await pack(message, { mode }, senderCtx)).packed,
    unpack: (packed) => unpack(packed, recipientCtx),
  };
}

// The resolver as src/did ships it (its cache shares deep-frozen results).
const shipped = documentResolver(createResolver());

// --- measurement ---------------------------------------------------------------------------
// CPU time of this process (user + system), not wall time: the machine is shared, and the work
// is single-threaded, so CPU time is what an operation costs; wall time is printed alongside.
interface Sample { pack: number; unpack: number; rt: number; wall: number }

async function batch(op: Op, n: number): Promise<Sample> {
  const packed: string[] = [];
  const w0 = performance.now();
  let c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) packed.push(await op.pack());
  const c1 = process.cpuUsage(c0);
  c0 = process.cpuUsage();
  for (const p of packed) await op.unpack(p);
  const c2 = process.cpuUsage(c0);
  const packUs = (c1.user + c1.system) / n;
  const unpackUs = (c2.user + c2.system) / n;
  return { pack: packUs, unpack: unpackUs, rt: packUs + unpackUs, wall: ((performance.now() - w0) * 1000) / n };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const us = (x: number) => `${x.toFixed(0).padStart(6)} µs`;
const started = performance.now();
console.log(`envelope bench: 1 KB body; sender did:ion long form (${wallet.did.length} chars), recipient did:peer:2`);
console.log(`node ${process.version}; CPU µs per op, medians over rounds run in rotating order\n`);
console.log('mode        side            pack        unpack      round trip   round trips/s   (wall µs)');

const SIDES = ['raw', 'idsync'] as const;
const ratios: Record<string, number> = {};
for (const { mode, rounds, batch: n } of MODES) {
  const ops: Record<(typeof SIDES)[number], Op> = { raw: rawOp(mode), idsync: idsyncOp(mode, shipped) };
  const samples: Record<string, Sample[]> = { raw: [], idsync: [] };
  for (const side of SIDES) await batch(ops[side], n); // warm-up: JIT, WASM allocator, caches
  for (let i = 0; i < rounds; i++) {
    // Rotate the order each round (raw first, then idsync first, ...) so drift hits all sides.
    for (let k = 0; k < SIDES.length; k++) {
      const side = SIDES[(i + k) % SIDES.length];
      samples[side].push(await batch(ops[side], n));
    }
  }
  for (const side of SIDES) {
    const xs = samples[side];
    const rt = median(xs.map((x) => x.rt));
    console.log(
      `${mode.padEnd(11)} ${side.padEnd(14)} ${us(median(xs.map((x) => x.pack)))}   ${us(median(xs.map((x) => x.unpack)))}   ${us(rt)}   ${(1e6 / rt).toFixed(0).padStart(8)}        (${median(xs.map((x) => x.wall)).toFixed(0)})`,
    );
  }
  // Ratio of throughputs per round (both sides measured close together), then the median.
  const per = (side: string) => median(samples.raw.map((r, i) => r.rt / samples[side][i].rt));
  ratios[mode] = per('idsync');
}

console.log('\nthroughput idsync / raw (target >= 0.90):');
for (const [mode, r] of Object.entries(ratios)) {
  console.log(`  ${mode.padEnd(10)} ${r.toFixed(3)} ${r >= 0.9 ? 'ok' : 'below'}`);
}
console.log(`total ${((performance.now() - started) / 1000).toFixed(1)} s`);
await senderStore.close();
await recipientStore.close();
