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
 * JSON text of a plain object whose own members may have text kept (keepJsonText): the other
 * members written by one JSON.stringify, then the kept ones copied in after them (a member's
 * place among its siblings is not kept; its value is). Undefined when no member has any: the
 * caller writes it as it would have.
 */
export function jsonWithKeptText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
  const members = value as Record<string, unknown>;
  const keys = Object.keys(members);
  let rest: Record<string, unknown> | undefined;
  let kept = '';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = members[k];
    const text = typeof v === 'object' && v !== null ? written.get(v) : undefined;
    if (text !== undefined) {
      if (!rest) {
        // No prototype: a member named __proto__ is set as a member, as JSON.parse makes it.
        rest = Object.create(null) as Record<string, unknown>;
        for (let j = 0; j < i; j++) rest[keys[j]!] = members[keys[j]!];
      }
      kept += `,${JSON.stringify(k)}:${text}`;
    } else if (rest) rest[k] = v;
  }
  if (!rest) return undefined;
  const head = JSON.stringify(rest);
  return head === '{}' ? `{${kept.slice(1)}}` : `${head.slice(0, -1)}${kept}}`;
}
