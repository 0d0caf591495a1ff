// What the fuzz tests share: a seeded PRNG, so that a failure replays exactly, and values of any
// JSON shape, deep or not, drawn from it with strings that have broken parsers before.

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Draw {
  rnd: () => number;
  int(n: number): number;
  pick<T>(xs: readonly T[]): T;
  /** Any JSON value: strings from `strings` (and the usual suspects), edge numbers, lists and objects a few levels deep. */
  value(depth?: number): unknown;
}

const SUSPECTS = ['', ' ', 'null', '0', '-1', '1e309', '%00', '\u0000', '😀', '__proto__', 'constructor', 'toString', 'did:', 'x'.repeat(3000)];
const KEYS = ['id', 'limit', 'offset', 'recipient_did', 'action', 'code', 'status', 'format', '__proto__', 'constructor', 'x'];

export function draw(seed: number, strings: () => string[] = () => []): Draw {
  const rnd = prng(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T,>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const str = () => pick([...SUSPECTS, ...strings()]);
  function value(depth = 0): unknown {
    switch (int(depth > 2 ? 5 : 7)) {
      case 0: return str();
      case 1: return rnd() < 0.5;
      case 2: return pick([0, -1, 1, 2.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER, 2 ** 53 + 1]);
      case 3: return null;
      case 4: return `${str()}${int(1000)}`;
      case 5: return Array.from({ length: int(5) }, () => value(depth + 1));
      default: return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(KEYS), value(depth + 1)]));
    }
  }
  return { rnd, int, pick, value };
}
