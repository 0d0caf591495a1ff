// Shared bits for transport tests: fake packed messages (transports never unpack) and an
// inbox to await arrivals without sleeping.

export const encrypted = (n = 1) => JSON.stringify({ protected: 'eyJ0eXAiOiJhcHBsaWNhdGlvbi9kaWRjb21tLWVuY3J5cHRlZCtqc29uIn0', recipients: [{ header: { kid: 'did:example:bob#key-2' }, encrypted_key: 'k' }], iv: 'aXY', ciphertext: `c${n}`, tag: 'dGFn' });
export const signed = () => JSON.stringify({ payload: 'eyJpZCI6IjEifQ', signatures: [{ protected: 'eyJhbGciOiJFZERTQSJ9', signature: 'c2ln', header: { kid: 'did:example:alice#key-1' } }] });
export const plain = () => JSON.stringify({ id: '1', type: 'https://didcomm.org/trust-ping/2.0/ping', body: {} });

/** Collects values; `next()` resolves with the next one, whether it already came or not. */
export function inbox<T = string>() {
  const items: T[] = [];
  const waiting: ((t: T) => void)[] = [];
  return {
    items,
    push(t: T) {
      const w = waiting.shift();
      if (w) w(t);
      else items.push(t);
    },
    next(): Promise<T> {
      const t = items.shift();
      if (t !== undefined) return Promise.resolve(t);
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}

export function deferred<T = void>() {
  let resolve!: (t: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
