// How long-running commands (`service`, `wallet serve`) learn that they should stop: the first
// SIGTERM or SIGINT. They then shut down cleanly instead of the process dying mid-write.

export const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Resolves with the first stop signal; the listeners for the others are removed with it. */
export function untilSignal(signals: readonly StopSignal[] = STOP_SIGNALS): Promise<StopSignal> {
  return new Promise((resolve) => {
    const listeners = signals.map((signal) => [signal, () => stop(signal)] as const);
    const stop = (signal: StopSignal) => {
      for (const [s, listener] of listeners) process.off(s, listener);
      resolve(signal);
    };
    for (const [s, listener] of listeners) process.once(s, listener);
  });
}
