#!/usr/bin/env node
// The `idsync` executable: the only place that touches process argv and the exit status.
import { endQuietlyOnClosedPipes, processIo } from './output.js';
import { run } from './program.js';

endQuietlyOnClosedPipes(process.stdout, process.stderr, (code) => process.exit(code));

process.exitCode = await run(process.argv.slice(2), processIo);
