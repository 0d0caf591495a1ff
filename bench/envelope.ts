// Envelope throughput: the native engine against didcomm-node, in one run, per mode: authcrypt,
// anoncrypt, signed, authcrypt+signed (an authcrypted JWS) and anoncrypt(authcrypt) (protect_sender).
// Both sides go through idsync's pack/unpack (src/didcomm/envelope/), on the same message and DIDs:
// a did:ion long-form sender, a did:peer:2 recipient, the project resolver, store-backed secrets.
// Rounds interleave the engines in rotating order so that drift on a noisy machine hits both
// alike; figures are medians of CPU time per operation.
// Beside them runs the crypto floor of each mode: only the primitive operations the mode cannot
// do without (ephemeral key, ECDH, Concat KDF, A256KW, content cipher, signature), on inputs of
// the same sizes, with no JSON, base64, DID documents or secrets; native / floor says how much of
// the native engine's time is anything else. The floor computes X25519, Ed25519 and
// XChaCha20-Poly1305 with the provider the native engine uses (src/crypto/: libsodium, or
// node:crypto with IDSYNC_CRYPTO=node), and the rest in node:crypto, as the engine does.
// Run: npm run bench [-- --json] [-- --quick] [-- --no-gc] [-- --batch-scale x] [-- --warmup-batches n]   (node --import tsx bench/envelope.ts)
// --batch-scale x: x times the operations per batch (0.5 gives the batch sizes used before the
// primitives moved to libsodium: 30, 40, 60, 20, 20).
// --warmup-batches n: batches per engine before the measured rounds (default 20; 1 before). The
// native engine's per-operation cost keeps falling for its first few thousand operations (JIT
// tiers, heap growth; measured: anoncrypt ~300 µs a round trip over the first 3,000, ~150 after
// 6,000), so with one warm-up batch the rounds (~2,000 operations a mode) measured mostly the
// warm-up; a service runs warm, and both engines get the same warm-up.
// --json: the last line is {"cryptoProvider": p, "batchScale": x, "modes": {"<mode>": {"native": {"roundTripUs": n, …}, "didcommNode": {…}, "floor": {…}, "sharedUs": n, "ratio": r, "ceiling": c}}}.
import { createCipheriv, createDecipheriv, createHmac, createPublicKey, diffieHellman, generateKeyPairSync, hash, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ed25519PublicKey, ed25519Sign, ed25519Verify } from '../src/crypto/ed25519.js';
import { cryptoProvider } from '../src/crypto/provider.js';
import { x25519, x25519KeyPair, x25519PublicKey } from '../src/crypto/x25519.js';
import { xchachaDecrypt, xchachaEncrypt } from '../src/crypto/xchacha20-poly1305.js';
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
const ROUNDS = quick ? 5 : 25;
const noGc = argv.includes('--no-gc'); // batches without a collection first, as before
const scaleAt = argv.indexOf('--batch-scale');
const BATCH_SCALE = scaleAt >= 0 ? Number(argv[scaleAt + 1]) : 1;
if (!(BATCH_SCALE > 0)) throw new Error('--batch-scale takes a positive number');
const warmupAt = argv.indexOf('--warmup-batches');
const WARMUP_BATCHES = warmupAt >= 0 ? Number(argv[warmupAt + 1]) : quick ? 2 : 20;
if (!Number.isInteger(WARMUP_BATCHES) || WARMUP_BATCHES < 0) throw new Error('--warmup-batches takes a whole number');

type Op = { pack: () => Promise<string>; unpack: (packed: string) => Promise<unknown> };

