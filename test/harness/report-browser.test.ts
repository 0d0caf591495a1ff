// The HTML report opens offline in a real browser and shows the diagrams: headless Chromium loads
// report.html with every host unresolvable and prints the DOM it built. Skipped, saying why, where
// /usr/bin/chromium is missing (.ci/run installs Debian's chromium when it runs as root).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { writeReportFiles } from '../../src/harness/report-files.js';
import { runConformance } from '../../src/harness/run.js';
import { startWrongAgent } from './wrong-agent.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE = existsSync(CHROMIUM);

function chromium(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', '--host-resolver-rules=MAP * ~NOTFOUND', '--no-first-run', ...args], { timeout: 30_000, maxBuffer: 8 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}

describe('report.html in headless Chromium', () => {
  it.skipIf(!HAVE)(`renders offline with a sequence diagram per case and failed rules linked to the catalogue${HAVE ? '' : ` (skipped: no ${CHROMIUM}; apt-get install chromium)`}`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'idsync-report-'));
    const agent = await startWrongAgent(['ping-thid']);
    try {
      const report = await runConformance({ target: agent.did, resolve: documentResolver(createResolver({})), suites: ['trust-ping', 'transport'], timeoutMs: 2000 });
      await writeReportFiles(report, dir);
      const url = `file://${join(dir, 'report.html')}`;
      const dom = await chromium(['--dump-dom', url]);
      // The browser parsed three cases, each with its SVG diagram of arrows.
      expect(dom.match(/<svg[^>]*class="sequence"/g)).toHaveLength(3);
      expect(dom.match(/<g class="arrow bad">/g)?.length).toBeGreaterThanOrEqual(1);
      expect(dom).toContain('<a href="#rule-trust-ping-response-thid"><code>trust-ping.response-thid</code></a>');
      expect(dom).toContain('<tr id="rule-trust-ping-response-thid">');
    } finally {
      await agent.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
