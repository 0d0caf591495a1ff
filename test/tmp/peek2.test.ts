import { it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runConformance } from '../../src/harness/run.js';
import { startWrongAgent } from '../harness/wrong-agent.js';
it('peek', async () => {
  const agent = await startWrongAgent([process.env.F as never]);
  const report = await runConformance({ target: agent.did, resolve: documentResolver(createResolver({})), timeoutMs: 2000 });
  for (const c of report.cases) {
    console.log(`== ${c.id} ${c.status} ${c.detail ?? ''} warn=${c.warnings}`);
    for (const m of c.messages) console.log(`   ${m.direction} ${m.via} ${m.mode} ${m.type?.split('/').slice(-3).join('/')} id=${m.id?.slice(0,8)} thid=${m.thid?.slice(0,8)} pthid=${m.pthid?.slice(0,8)} http=${m.httpStatus ?? ''} ${m.problemCode ?? ''} ${m.note ?? ''} ${m.broken ?? ''}`);
  }
  await agent.close();
}, 60000);