// resolves: how often a round trip resolves the sender's did:ion (not a pure function of the DID
// string, so neither engine may keep it across calls): once in pack, once in unpack.
// batch: round trips per batch. Each batch starts after a full collection (see settle()), and
// the first operation after one costs ~0.6 ms more, whichever crypto provider (measured here,
// anoncrypt, native engine: ~0.9-1.0 ms against ~0.3 for the next ones): a fixed cost per batch
// that is no part of an operation's throughput. The batches hold ~10-25 ms of native work, so
// that it adds ~2-3 % to the native figures rather than ~5 %.
const MODES: { name: string; options: Omit<PackOptions, 'engine'>; batch: number; resolves: number }[] = [
  { name: 'authcrypt', options: { mode: 'authcrypt' }, batch: 60, resolves: 2 },
  { name: 'anoncrypt', options: { mode: 'anoncrypt' }, batch: 80, resolves: 0 },
  { name: 'signed', options: { mode: 'signed' }, batch: 120, resolves: 2 },
  { name: 'authcrypt+signed', options: { mode: 'authcrypt-signed' }, batch: 40, resolves: 2 },
  { name: 'anoncrypt(authcrypt)', options: { mode: 'anoncrypt-authcrypt' }, batch: 40, resolves: 2 },
];
const TARGETS: Record<string, number> = { authcrypt: 5, anoncrypt: 5, signed: 5 };
type Key = 'native' | 'didcommNode' | 'floor';
const ENGINES: { engine: EnvelopeEngine | 'floor'; key: Key }[] = [
  { engine: 'native', key: 'native' },
  { engine: 'didcomm-node', key: 'didcommNode' },
  { engine: 'floor', key: 'floor' },
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

// --- the crypto floor ----------------------------------------------------------------------
// What each layer costs in its primitives alone, X25519 and Ed25519 keys as the parties have.
// ECDH-1PU's static-static secret is computed once per key pair (as any engine may: it does not
// change between messages); CSPRNG bytes come from a pool, as the native engine draws them.
const KW_IV = Buffer.from('A6A6A6A6A6A6A6A6', 'hex');
const signingSeed = randomBytes(32);
const signingPublic = ed25519PublicKey(signingSeed);

/** X25519 as the engine holds the keys: raw bytes for libsodium, KeyObjects for node:crypto. */
interface Agreement {
  /** A fresh ephemeral key: its public x (base64url) and Ze with the recipient's key. */
  ephemeral(): { x: string; ze: Buffer };
  /** Ze on the recipient's side, the epk read from its x. */
  open(x: string): Buffer;
  zs: Buffer;
}

function sodiumAgreement(): Agreement {
  const recipient = randomBytes(32);
  const recipientPublic = x25519PublicKey(recipient);
  return {
    ephemeral() {
      const epk = x25519KeyPair();
      return { x: epk.publicKey.toString('base64url'), ze: x25519(epk.privateKey, recipientPublic)! };
    },
    open: (x) => x25519(recipient, Buffer.from(x, 'base64url'))!,
    zs: x25519(randomBytes(32), recipientPublic)!,
  };
}

function nodeAgreement(): Agreement {
  const recipientKey = generateKeyPairSync('x25519');
  const senderKey = generateKeyPairSync('x25519');
  // The ephemeral key as the engine makes it: the public half straight out as JWK (no KeyObject).
  const generateJwk = generateKeyPairSync as unknown as (type: 'x25519', o: object) => { privateKey: KeyObject; publicKey: { x: string } };
  return {
    ephemeral() {
      const epk = generateJwk('x25519', { publicKeyEncoding: { format: 'jwk' } });
      return { x: epk.publicKey.x, ze: diffieHellman({ privateKey: epk.privateKey, publicKey: recipientKey.publicKey }) };
    },
    open(x) {
      const epk: KeyObject = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x }, format: 'jwk' });
      return diffieHellman({ privateKey: recipientKey.privateKey, publicKey: epk });
    },
    zs: diffieHellman({ privateKey: senderKey.privateKey, publicKey: recipientKey.publicKey }),
  };
}

