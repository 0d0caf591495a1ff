// How the CLI reports a failure: one line `idsync: <code>: <message>` on stderr and a non-zero
// exit (2 for usage errors, a command's own status where it names one in details.exitCode — 3
// for a conformance run that judged nothing — and 1 for everything else). --verbose adds the
// stack, details and causes.
import type { CommanderError } from 'commander';
import { IdsyncError, isErrorCode, toIdsyncError, type ErrorCode } from '../errors.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A failure the user caused by the way they called the command (exit 2). */
export function usageError(code: ErrorCode, message: string): IdsyncError {
  return new IdsyncError(code, message, { details: { usage: true } });
}

/**
 * Runs `work`, which reads what the command's arguments and options name (files, keys, DID
 * documents), and makes its refusals usage errors (exit 2). Commands whose exit 1 is a verdict
 * (`message check`: not conformant; `conformance run`: a case failed) need this, so a script
 * never reads a missing or malformed input file as a verdict on the message or the agent.
 */
export async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const e = toIdsyncError(err);
    if (e.code === 'internal_error') throw e;
    throw new IdsyncError(e.code, e.message, { cause: e.cause, details: { ...e.details, usage: true } });
  }
}

/** Commander's error codes (commander/lib/command.js) as catalogue codes; any other is `invalid_argument`. */
const COMMANDER_CODES: Readonly<Record<string, ErrorCode>> = {
  'commander.unknownOption': 'unknown_option',
  'commander.unknownCommand': 'unknown_command',
  'commander.missingArgument': 'missing_argument',
  'commander.optionMissingArgument': 'option_missing_argument',
  'commander.missingMandatoryOptionValue': 'missing_mandatory_option_value',
  'commander.conflictingOption': 'conflicting_option',
  'commander.excessArguments': 'excess_arguments',
  'commander.invalidArgument': 'invalid_argument',
};

/** Commander's own errors as ours: its messages start with "error: " and may carry a "(Did you mean …?)" line. */
export function fromCommander(err: CommanderError): IdsyncError {
  const message = err.message.replace(/^error:\s*/, '');
  return usageError(Object.hasOwn(COMMANDER_CODES, err.code) ? COMMANDER_CODES[err.code] : 'invalid_argument', message);
}

export function exitCodeFor(err: IdsyncError): number {
  if (err.details?.usage === true) return EXIT_USAGE;
  const own = err.details?.exitCode;
  return typeof own === 'number' && Number.isInteger(own) && own > 2 && own < 126 ? own : EXIT_FAILURE;
}

/** The one stderr line; newlines inside a message are folded so the line stays one line. */
export function errorLine(err: unknown): string {
  const e = toIdsyncError(err);
  // Codes are catalogue keys ([a-z_]+, docs/errors.md) so scripts can match them; the check only
  // guards against an error built around the type system.
  return `idsync: ${isErrorCode(e.code) ? e.code : 'internal_error'}: ${oneLine(e.message)}`;
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
