// Runs `idsync service …` in a child process for the durability tests (src/cli/main.ts
// registers the same command in the real CLI).
import { Command } from 'commander';
import { registerServiceCommand } from '../../src/cli/commands/service.js';

const program = new Command('idsync').exitOverride();
registerServiceCommand(program);
await program.parseAsync(process.argv.slice(2), { from: 'user' });
