// A scenario as worker threads can receive it: a built-in by name, or a module of one's own that
// exports a Scenario (functions cannot cross to a worker; a module path can).
import { stat } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isAbsolute, resolve } from 'node:path';
import { IdsyncError } from '../errors.js';
import { builtinScenario } from './scenarios.js';
import type { Scenario } from './types.js';

export type ScenarioRef =
  | { builtin: string; channel?: 'DIDCOMM' | 'EMAIL' }
  /** A module (path or file URL) whose `export` (default: `scenario`, else the default export) is a Scenario. */
  | { module: string; export?: string };

/**
 * The scenario `ref` names. A module that cannot be used is a coded error naming it (`label`
 * says what gave it, e.g. the CLI's `--module`): `file_not_found` or `file_unreadable` for the
 * file, `scenario_invalid` for a module that does not import (syntax, a file type Node does not
 * import, its own imports or top-level code failing) or exports no scenario.
 */
export async function loadScenario(ref: ScenarioRef, label = 'scenario module'): Promise<Scenario> {
  if ('builtin' in ref) return builtinScenario(ref.builtin, ref.channel ? { channel: ref.channel } : {});
  const url = /^[a-z]+:/i.test(ref.module) ? ref.module : pathToFileURL(isAbsolute(ref.module) ? ref.module : resolve(ref.module)).href;
  const named = `${label} ${ref.module}`;
  if (url.startsWith('file:')) await checkFile(fileURLToPath(url), named);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new IdsyncError('scenario_invalid', `${named} cannot be imported: ${why}`, { cause: err, details: { module: ref.module } });
  }
  const s = (ref.export ? mod[ref.export] : (mod.scenario ?? mod.default)) as Scenario | undefined;
  if (!s || typeof s.run !== 'function' || !Array.isArray(s.steps) || typeof s.name !== 'string') {
    throw new IdsyncError('scenario_invalid', `${named} exports no scenario ({name, steps, run}) as ${ref.export ?? 'scenario or default'}`, { details: { module: ref.module } });
  }
  return s;
}

/** The module's file is there and is a file: said as such, not as a failed import from this file. */
async function checkFile(path: string, named: string): Promise<void> {
  let isFile: boolean;
  try {
    isFile = (await stat(path)).isFile();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new IdsyncError('file_not_found', `${named}: no such file`, { cause: err });
    throw new IdsyncError('file_unreadable', `${named} cannot be read (${code ?? 'error'})`, { cause: err });
  }
  if (!isFile) throw new IdsyncError('file_unreadable', `${named} is not a file`);
}
