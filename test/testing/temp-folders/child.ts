// Run as a child process by temp-folders.test.ts (TMPDIR set to a folder of its own): starts a
// testbed on temporary stores, prints the store folders it made, then
// - 'forget': exits without close(), its servers and stores still open;
// - 'close-then-reuse': closes it, makes a folder where each store's was (a name another process
//   took since), and exits;
// - 'wait-for-signal': waits to be stopped by a signal, as a test runner stops its workers;
// - 'own-handler': the same, with a SIGTERM handler of its own (registered first) that closes the
//   testbed and exits 3, as a command that shuts down cleanly does.
import { mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestbed, type Testbed } from '../../../src/testing/index.js';

const mode = process.argv[2];
let bed: Testbed | undefined;
if (mode === 'own-handler') {
  process.once('SIGTERM', () => {
    void bed!.close().then(() => process.exit(3));
  });
}
bed = await startTestbed({ storage: 'temp' });
const folders = readdirSync(tmpdir()).filter((n) => n.startsWith('idsync-testbed-'));
if (mode === 'close-then-reuse') {
  await bed.close();
  for (const f of folders) mkdirSync(join(tmpdir(), f));
}
process.stdout.write(`${JSON.stringify(folders)}\n`);
if (mode === 'wait-for-signal' || mode === 'own-handler') setInterval(() => undefined, 1000);
else process.exit(0);
