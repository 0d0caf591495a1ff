// Lookups in plain-object tables by keys that come from outside (a peer's JWE header, a problem
// code, a DID document's key type, a message type): an own member or nothing. A plain object
// inherits members named "constructor", "toString", "__proto__" and more, which `table[key]` would
// return for such a key, a function or an object where the caller expects its table's values.
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
