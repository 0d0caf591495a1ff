// The README's "Testing flows under faults" example, as written there.
import { expect, it } from 'vitest';
import { connectUser, startTestbed, syncDatapoints, waitForCredential } from '../../src/testing/index.js';

it('syncs across restarts with messages duplicated, and records a lost ack', async () => {
  const ada = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };
  const bed = await startTestbed({
    faults: {
      seed: 7,
      rules: [
        { fault: 'duplicate', probability: 0.3 },
        { fault: 'drop', direction: 'to-service', type: 'issue-credential/3.0/ack', nth: 2 },
      ],
    },
  });
  const [wallet] = bed.wallets;
  await connectUser(bed, 'ada', wallet);
  await bed.crash(); // the service dies (kill -9)…
  await bed.restart(); // …and comes back on its store
  const again = (await bed.restart(wallet))!; // so may a wallet (a new Wallet object)
  await syncDatapoints(bed, 'ada', again, ada);

  // The second sync's ack is lost on its way: the wallet holds the credential, the service
  // has not heard so (only a sender that retries can finish this sync).
  await bed.service.client.putDatapoints('ada', { ...ada, firstName: 'Augusta' });
  await waitForCredential(again, (c) => c.claims.firstName === 'Augusta');
  expect(bed.faults!.applied.filter((f) => f.fault === 'drop')).toMatchObject([
    { direction: 'to-service', type: 'https://didcomm.org/issue-credential/3.0/ack' },
  ]);
  await bed.close();
});