const agreement = cryptoProvider === 'libsodium' ? sodiumAgreement() : nodeAgreement();
let pool = randomBytes(0);
function random(n: number): Buffer {
  if (pool.length < n) pool = randomBytes(4096);
  const out = pool.subarray(0, n);
  pool = pool.subarray(n);
  return out;
}
type LayerKind = 'anoncrypt' | 'authcrypt';
// The AAD (the protected header) and the KDF's OtherInfo (alg, apu = the sender kid, apv,
// keydatalen) as long as the engine's: an authcrypt header names the sender's long-form did:ion
// key twice (skid, apu).
const sizes = { anoncrypt: { aad: 0, info: 0 }, authcrypt: { aad: 0, info: 0 } };
async function measureHeaders(): Promise<void> {
  const sender: EnvelopeContext = { resolve, secrets: senderSecrets, engine: 'native' };
  for (const kind of ['anoncrypt', 'authcrypt'] as const) {
    const jwe = JSON.parse((await pack(message, { mode: kind, forward: false }, sender)).packed) as { protected: string };
    const header = JSON.parse(Buffer.from(jwe.protected, 'base64url').toString()) as { alg: string; skid?: string };
    sizes[kind] = { aad: jwe.protected.length, info: 4 + header.alg.length + 4 + (header.skid?.length ?? 0) + 4 + 32 + 4 };
  }
}
const kdf = (z: Buffer, info: Buffer, tag?: Buffer) => hash('sha256', Buffer.concat(tag ? [Buffer.of(0, 0, 0, 1), z, info, Buffer.of(0, 0, 0, 32), tag] : [Buffer.of(0, 0, 0, 1), z, info]), 'buffer');
interface Sealed { x: string; wrapped: Buffer; iv: Buffer; ciphertext: Buffer; tag: Buffer; aad: Buffer }
function seal(kind: LayerKind, plaintext: Buffer): Sealed {
  const { x, ze } = agreement.ephemeral();
  const aad = Buffer.alloc(sizes[kind].aad, 0x65);
  let cek: Buffer, iv: Buffer, ciphertext: Buffer, tag: Buffer;
  if (kind === 'authcrypt') {
    // A256CBC-HS512
    const r = random(80);
    cek = r.subarray(0, 64);
    iv = r.subarray(64);
    const c = createCipheriv('aes-256-cbc', cek.subarray(32), iv);
    ciphertext = Buffer.concat([c.update(plaintext), c.final()]);
    tag = createHmac('sha512', cek.subarray(0, 32)).update(aad).update(iv).update(ciphertext).update(Buffer.alloc(8)).digest().subarray(0, 32);
  } else {
    // XC20P
    const r = random(56);
    cek = r.subarray(0, 32);
    iv = r.subarray(32);
    ({ ciphertext, tag } = xchachaEncrypt(cek, iv, plaintext, aad));
  }
  const info = Buffer.alloc(sizes[kind].info);
  const kek = kind === 'authcrypt' ? kdf(Buffer.concat([ze, agreement.zs]), info, tag) : kdf(ze, info);
  const w = createCipheriv('id-aes256-wrap', kek, KW_IV);
  return { x, wrapped: Buffer.concat([w.update(cek), w.final()]), iv, ciphertext, tag, aad };
}
function open(kind: LayerKind, s: Sealed): Buffer {
  const ze = agreement.open(s.x);
  const info = Buffer.alloc(sizes[kind].info);
  const kek = kind === 'authcrypt' ? kdf(Buffer.concat([ze, agreement.zs]), info, s.tag) : kdf(ze, info);
  const u = createDecipheriv('id-aes256-wrap', kek, KW_IV);
  const cek = Buffer.concat([u.update(s.wrapped), u.final()]);
  if (kind === 'authcrypt') {
    const mac = createHmac('sha512', cek.subarray(0, 32)).update(s.aad).update(s.iv).update(s.ciphertext).update(Buffer.alloc(8)).digest().subarray(0, 32);
    if (!timingSafeEqual(mac, s.tag)) throw new Error('floor: tag');
    const d = createDecipheriv('aes-256-cbc', cek.subarray(32), s.iv);
    return Buffer.concat([d.update(s.ciphertext), d.final()]);
  }
  const plaintext = xchachaDecrypt(cek, s.iv, s.ciphertext, s.tag, s.aad);
  if (!plaintext) throw new Error('floor: tag');
  return plaintext;
}

/**
 * The floor of a mode: its layers, innermost first, each on an input as large as the engine's
 * (sizes read from one native pack of the inner layers).
 */
