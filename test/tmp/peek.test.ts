import { it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runConformance } from '../../src/harness/run.js';
import { startTestbed } from '../../src/testing/index.js';
it('peek', async () => {
  const bed = await startTestbed({ transport: 'http' });
  const report = await runConformance({ target: process.env.T === 'w' ? bed.wallets[0]!.did : bed.service.did, resolve: documentResolver(createResolver({})) });
  for (const c of report.cases) {
    console.log(`== ${c.id} ${c.status} ${c.detail ?? ''} warn=${c.warnings}`);
    for (const m of c.messages) console.log(`   ${m.direction} ${m.via} ${m.mode} ${m.type?.split('/').slice(-3).join('/')} id=${m.id?.slice(0,8)} thid=${m.thid?.slice(0,8)} pthid=${m.pthid?.slice(0,8)} http=${m.httpStatus ?? ''} ${m.problemCode ?? ''} ${m.note ?? ''} ${m.broken ?? ''}`);
  }
  await bed.close();
}, 60000);
