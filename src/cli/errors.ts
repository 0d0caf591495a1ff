// How the CLI reports a failure: one line `idsync: <code>: <message>` on stderr and a non-zero
// exit (2 for usage errors, 1 for everything else). --verbose adds the stack, details and causes.
import type { CommanderError } from 'commander';
import { IdsyncError, toIdsyncError } from '../errors.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A failure the user caused by the way they called the command (exit 2). */
export function usageError(code: string, message: string): IdsyncError {
  return new IdsyncError(code, message, { details: { usage: true } });
}

/** Codes are printed as [a-z_]+ so scripts can match them (`commander.unknownOption` → `unknown_option`). */
export function cliCode(code: string): string {
  const snake = code
    .replace(/^commander\./, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return snake || 'error';
}

/** Commander's own errors as ours: its messages start with "error: " and may carry a "(Did you mean …?)" line. */
export function fromCommander(err: CommanderError): IdsyncError {
  const message = err.message.replace(/^error:\s*/, '');
  return usageError(cliCode(err.code), message);
}

export function exitCodeFor(err: IdsyncError): number {
  return err.details?.usage === true ? EXIT_USAGE : EXIT_FAILURE;
}

/** The one stderr line; newlines inside a message are folded so the line stays one line. */
export function errorLine(err: unknown): string {
  const e = toIdsyncError(err);
  return `idsync: ${cliCode(e.code)}: ${oneLine(e.message)}`;
}

/** What --verbose adds under the error line: stack, details (never key material: see src/errors.ts) and causes. */
export function verboseReport(err: unknown): string {
  const lines: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current !== undefined && depth < 5; depth++) {
    if (depth > 0) lines.push(`caused by: ${current instanceof Error ? `${current.name}: ${current.message}` : String(current)}`);
    if (current instanceof IdsyncError && current.details) {
      const { usage: _usage, ...details } = current.details;
      if (Object.keys(details).length > 0) lines.push(`details: ${JSON.stringify(details)}`);
    }
    if (current instanceof Error && current.stack) lines.push(current.stack);
    current = current instanceof Error ? current.cause : undefined;
  }
  return lines.join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