async function floorOp(options: Omit<PackOptions, 'engine'>): Promise<Op> {
  const sender: EnvelopeContext = { resolve, secrets: senderSecrets, engine: 'native' };
  const size = async (mode: PackOptions['mode']) => (await pack(message, { mode, forward: false }, sender)).packed.length;
  if (sizes.authcrypt.aad === 0) await measureHeaders();
  const layers: { kind: LayerKind | 'signed'; bytes: Buffer }[] = [];
  const plaintext = Buffer.alloc(await size('plaintext'), 0x61);
  switch (options.mode) {
    case 'signed':
      layers.push({ kind: 'signed', bytes: plaintext });
      break;
    case 'anoncrypt':
      layers.push({ kind: 'anoncrypt', bytes: plaintext });
      break;
    case 'authcrypt':
      layers.push({ kind: 'authcrypt', bytes: plaintext });
      break;
    case 'authcrypt-signed':
      layers.push({ kind: 'signed', bytes: plaintext }, { kind: 'authcrypt', bytes: Buffer.alloc(await size('signed'), 0x61) });
      break;
    case 'anoncrypt-authcrypt':
      layers.push({ kind: 'authcrypt', bytes: plaintext }, { kind: 'anoncrypt', bytes: Buffer.alloc(await size('authcrypt'), 0x61) });
      break;
    default:
      throw new Error(`no floor for ${options.mode}`);
  }
  type Out = (Sealed | Buffer)[];
  const sealed = new Map<string, Out>();
  let n = 0;
  return {
    pack: async () => {
      // The signing input is the base64url of the payload, a third larger than the payload.
      const out: Out = layers.map((l) => (l.kind === 'signed' ? ed25519Sign(signingSeed, Buffer.alloc(Math.ceil((l.bytes.length * 4) / 3) + 40)) : seal(l.kind, l.bytes)));
      const id = String(n++);
      sealed.set(id, out);
      return id;
    },
    unpack: async (id) => {
      const out = sealed.get(id)!;
      sealed.delete(id);
      for (let i = layers.length - 1; i >= 0; i--) {
        const l = layers[i]!;
        if (l.kind === 'signed') {
          if (!ed25519Verify(signingPublic, Buffer.alloc(Math.ceil((l.bytes.length * 4) / 3) + 40), out[i] as Buffer)) throw new Error('floor: signature');
        } else open(l.kind, out[i] as Sealed);
      }
      return undefined;
    },
  };
}

// --- measurement ---------------------------------------------------------------------------
// CPU time of this process (user + system), not wall time: the machine is shared, and the work
// is single-threaded, so CPU time is what an operation costs; wall time is printed alongside.
interface Sample { pack: number; unpack: number; rt: number; wall: number }

// The engines share one heap: garbage one leaves behind would be collected, on the clock, in
// another's batch (didcomm-node leaves more). So each batch starts after a full collection,
// off the clock, and pays for the collections its own garbage causes while it runs.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
// A full collection leaves sweeping to background threads, whose CPU time process.cpuUsage
// counts: a few milliseconds of wall time let it finish before the clock starts.
async function settle(): Promise<void> {
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
}
const SETTLE_MS = 15;

