// Freezing a value and everything it holds: for records one cache hands to many readers (resolved
// DID documents, project settings), so that no reader can change what the others see.

/** Freezes `value` and, recursively, every object it holds; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
