// A folder and the parents it lacks, made one level at a time. Node 20's
// mkdir(path, { recursive: true }) never settles, at full CPU, for a path on a file system that
// answers a new entry with ENOENT although its parent exists (e.g. /proc/x): it retries the same
// call for ever. A --data folder named there hung the command instead of failing; here the first
// refusal is the answer.
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { IdsyncError } from './errors.js';

/** Makes `path` and its missing parents; refused with folder_unusable, naming the folder and the system's reason. */
export async function makeDir(path: string): Promise<void> {
  // An empty name would resolve to the working folder: data written where nobody asked.
  if (path.trim() === '') throw new IdsyncError('folder_unusable', 'no folder given: the name is empty');
  const missing: string[] = [];
  let at = resolve(path);
  for (;;) {
    try {
      const s = await stat(at);
      if (!s.isDirectory()) throw unusable(path, `${at} is not a folder`);
      break;
    } catch (err) {
      if (err instanceof IdsyncError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw unusable(path, `${at}: ${code ?? String(err)}`, err);
      const up = dirname(at);
      if (up === at) break;
      missing.push(at);
      at = up;
    }
  }
  for (const dir of missing.reverse()) {
    try {
      await mkdir(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw unusable(path, `${dir} cannot be made: ${code ?? String(err)}`, err);
    }
  }
}

/**
 * makeDir, and a file written there and removed: for a folder whose files come at the end of a
 * long run (a fleet's report, a conformance run's), checked before the run so that a folder
 * nothing can be written to is said at once, not after the run, its results lost.
 */
export async function makeWritableDir(path: string): Promise<void> {
  await makeDir(path);
  const probe = join(resolve(path), `.idsync-write-check-${process.pid}`);
  try {
    await writeFile(probe, '');
  } catch (err) {
    throw unusable(path, `files cannot be written there: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, err);
  }
  await rm(probe, { force: true });
}

function unusable(path: string, why: string, cause?: unknown): IdsyncError {
  return new IdsyncError('folder_unusable', `cannot use the folder ${path}: ${why}`, cause === undefined ? undefined : { cause });
}
