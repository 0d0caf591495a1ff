// Discover Features discloses what each idsync agent really does: the service issues
// out-of-band invitations and says so (role sender); the wallet takes them (role receiver); every
// other disclosed protocol is one its router has handlers for, in the roles disclosed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { DISCLOSE, QUERIES } from '../../src/harness/case-kit.js';
import { startCounterpart } from '../../src/harness/counterpart.js';
import type { Router } from '../../src/router/router.js';
import { startTestbed, type Testbed } from '../../src/testing/index.js';

let bed: Testbed;
beforeAll(async () => {
  bed = await startTestbed({ transport: 'http' });
}, 30_000);
afterAll(async () => bed?.close());

async function disclosed(target: string): Promise<Array<{ id: string; roles?: string[] }>> {
  const cp = await startCounterpart({ target, resolve: documentResolver(createResolver({})), postTimeoutMs: 5000 });
  try {
    const q = cp.draft(QUERIES, { queries: [{ 'feature-type': 'protocol', match: '*' }] });
    await cp.send(q, { mode: 'authcrypt' });
    const answer = await cp.waitFor((r) => r.message?.type === DISCLOSE && r.message.thid === q.id, 5000);
    return (answer!.message!.body.disclosures as Array<{ id: string; roles?: string[] }>).sort((a, b) => a.id.localeCompare(b.id));
  } finally {
    await cp.close();
  }
}

function handled(router: Router): Map<string, string[]> {
  return new Map(router.protocols().filter((p) => p.messageTypes.length > 0).map((p) => [p.piuri, p.roles ?? []]));
}

describe('discover-features disclosures match the handlers', () => {
  it('the service discloses out-of-band/2.0 as sender (it issues invitations), and otherwise only protocols it handles', async () => {
    const list = await disclosed(bed.service.did);
    expect(list).toContainEqual({ 'feature-type': 'protocol', id: 'https://didcomm.org/out-of-band/2.0', roles: ['sender'] });
    const routes = handled(bed.service.agent.router);
    for (const d of list.filter((x) => x.id !== 'https://didcomm.org/out-of-band/2.0')) {
      expect(routes.has(d.id), `${d.id} is disclosed but has no handler`).toBe(true);
      expect(d.roles).toEqual(routes.get(d.id));
    }
  });

  it('the wallet discloses out-of-band/2.0 as receiver only (it takes invitations, issues none)', async () => {
    const list = await disclosed(bed.wallets[0]!.did);
    expect(list.find((d) => d.id === 'https://didcomm.org/out-of-band/2.0')?.roles).toEqual(['receiver']);
    // That what it discloses is handled is the conformance case discover-features/disclosed-supported
    // (test/harness/own-agents.test.ts); the wallet keeps its router to itself.
    expect(list.map((d) => d.id)).toEqual(expect.arrayContaining(['https://didcomm.org/trust-ping/2.0', 'https://didcomm.org/discover-features/2.0']));
  });
});
