// The `idsync` command tree and the one place that turns any failure into the CLI's error
// line and exit status (cli/errors.ts). main.ts only connects it to the process.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerDidCommand, type CommandDeps } from './commands/did.js';
import { registerMessageCommand } from './commands/message.js';
import { registerMessageCheckCommand } from './commands/message-check.js';
import { registerRulesCommand } from './commands/rules.js';
import { EXIT_OK, errorLine, exitCodeFor, fromCommander, usageError, verboseReport } from './errors.js';
import { toIdsyncError } from '../errors.js';
import { createOutput, type CliIo } from './output.js';

/**
 * Commands whose modules are slow to load (the service pulls in fastify and everything behind it,
 * ~4 s under tsx) are imported only when the command line names them; otherwise a stub keeps
 * them in the help listing.
 */
interface LazyCommand {
  name: string;
  summary: string;
  register(program: Command, io: CliIo): Promise<void>;
}

const LAZY_COMMANDS: LazyCommand[] = [
  {
    name: 'service',
    summary: 'run the local twin of the identity data sync and issuance service',
    register: async (program, io) => (await import('./commands/service.js')).registerServiceCommand(program, { io }),
  },
  {
    name: 'mediator',
    summary: "run idsync's DIDComm v2 mediator: coordinate-mediation, routing forward, Message Pickup 3.0 with live mode",
    register: async (program, io) => (await import('./commands/mediator.js')).registerMediatorCommand(program, { io }),
  },
  {
    name: 'wallet',
    summary: 'a holder wallet in a folder: create, serve, accept or approve invitations, pick up, list credentials and messages',
    register: async (program, io) => (await import('./commands/wallet.js')).registerWalletCommands(program, { io, output: (json) => createOutput(io, json) }),
  },
  {
    name: 'proxy',
    summary: "a fault-injecting proxy in front of a party's DIDComm endpoint, for testing flows under faults",
    register: async (program, io) => (await import('./commands/proxy.js')).registerProxyCommand(program, { io, output: (json) => createOutput(io, json) }),
  },
  { name: 'fleet', summary: 'load a service with simulated holder wallets on every core: connect, sync or issuance flows', register: async (program, io) => (await import('./commands/fleet.js')).registerFleetCommand(program, { io, output: (json) => createOutput(io, json) }) },
  {
    name: 'conformance',
    summary: 'judge another DIDComm v2 agent: idsync plays its counterpart and runs conformance cases rule by rule',
    register: async (program, io) => (await import('./commands/conformance.js')).registerConformanceCommand(program, { io, output: (json) => createOutput(io, json) }),
  },
  {
    name: 'demo',
    summary: 'the service twin and a wallet in one process: the sync flow and an e-mailed issuance, step by step',
    register: async (program, io) => (await import('./commands/demo.js')).registerDemoCommand(program, { io, output: (json) => createOutput(io, json) }),
  },
];

export interface BuildOptions {
  /** The command line, so that only the lazy command it names is loaded. */
  args?: string[];
  /** Receives the help commander would print on stderr for a command group called alone. */
  onHelpError?: (text: string) => void;
}

export async function buildProgram(io: CliIo, options: BuildOptions = {}): Promise<Command> {
  const program = new Command('idsync')
    .description('DIDs, DIDComm v2 messages, a holder wallet and a local twin of the identity sync service')
    .version(packageVersion(), '-V, --version')
    .option('--verbose', 'on error, print the stack trace, details and causes');

  // Settings that commands created below inherit: errors come back to run() as exceptions instead
  // of commander printing and exiting; help it shows for a missing subcommand is kept, not printed.
  program
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => options.onHelpError?.(text),
      outputError: () => {},
    })
    .showSuggestionAfterError(true);

  const deps: CommandDeps = { io, output: (json) => createOutput(io, json) };
  registerDidCommand(program, deps);
  registerMessageCommand(program, deps);
  registerMessageCheckCommand(program, deps);
  registerRulesCommand(program, deps);
  const named = commandNamed(options.args ?? []);
  for (const lazy of LAZY_COMMANDS) {
    if (lazy.name === named) await lazy.register(program, io);
    else program.command(lazy.name).description(lazy.summary);
  }
  return program;
}

/** Runs the CLI on `args` (without node and script) and returns the exit status. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let helpText = '';
  try {
    const program = await buildProgram(io, { args, onHelpError: (text) => (helpText = text) });
    await program.parseAsync(args, { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CommanderError && err.exitCode === 0) return EXIT_OK; // --help, --version
    const error = err instanceof CommanderError ? commanderError(err, helpText) : toIdsyncError(err);
    io.stderr(errorLine(error) + '\n');
    // Commander may fail before it has parsed --verbose, so look at the raw arguments.
    if (args.includes('--verbose')) io.stderr(verboseReport(error) + '\n');
    return exitCodeFor(error);
  }
}

/** The command the arguments name (`idsync --verbose service …`, `idsync help service`). */
function commandNamed(args: string[]): string | undefined {
  const words = args.filter((a) => !a.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

function commanderError(err: CommanderError, help: string) {
  if (err.code === 'commander.help') {
    // A command group called without a subcommand: name it instead of printing the whole help.
    const usage = /Usage: (\S+(?: [a-z][\w-]*)*)/.exec(help)?.[1] ?? 'idsync';
    return usageError('missing_command', `${usage} needs a command (see ${usage} --help)`);
  }
  return fromCommander(err);
}

function packageVersion(): string {
  // package.json sits two levels up from both src/cli and dist/cli.
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
