// In-memory testbeds running at once in one process: each service has a URL and did:web of its
// own, so that handing one testbed's invitation to another's wallet fails as what it is.
import { afterEach, expect, it } from 'vitest';
import { MEMORY_SERVICE_URL, startTestbed, type Testbed } from '../../src/testing/index.js';

const beds: Testbed[] = [];
afterEach(async () => {
  for (const b of beds.splice(0)) await b.close();
});

async function bed(): Promise<Testbed> {
  const b = await startTestbed();
  beds.push(b);
  return b;
}

it('gives each running in-memory service its own URL and DID, the first the usual one', async () => {
  const a = await bed();
  const b = await bed();
  expect(a.service.url).toBe(MEMORY_SERVICE_URL);
  expect(a.service.did).toBe('did:web:service.idsync.test');
  expect(b.service.url).toBe('http://service-2.idsync.test');
  expect(b.service.did).toBe('did:web:service-2.idsync.test');
});

it("refuses another testbed's invitation as unreachable, naming that service", async () => {
  const a = await bed();
  const b = await bed();
  await b.service.client.putUser('bob', { settings: { isSyncOn: true } });
  const { invitationUrl } = await b.service.client.invite('bob');
  const err = await a.wallets[0]!.acceptInvitation(invitationUrl!, { timeoutMs: 5000 }).then(() => undefined, (e: unknown) => e);
  expect(err).toMatchObject({ code: 'transport_unreachable', details: { did: b.service.did } });
  expect(String((err as Error).message)).toContain('service-2.idsync.test');
  expect(String((err as Error).message)).toContain('another testbed');
});

it('frees a name when its testbed closes, and keeps it across a restart', async () => {
  const a = await bed();
  const b = await bed();
  await a.close();
  await b.restart();
  expect(b.service.did).toBe('did:web:service-2.idsync.test');
  const c = await bed();
  expect(c.service.url).toBe(MEMORY_SERVICE_URL);
  // Its own flows still work after the restart.
  await b.service.client.putUser('carol', { settings: { isSyncOn: true } });
  const { invitationUrl } = await b.service.client.invite('carol');
  await b.wallets[0]!.acceptInvitation(invitationUrl!, { timeoutMs: 5000 });
});
