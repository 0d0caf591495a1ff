// A scenario as worker threads can receive it: a built-in by name, or a module of one's own that
// exports a Scenario (functions cannot cross to a worker; a module path can).
import { pathToFileURL } from 'node:url';
import { isAbsolute, resolve } from 'node:path';
import { IdsyncError } from '../errors.js';
import { builtinScenario } from './scenarios.js';
import type { Scenario } from './types.js';

export type ScenarioRef =
  | { builtin: string; channel?: 'DIDCOMM' | 'EMAIL' }
  /** A module (path or file URL) whose `export` (default: `scenario`, else the default export) is a Scenario. */
  | { module: string; export?: string };

export async function loadScenario(ref: ScenarioRef): Promise<Scenario> {
  if ('builtin' in ref) return builtinScenario(ref.builtin, ref.channel ? { channel: ref.channel } : {});
  const url = /^[a-z]+:/i.test(ref.module) ? ref.module : pathToFileURL(isAbsolute(ref.module) ? ref.module : resolve(ref.module)).href;
  const mod = (await import(url)) as Record<string, unknown>;
  const s = (ref.export ? mod[ref.export] : (mod.scenario ?? mod.default)) as Scenario | undefined;
  if (!s || typeof s.run !== 'function' || !Array.isArray(s.steps) || typeof s.name !== 'string') {
    throw new IdsyncError('invalid_argument', `${ref.module} exports no scenario ({name, steps, run}) as ${ref.export ?? 'scenario or default'}`);
  }
  return s;
}
