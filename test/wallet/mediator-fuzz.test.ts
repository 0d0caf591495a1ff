// Fuzzing a wallet behind a mediator with what its mediator may send: pickup status and
// delivery (attachments of any shape, some the wallet's own earlier messages again, ids reused),
// coordinate-mediation answers (grant, deny, keylist, update responses), problem reports and
// pings, drawn from a seeded generator and authcrypted with the mediator's own keys, as if its
// mediator had gone wrong. No message fails in the wallet uncoded (internal_error); afterwards the
// wallet keeps its credential, still holds its grant, and takes the next credential through the
// mediator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { memorySecrets } from '../../src/didcomm/secrets.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { connectUser, startTestbed, syncDatapoints, type Testbed } from '../../src/testing/index.js';
import type { Wallet } from '../../src/wallet/wallet.js';
import { draw } from '../fuzz-kit.js';

const PICKUP = 'https://didcomm.org/messagepickup/3.0';
const CM2 = 'https://didcomm.org/coordinate-mediation/2.0';
const CM3 = 'https://didcomm.org/coordinate-mediation/3.0';
const TYPES: Record<string, string[]> = {
  [`${PICKUP}/status`]: ['message_count', 'recipient_did', 'live_delivery', 'longest_waited_seconds', 'total_bytes'],
  [`${PICKUP}/delivery`]: ['recipient_did'],
  [`${CM2}/mediate-grant`]: ['routing_did'],
  [`${CM2}/mediate-deny`]: [],
  [`${CM2}/keylist-update-response`]: ['updated'],
  [`${CM2}/keylist`]: ['keys', 'pagination'],
  [`${CM3}/mediate-grant`]: ['routing_did'],
  [`${CM3}/recipient-update-response`]: ['updated'],
  [`${CM3}/recipient`]: ['dids', 'pagination'],
  'https://didcomm.org/report-problem/2.0/problem-report': ['code', 'comment', 'args'],
  'https://didcomm.org/trust-ping/2.0/ping': ['response_requested'],
};

describe('fuzzing a wallet behind a mediator with what its mediator sends', () => {
  let bed: Testbed;
  let wallet: Wallet;
  const ADA = { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' };

  beforeAll(async () => {
    bed = await startTestbed({ walletMode: 'mediated' });
    wallet = bed.wallets[0]!;
    await connectUser(bed, 'ada', wallet);
    await syncDatapoints(bed, 'ada', wallet, ADA);
  });
  afterAll(() => bed.close());

  it('takes any of it without an uncoded failure, and keeps its credential and its grant', async () => {
    const mediator = bed.mediator!;
    const base = documentResolver(createResolver({ cache: false }));
    const envelope = {
      resolve: async (d: string) => (d === mediator.did ? mediator.agent.identity.document : base(d)),
      secrets: memorySecrets(mediator.agent.identity.secrets),
    };
    const own = await wallet.messages();
    const threads = [...new Set(own.flatMap((m) => [m.id, m.thid]).filter((t): t is string => typeof t === 'string'))];
    // What the mediator delivered before: the wallet's own packed messages, to deliver again.
    const earlier = (await mediator.agent.mediator.queue.list(wallet.did)).map((q) => q.packed);
    const { rnd, int, pick, value } = draw(Number(process.env.FUZZ_SEED ?? 20261129), () => [wallet.did, wallet.shortDid, mediator.did, ...threads.slice(0, 6)]);
    function nearValid(member: string): unknown {
      switch (member) {
        case 'message_count': case 'longest_waited_seconds': case 'total_bytes': return pick([0, 1, -1, 2.5, 1e9, 1e308]);
        case 'recipient_did': return pick([wallet.did, wallet.shortDid, 'did:example:nobody']);
        case 'live_delivery': return rnd() < 0.5;
        case 'routing_did': return pick([mediator.did, [mediator.did], [], 'did:example:nobody', ['did:example:nobody', mediator.did]]);
        case 'updated': return [{ recipient_did: pick([wallet.did, 'did:example:nobody']), action: pick(['add', 'remove', 'x']), result: pick(['success', 'no_change', 'client_error', 'server_error', 'x']) }];
        case 'keys': return [{ recipient_did: pick([wallet.did, 'did:example:nobody']) }];
        case 'dids': return [{ recipient_did: pick([wallet.did, 'did:example:nobody']) }];
        case 'pagination': return { count: pick([0, 1, -1]), offset: pick([0, 5, -1]), remaining: pick([0, 1e9]) };
        case 'code': return pick(['e.p.req.not-enrolled', 'e.p.trust.forbidden', 'e.m.live-mode-not-supported', 'e.p.xfer', 'w.m.x', 'bad code']);
        case 'args': return Array.from({ length: int(3) }, () => value(2));
        case 'response_requested': return rnd() < 0.5;
        default: return value(1);
      }
    }
    function attachments(): unknown {
      if (rnd() < 0.2) return value(1);
      return Array.from({ length: int(4) }, () => {
        const id = rnd() < 0.8 ? crypto.randomUUID() : pick(['', 'x', '../x']);
        const data = rnd() < 0.3 && earlier.length
          ? { base64: Buffer.from(pick(earlier)).toString('base64url') }
          : rnd() < 0.5 ? { json: value(1) } : rnd() < 0.5 ? { base64: pick(['', 'e30', '!!!', Buffer.from('{"protected":"x"}').toString('base64url')]) } : { links: [value(2)] };
        return { id, ...(rnd() < 0.5 ? { media_type: pick(['application/didcomm-encrypted+json', 'application/json', 'x']) } : {}), data };
      });
    }

    let opened = 0;
    for (let i = 0; i < 250; i++) {
      const type = pick(Object.keys(TYPES));
      const body: Record<string, unknown> = {};
      for (const k of TYPES[type]!) if (rnd() < 0.85) body[k] = rnd() < 0.7 ? nearValid(k) : value();
      const msg: Record<string, unknown> = { id: crypto.randomUUID(), type, from: mediator.did, to: [wallet.did], body };
      if (rnd() < 0.7) msg.thid = rnd() < 0.7 ? pick(threads) : crypto.randomUUID();
      if (type.endsWith('/delivery') || rnd() < 0.1) msg.attachments = attachments();
      const packed = (await pack(msg as unknown as PlainMessage, { mode: 'authcrypt', to: wallet.did, forward: false }, envelope)).packed;
      const result = await wallet.receive(packed, { transport: 'http' });
      if (result.message) opened++;
      if (result.code === 'internal_error') expect.fail(`internal_error for ${JSON.stringify(msg).slice(0, 400)}`);
    }
    expect(opened).toBeGreaterThan(200);
    // What deliveries carried was read too, each as a message of its own: none failed uncoded either.
    const logged = await wallet.messages({ direction: 'in' });
    expect(logged.filter((m) => m.errorCode === 'internal_error').map((m) => `${m.type}: ${JSON.stringify(m.message).slice(0, 300)}`)).toEqual([]);
    expect((await wallet.credentials()).some((c) => c.claims.firstName === 'Ada' && c.verified)).toBe(true);
    expect(wallet.mediation?.mediator).toBe(mediator.did);
  });

  it('still takes the next credential through the mediator', async () => {
    const { credential } = await syncDatapoints(bed, 'ada', wallet, { ...ADA, firstName: 'Augusta' });
    expect(credential.claims).toMatchObject({ firstName: 'Augusta' });
    expect(credential.verified).toBe(true);
  });
});
