// JSON text already written for an object, kept beside it so that whoever stores the object next
// writes it out again only by copying. An outgoing plaintext is written out when it is packed,
// then stored twice as it is: as its thread's last message (the durable steps) and in the message
// log, each a few KB that JSON.stringify would scan and escape anew.
//
// Only an object nothing changes afterwards may be given text here: the text is what it stands
// for from then on. The router gives the plaintext it packed, so what the in-memory store
// (light-store.ts) keeps is what went on the wire, its members in the wire's order. The LevelDB
// store writes the object as before: the same value, read back equal.

const written = new WeakMap<object, string>();

/** Keeps `text` as the JSON of `value`, which must not change from now on. */
export function keepJsonText(value: object, text: string): void {
  written.set(value, text);
}

/** The JSON text kept for `value`, if any. */
export function keptJsonText(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? written.get(value) : undefined;
}

/**
 * JSON.stringify(value) for a plain object whose own members may have text kept (keepJsonText):
 * those are copied in, the others written as JSON.stringify writes them. Undefined when no member
 * has any: the caller writes it as it would have.
 */
export function jsonWithKeptText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
  const members = value as Record<string, unknown>;
  let found = false;
  for (const k in members) {
    const v = members[k];
    if (typeof v === 'object' && v !== null && written.has(v)) {
      found = true;
      break;
    }
  }
  if (!found) return undefined;
  let out = '';
  for (const k of Object.keys(members)) {
    const v = members[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    const text = (typeof v === 'object' && v !== null ? written.get(v) : undefined) ?? JSON.stringify(v);
    out += `,${JSON.stringify(k)}:${text}`;
  }
  return `{${out.slice(1)}}`;
}