async function batch(o: Op, n: number): Promise<Sample> {
  const packed: string[] = [];
  if (!noGc) await settle();
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
say(`node ${process.version}; CPU µs per op, medians over ${ROUNDS} rounds run in rotating engine order${quick ? ' (--quick)' : ''}`);
say(`crypto provider of the native engine and the floor: ${cryptoProvider} (X25519, Ed25519, XChaCha20-Poly1305; the rest node:crypto); round trips per batch ${MODES.map((m) => Math.max(1, Math.round(m.batch * BATCH_SCALE))).join('/')}; warm-up ${WARMUP_BATCHES} batch(es) per engine\n`);
say('mode                   engine          pack        unpack      round trip   round trips/s   fastest batch   (wall µs)');

// What both engines pay alike besides the crypto: the project resolver on the sender's long-form
// did:ion (did-resolver parses the 1.1 KB DID, then its cache answers).
async function resolveCost(): Promise<number> {
  const xs: number[] = [];
  for (let r = 0; r < ROUNDS + 1; r++) {
    if (!noGc) await settle();
    const c0 = process.cpuUsage();
    for (let i = 0; i < 100; i++) await resolve(wallet.did);
    const c = process.cpuUsage(c0);
    if (r > 0) xs.push((c.user + c.system) / 100);
  }
  return median(xs);
}

type Figures = { packUs: number; unpackUs: number; roundTripUs: number; roundTripsPerSecond: number; minRoundTripUs: number };
const result: Record<string, Record<Key, Figures> & { ratio: number; sharedUs: number }> = {};
const resolveUs = await resolveCost();
for (const { name, options, batch: size, resolves } of MODES) {
  const n = Math.max(1, Math.round(size * BATCH_SCALE));
  const ops = await Promise.all(ENGINES.map((e) => (e.engine === 'floor' ? floorOp(options) : op(options, e.engine))));
  const samples: Sample[][] = ENGINES.map(() => []);
  for (let w = 0; w < WARMUP_BATCHES; w++) for (const o of ops) await batch(o, n); // warm-up: JIT, WASM allocator, caches
  for (let i = 0; i < ROUNDS; i++) {
    // Rotate the order each round so that drift hits both engines alike.
    for (let k = 0; k < ops.length; k++) {
      const j = (i + k) % ops.length;
      samples[j]!.push(await batch(ops[j]!, n));
    }
  }
  const figures = samples.map((xs): Figures => {
    const rt = median(xs.map((x) => x.rt));
    return { packUs: median(xs.map((x) => x.pack)), unpackUs: median(xs.map((x) => x.unpack)), roundTripUs: rt, roundTripsPerSecond: 1e6 / rt, minRoundTripUs: Math.min(...xs.map((x) => x.rt)) };
  });
  ENGINES.forEach((e, j) => {
    const f = figures[j]!;
    say(`${name.padEnd(22)} ${e.engine.padEnd(14)} ${us(f.packUs)}   ${us(f.unpackUs)}   ${us(f.roundTripUs)}   ${f.roundTripsPerSecond.toFixed(0).padStart(8)}   ${us(f.minRoundTripUs)}   (${median(samples[j]!.map((x) => x.wall)).toFixed(0)})`);
  });
  // Throughput ratio per round (both engines measured close together), then the median.
  const ratio = median(samples[1]!.map((d, i) => d.rt / samples[0]![i]!.rt));
  result[name] = { native: figures[0]!, didcommNode: figures[1]!, floor: figures[2]!, ratio, sharedUs: resolves * resolveUs };
}

say(`\nshared by both engines: resolving the sender's did:ion ${resolveUs.toFixed(0)} µs, twice per round trip where marked (2x).`);
say('ratio: round-trip throughput native / didcomm-node (median of per-round ratios; target >= 5 for authcrypt, anoncrypt, signed).');
say('ceiling: didcomm-node / (floor + shared): the ratio an engine that cost nothing but its crypto would reach here.');
say('  mode                    ratio                 ceiling   native/floor   min-batch ratio');
const beyond: string[] = [];
for (const [name, r] of Object.entries(result)) {
  const target = TARGETS[name];
  const ceiling = r.didcommNode.roundTripUs / (r.floor.roundTripUs + r.sharedUs);
  const mark = target ? (r.ratio >= target ? '  ok          ' : ceiling < target ? '  beyond ceil.' : '  below target') : '              ';
  if (target && r.ratio < target && ceiling < target) {
    beyond.push(
      `  ${name}: ${target}x needs a native round trip of <= ${(r.didcommNode.roundTripUs / target).toFixed(0)} µs; the ${cryptoProvider} floor alone is ${r.floor.roundTripUs.toFixed(0)} µs` +
        `${r.sharedUs > 0 ? ` (+ ${r.sharedUs.toFixed(0)} µs resolving)` : ''}, so ${target}x is out of reach here (ceiling ${ceiling.toFixed(2)}x).`,
    );
  }
  const shared = r.sharedUs > 0 ? ' (2x)' : '     ';
  say(`  ${name.padEnd(22)} ${r.ratio.toFixed(2).padStart(6)}x${mark} ${ceiling.toFixed(2).padStart(6)}x${shared} ${(r.native.roundTripUs / r.floor.roundTripUs).toFixed(2).padStart(6)}x       ${(r.didcommNode.minRoundTripUs / r.native.minRoundTripUs).toFixed(2).padStart(6)}x`);
}
if (beyond.length) say(`targets beyond the ceiling (no engine doing these primitives in ${cryptoProvider} can meet them):\n${beyond.join('\n')}`);
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
        floor: Object.fromEntries(Object.entries(r.floor).map(([k, v]) => [k, round(v)])),
        sharedUs: round(r.sharedUs),
        ratio: Math.round(r.ratio * 100) / 100,
        ceiling: Math.round((r.didcommNode.roundTripUs / (r.floor.roundTripUs + r.sharedUs)) * 100) / 100,
      },
    ]),
  );
  console.log(JSON.stringify({ cryptoProvider, batchScale: BATCH_SCALE, modes }));
}
