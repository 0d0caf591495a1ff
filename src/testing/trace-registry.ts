// Which running testbeds can draw what happened, so that a wait that times out (wait.ts) can
// write a trace of it and name the file in its error. A small module on purpose: wait.ts imports
// it, and nothing heavy comes with it.

type Tracer = () => Promise<string>;

const tracers = new Set<Tracer>();

/** Registers a tracer (it writes an HTML trace and resolves with its path); returns the unregistration. */
export function registerTracer(tracer: Tracer): () => void {
  tracers.add(tracer);
  return () => void tracers.delete(tracer);
}

/** The trace files of every registered testbed, written now; given up after `capMs` (a wait's error must not be late). */
export async function writeTimeoutTraces(capMs = 500): Promise<string[]> {
  if (tracers.size === 0) return [];
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<string[]>((resolve) => (timer = setTimeout(() => resolve([]), capMs)));
  const all = Promise.all([...tracers].map((t) => t().catch(() => undefined))).then((files) => files.filter((f): f is string => typeof f === 'string'));
  try {
    return await Promise.race([all, cap]);
  } finally {
    clearTimeout(timer);
  }
}
