// How a message record is stored (messages.ts): smaller than the record, and read back as the
// very same record, so that nothing reading the log (the console, `idsync log`, conformance
// reports) sees a difference.
//
// - A header the record repeats from its plaintext (`from`, `to`, `type`, `pthid`) is stored as 0,
//   "the plaintext's": a holder's ion long-form DID is about 1 KB, and a record held it twice.
//   The key stays where it was, so the record reads back with its keys in the same order.
// - A passed result with no detail, `{rule, ok: true, severity, layer}` (most of an inbound
//   record's 30-odd results, about 80 bytes each), is stored as one short string: the severity's
//   and the layer's initial, a colon, the rule id ("Ep:plaintext.id"). Severity and layer are
//   stored, not looked up: the store imports no layer above it (architecture: arrows point
//   down), and a record keeps the severity its rule had when the message was checked.
//
// Both forms are told apart by their JSON type (a header is never 0, a result never a string),
// so records stored before either form read as they were written.

/** A conformance result as messages.ts stores it (structural: messages.ts imports this file). */
interface ConformanceResult {
  rule: string;
  ok: boolean;
  detail?: string;
  severity?: 'error' | 'warning' | 'advice';
  layer?: string;
}

/** What of a message record this file reads (messages.ts MessageRecord). */
interface MessageRecord {
  message: object;
  conformance?: ConformanceResult[];
}

/** A header stored as "the plaintext's". */
const SAME = 0;
/** The headers a record repeats from its plaintext. */
const HEADERS = ['from', 'to', 'type', 'pthid'] as const;

const SEVERITY_INITIAL: Record<string, string> = { error: 'E', warning: 'W', advice: 'A' };
const SEVERITY_OF: Record<string, ConformanceResult['severity']> = { E: 'error', W: 'warning', A: 'advice' };
const LAYER_INITIAL: Record<string, string> = { envelope: 'e', plaintext: 'p', protocol: 'r', oob: 'o' };
const LAYER_OF: Record<string, string> = { e: 'envelope', p: 'plaintext', r: 'protocol', o: 'oob' };

/** A stored result: a passed one in short (see the top of this file), any other as it is. */
export type StoredResult = ConformanceResult | string;

/** The short form of `r`, or `r` itself when it is not a plain passed result. */
function shortResult(r: ConformanceResult): StoredResult {
  if (r.ok !== true || r.detail !== undefined) return r;
  const s = r.severity !== undefined ? SEVERITY_INITIAL[r.severity] : undefined;
  const l = r.layer !== undefined ? LAYER_INITIAL[r.layer] : undefined;
  if (s === undefined || l === undefined) return r;
  // A result is its type's fields: rule, ok, severity, layer (and no detail, here).
  return `${s}${l}:${r.rule}`;
}

/** A stored result as the result it stands for; keys in the order conformance's pass() makes them. */
function fullResult(r: StoredResult): ConformanceResult {
  if (typeof r !== 'string') return r;
  return { rule: r.slice(3), ok: true, severity: SEVERITY_OF[r[0]!], layer: LAYER_OF[r[1]!] };
}

/** Results as stored. */
export function storedResults<R extends ConformanceResult>(results: R[]): (R | string)[] {
  return results.map((r) => shortResult(r) as R | string);
}

/** Stored results as the results they stand for. */
export function readResults<R extends ConformanceResult>(stored: (R | string)[]): R[] {
  for (let i = 0; i < stored.length; i++) if (typeof stored[i] === 'string') return stored.map((r) => fullResult(r) as R);
  return stored as R[];
}

function sameList(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `rec` as stored: a new object, without the key (`seq`) a logged record carries; `rec` is left as it is. */
export function storedRecord<T extends MessageRecord>(rec: T & { seq?: string }): T {
  const { seq: _seq, ...copy } = rec;
  const out = copy as Record<string, unknown>;
  const message = rec.message as Record<string, unknown> | undefined;
  if (message && typeof message === 'object') {
    for (const h of HEADERS) {
      const v = out[h];
      if (v !== undefined && (h === 'to' ? sameList(v, message[h]) : v === message[h])) out[h] = SAME;
    }
  }
  if (Array.isArray(rec.conformance)) out.conformance = storedResults(rec.conformance);
  return out as unknown as T;
}

/** A stored record as the record it stands for (changed in place: it was just read). */
export function readRecord<T extends MessageRecord>(stored: T): T {
  const rec = stored as unknown as Record<string, unknown>;
  const message = stored.message as unknown as Record<string, unknown> | undefined;
  for (const h of HEADERS) {
    if (rec[h] !== SAME) continue;
    const v = message?.[h];
    // The plaintext's own list, copied: a reader that changes one must not change the other.
    rec[h] = Array.isArray(v) ? [...v] : v;
  }
  if (Array.isArray(stored.conformance)) stored.conformance = readResults(stored.conformance as StoredResult[]);
  return stored;
}
