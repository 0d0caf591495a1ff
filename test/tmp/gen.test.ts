import { it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runConformance } from '../../src/harness/run.js';
import { writeReportFiles } from '../../src/harness/report-files.js';
import { startWrongAgent } from '../harness/wrong-agent.js';
it('gen', async () => {
  const agent = await startWrongAgent(['ping-thid', 'plaintext-reply']);
  const report = await runConformance({ target: agent.did, resolve: documentResolver(createResolver({})), timeoutMs: 2000 });
  await writeReportFiles(report, '/tmp/rep');
  await agent.close();
}, 60000);
