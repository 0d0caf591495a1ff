#!/usr/bin/env node
// The `idsync` executable: the only place that touches process argv and the exit status.
import { processIo } from './output.js';
import { run } from './program.js';

process.exitCode = await run(process.argv.slice(2), processIo);
