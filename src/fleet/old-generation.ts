// The old generation a fleet's worker threads start with. V8 sizes a new isolate's first
// old-generation limit small and grows it from what survives each full collection. The wallets'
// thread keeps little (idle wallets are pages of text, flows finish), so its limit stayed at
// 110-220 MB and a 10,000-wallet run made 68 full collections there, each marking the whole heap
// on the helper threads that share the machine's two cores with the busy ones. Started at 300 MB,
// it made 20, and the run took 58.2 s instead of 60.0 s (docs/performance.md, "The old generation, bounded caches, ...").
//
// Node gives a worker no setting for it (resourceLimits has the maximum only), and a V8 flag holds
// for the whole process: set once here, it applies to every isolate made afterwards, which in a
// fleet's process are its worker threads. A flag the process was started with is left as it is.
import { setFlagsFromString } from 'node:v8';

/** MB of old generation a fleet's worker thread starts with, when the process names none. */
export const WORKER_INITIAL_OLD_GENERATION_MB = 300;

const FLAG = '--initial-old-space-size';

/** Whether the process was started with an initial old space of its own (node's options or NODE_OPTIONS). */
export function namesInitialOldSpace(execArgv: readonly string[], nodeOptions = ''): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((a) => a === FLAG || a.startsWith(`${FLAG}=`) || a === '--initial_old_space_size' || a.startsWith('--initial_old_space_size='));
}

let set: number | undefined;

/**
 * Makes isolates created from now on start with `mb` of old generation, unless the process named
 * its own. Returns the size in force for them, or undefined when the process's own flag is.
 */
export function startWorkersWithOldGeneration(mb = WORKER_INITIAL_OLD_GENERATION_MB, execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): number | undefined {
  if (namesInitialOldSpace(execArgv, nodeOptions)) return undefined;
  if (set !== mb) {
    setFlagsFromString(`${FLAG}=${mb}`);
    set = mb;
  }
  return mb;
}
