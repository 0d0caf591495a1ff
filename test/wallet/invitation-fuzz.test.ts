// Fuzzing what a user pastes into a wallet: out-of-band invitations, as objects and as `_oob` URLs,
// drawn from a seeded generator around the service's own invitation (its fields replaced, removed
// or mistyped; attachments of any shape; goal codes the wallet does and does not act on; times no
// date holds). Each is accepted or refused with a coded error, never an uncoded one
// (internal_error); none leaves the wallet unable to accept the real invitation afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIdsyncError } from '../../src/errors.js';
import { parseInvitationUrl } from '../../src/protocols/out-of-band.js';
import { connectUser, startTestbed, type Testbed } from '../../src/testing/index.js';
import type { Wallet } from '../../src/wallet/wallet.js';
import { draw } from '../fuzz-kit.js';

describe('fuzzing the invitations a wallet is given', () => {
  let bed: Testbed;
  let wallet: Wallet;
  let real: Record<string, unknown>;
  let realUrl: string;

  beforeAll(async () => {
    bed = await startTestbed();
    wallet = bed.wallets[0]!;
    await bed.service.client.putUser('fuzzed', { settings: { isSyncOn: true } });
    realUrl = (await bed.service.client.invite('fuzzed')).invitationUrl!;
    real = (await parseInvitationUrl(realUrl)) as unknown as Record<string, unknown>;
  });
  afterAll(() => bed.close());

  it('accepts or refuses each with a coded error', async () => {
    const { rnd, pick, value } = draw(Number(process.env.FUZZ_SEED ?? 20261129), () => [String(real.from), String(real.id), 'streamlined-vc', 'idsync.data-pipe', 'didcomm/v2', 'https://didcomm.org/out-of-band/2.0/invitation']);
    const fields = ['type', 'id', 'from', 'body', 'attachments', 'expires_time', 'created_time', 'typ', 'thid'];
    function invitation(): unknown {
      if (rnd() < 0.05) return value();
      const inv: Record<string, unknown> = structuredClone(real);
      for (let n = 1 + Math.floor(rnd() * 3); n > 0; n--) {
        const f = pick(fields);
        const how = rnd();
        if (how < 0.25) delete inv[f];
        else if (how < 0.5 && f === 'body') inv.body = { goal_code: pick(['streamlined-vc', 'idsync.data-pipe', 'x', value(2)]), accept: pick([['didcomm/v2'], ['didcomm/aip2;env=rfc19'], [], value(2)]), goal: value(2) };
        else if (how < 0.6 && (f === 'expires_time' || f === 'created_time')) inv[f] = pick([-1e308, 1e308, 0, 2.5, Math.floor(Date.now() / 1000) - 60]);
        else if (how < 0.7 && f === 'attachments') inv.attachments = [{ id: 'a', media_type: 'application/json', data: pick([{ json: value(1) }, { base64: 'e30' }, { links: [value(2)] }, value(1)]) }];
        else inv[f] = value(1);
      }
      return inv;
    }
    const uncoded: string[] = [];
    let refused = 0;
    for (let i = 0; i < 150; i++) {
      const inv = invitation();
      const asUrl = rnd() < 0.4;
      const input = asUrl ? `https://service.example/connect?_oob=${Buffer.from(rnd() < 0.9 ? JSON.stringify(inv) : String(value())).toString(rnd() < 0.8 ? 'base64url' : 'base64')}` : inv;
      try {
        await wallet.acceptInvitation(input as never, { timeoutMs: 2000 });
      } catch (err) {
        refused++;
        if (!isIdsyncError(err) || err.code === 'internal_error') uncoded.push(`${(err as Error)?.stack?.split('\n').slice(0, 4).join(' / ') ?? String(err)} for ${JSON.stringify(inv).slice(0, 300)}`);
      }
    }
    expect(uncoded).toEqual([]);
    expect(refused).toBeGreaterThan(100);
  });

  it('still accepts the real invitation and links', async () => {
    await wallet.acceptInvitation(realUrl);
    const linked = await connectUser(bed, 'second', bed.wallets[0]!);
    expect(linked.syncContext.isSessionEstablished).toBe(true);
    expect((await bed.service.client.getUser('fuzzed')).userDID).toBe(wallet.did);
  });
});
