// Every WASM object didcomm-node hands out must be freed. Measured without `.free()`, a round trip
// of a 1 KB message leaks about 3.4 KB of WASM memory (≈ 70 MB over 20,000 messages), which
// shows in process.memoryUsage().external. With freeing, it stays flat. This concerns the
// didcomm-node engine only (the native one holds no WASM memory), so it runs with that engine.
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { pack, unpack } from '../../src/didcomm/envelope/index.js';
import type { EnvelopeContext, EnvelopeMode, PlainMessage } from '../../src/didcomm/types.js';
import { contextFor, makeParty, mapResolver } from './envelope-fixtures.js';

// A collector for stable readings (vitest workers are not started with --expose-gc).
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const MESSAGES = 20_000;
const WARM_UP = 1_000;
// Bounds after warm-up. WASM linear memory counts in `external`: it grows in 64 KB pages and
// never shrinks, so any leak shows there; 4 MB is under what leaking only the 1,600 protected
// round trips would take (≈ 5.4 MB). Heap + external < 16 MB; RSS (allocator noise) < 64 MB.
const MAX_EXTERNAL_GROWTH = 4 * 1024 * 1024;
const MAX_HEAP_EXTERNAL_GROWTH = 16 * 1024 * 1024;
const MAX_RSS_GROWTH = 64 * 1024 * 1024;

const alice = makeParty('alice');
const bob = makeParty('bob');
const resolve = mapResolver([alice.doc, bob.doc]);
const ctxA: EnvelopeContext = { ...contextFor(alice, resolve), engine: 'didcomm-node' };
const ctxB: EnvelopeContext = { ...contextFor(bob, resolve), engine: 'didcomm-node' };
const body = { text: 'x'.repeat(1024) };

// Encrypted and signed round trips cost 1–3 ms of CPU (more on a busy machine), plaintext
// 0.06 ms; every round trip builds and frees two WASM messages either way. One message in 50
// of each of four protected modes keeps 20,000 round trips near 5 s of CPU while each of those
// paths still runs 400 times.
const PROTECTED: Record<number, EnvelopeMode> = { 0: 'authcrypt', 12: 'anoncrypt', 25: 'signed', 37: 'anoncrypt-authcrypt' };
function modeFor(i: number): EnvelopeMode {
  return PROTECTED[i % 50] ?? 'plaintext';
}

async function round(i: number): Promise<void> {
  const m: PlainMessage = { id: `m-${i}`, type: 'https://example.com/t/1.0/x', from: alice.did, to: [bob.did], body };
  if (i % 100 === 50) {
    // Error paths free too: the library builds the message, then refuses the recipient.
    await expect(pack(m, { mode: 'anoncrypt', to: 'did:example:carol' }, ctxA)).rejects.toMatchObject({
      code: 'didcomm_invalid_argument',
      details: { library: 'DIDCommIllegalArgument' }, // the WASM library refused it: this is its engine
    });
    await expect(unpack('{"protected":"e30","recipients":[],"iv":"","ciphertext":"","tag":""}', ctxB)).rejects.toMatchObject({ code: 'didcomm_malformed' });
    return;
  }
  const { packed } = await pack(m, { mode: modeFor(i) }, ctxA);
  const { message } = await unpack(packed, ctxB);
  if (message.id !== m.id) throw new Error(`round ${i} came back as ${message.id}`);
}

function reading() {
  gc();
  const u = process.memoryUsage();
  return { rss: u.rss, external: u.external, heapExternal: u.heapUsed + u.external };
}

describe('WASM memory', () => {
  it(`stays flat over ${MESSAGES.toLocaleString('en')} pack/unpack round trips`, async () => {
    for (let i = 0; i < WARM_UP; i++) await round(i);
    const before = reading();
    const started = performance.now();
    for (let i = 0; i < MESSAGES; i++) await round(i);
    const after = reading();
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    console.log(
      `${MESSAGES} round trips in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
        `external ${mb(before.external)} → ${mb(after.external)}, heap+external ${mb(before.heapExternal)} → ${mb(after.heapExternal)}, ` +
        `rss ${mb(before.rss)} → ${mb(after.rss)}`,
    );
    expect(after.external - before.external).toBeLessThan(MAX_EXTERNAL_GROWTH);
    expect(after.heapExternal - before.heapExternal).toBeLessThan(MAX_HEAP_EXTERNAL_GROWTH);
    expect(after.rss - before.rss).toBeLessThan(MAX_RSS_GROWTH);
  }, 30_000);
});
