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

export interface SignalAbort {
  /** Aborted by the first stop signal. */
  signal: AbortSignal;
  /** The signal that stopped the command, if one did. */
  stoppedBy(): StopSignal | undefined;
  /** Stops listening (the command ended by itself). */
  dispose(): void;
}

/**
 * For a command that waits on others and has something to undo when stopped (`wallet create`
 * behind a mediator that does not answer): the first stop signal aborts `signal` instead of
 * ending the process, so that what waits fails at once and the command's own clean-up runs. Its
 * listeners go with it: a second Ctrl-C ends the process as usual.
 */
export function abortOnSignal(signals: readonly StopSignal[] = STOP_SIGNALS): SignalAbort {
  const controller = new AbortController();
  let by: StopSignal | undefined;
  const dispose = () => {
    for (const [s, listener] of listeners) process.off(s, listener);
  };
  const listeners = signals.map((signal) => [signal, () => ((by = signal), dispose(), controller.abort())] as const);
  for (const [s, listener] of listeners) process.once(s, listener);
  return { signal: controller.signal, stoppedBy: () => by, dispose };
}
