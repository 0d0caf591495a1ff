// The user view says how the twin's messages reach the user's wallet: the endpoint its DID names,
// or, for a wallet behind a mediator, that mediator (DIDComm v2.1 §Using a DID as an endpoint).
import { afterEach, describe, expect, it } from 'vitest';
import { connectUser } from '../../src/testing/index.js';
import { startConsoleBed, type ConsoleBed } from './helpers.js';

let c: ConsoleBed | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

const routeRow = (body: string) => /<tr><th>messages reach it through<\/th><td colspan="3">(.*?)<\/td><\/tr>/s.exec(body)?.[1];

describe('the user view: how messages reach the wallet', () => {
  it('a wallet with an endpoint of its own: that endpoint', async () => {
    c = await startConsoleBed({ testbed: { transport: 'http' } });
    const wallet = c.bed.wallets[0]!;
    await connectUser(c.bed, 'ada', wallet);
    const row = routeRow((await c.call('GET', '/console/users/ada?fragment=1')).body);
    expect(row).toBe(`<code>${wallet.identity.endpoint}</code>`);
  });

  it('a wallet behind a mediator: the mediator and where it listens', async () => {
    c = await startConsoleBed({ testbed: { transport: 'http', walletMode: 'mediated' } });
    const wallet = c.bed.wallets[0]!;
    await connectUser(c.bed, 'grace', wallet);
    const row = routeRow((await c.call('GET', '/console/users/grace?fragment=1')).body);
    expect(row).toContain('the mediator <code class="did"');
    expect(row).toContain(`title="${c.bed.mediator!.did}"`);
    // Its first DIDCommMessaging service: the HTTP endpoint of the invitation's origin.
    expect(row).toContain(`at <code>${new URL(c.bed.mediator!.invitationUrl).origin}/didcomm</code>`);
  });
});
