// A restarted wallet collects what every peer queued for it (`wallet serve` picks up from each of
// wallet.peers()), not only from peers it has a Data Pipe with: an issuer it only has an issuance
// thread with counts too.
import { afterEach, describe, expect, it } from 'vitest';
import { sameDid } from '../../src/didcomm/message.js';
import { startTestbed, type Testbed } from '../../src/testing/index.js';

let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('wallet.peers()', () => {
  it('names an issuer the wallet has only an open issuance thread with (no Data Pipe)', async () => {
    bed = await startTestbed({ wallets: 0 });
    const wallet = await bed.addWallet({ policy: 'manual' });
    expect(await wallet.peers()).toEqual([]);
    const wf = await bed.service.client.createWorkflow({ datapoints: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' } });
    await wallet.acceptInvitation(wf.invitationUrl);
    await wallet.waitForPending({ kind: 'credential-offer' });
    expect(await wallet.connections()).toEqual([]);
    const peers = await wallet.peers();
    expect(peers).toHaveLength(1);
    expect(sameDid(peers[0]!, bed.service.did)).toBe(true);
  });
});
