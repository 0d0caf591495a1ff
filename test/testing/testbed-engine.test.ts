// The envelope engine of a testbed (service and wallets): native by default, didcomm-node on
// request, end to end through the sync flow; each run only ever calls its own engine.
import { afterEach, expect, it, vi } from 'vitest';
import { didcommNodeEngine } from '../../src/didcomm/envelope/didcomm-node.js';
import { nativeEngine } from '../../src/didcomm/envelope/native.js';
import type { EnvelopeEngine } from '../../src/didcomm/types.js';
import { connectUser, startTestbed, waitForCredential, waitForSyncContext, type Testbed } from '../../src/testing/index.js';

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  vi.restoreAllMocks();
});

const ENGINES = { native: nativeEngine, 'didcomm-node': didcommNodeEngine };

for (const [engine, other] of [
  ['didcomm-node', 'native'],
  ['native', 'didcomm-node'],
] as [EnvelopeEngine, EnvelopeEngine][]) {
  it(`syncs a user's datapoints with envelopeEngine '${engine}', never calling the ${other} engine`, async () => {
    const calls = (e: EnvelopeEngine) => [vi.spyOn(ENGINES[e], 'pack'), vi.spyOn(ENGINES[e], 'unpack')];
    const used = calls(engine);
    const unused = calls(other);
    bed = await startTestbed(engine === 'native' ? {} : { envelopeEngine: engine });
    const [wallet] = bed.wallets;
    await connectUser(bed, 'alice', wallet);
    await bed.service.client.putDatapoints('alice', { firstName: 'Alice', lastName: 'Liddell', birthDate: '1852-05-04' });
    expect((await waitForCredential(wallet, (c) => c.claims.firstName === 'Alice')).verified).toBe(true);
    await waitForSyncContext(bed.service.client, 'alice', (c) => c.isLinked);
    for (const spy of used) expect(spy).toHaveBeenCalled();
    for (const spy of unused) expect(spy).not.toHaveBeenCalled();
  });
}
