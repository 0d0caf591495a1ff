// Fuzzing the wallet with sound envelopes around unsound messages: once it has synced, its peer
// (the service twin, whose router packs for it) sends it every message type a wallet handles
// (data-pipe, issue-credential 3.0, present-proof 3.0, report-problem, trust-ping,
// discover-features, basicmessage), bodies, attachments and thread headers filled from a seeded
// generator, the threads often the wallet's own. No message fails in the wallet with an uncoded
// error (internal_error), it keeps the credential it had, and it still takes the next one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_PIPE } from '../../src/protocols/data-pipe.js';
import { ISSUE_CREDENTIAL } from '../../src/protocols/issue-credential.js';
import { PRESENT_PROOF } from '../../src/protocols/present-proof.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import { connectUser, startTestbed, waitForCredential, type Testbed } from '../../src/testing/index.js';
import type { Wallet } from '../../src/wallet/wallet.js';
import { draw } from '../fuzz-kit.js';

const TYPES: Record<string, string[]> = {
  [DATA_PIPE.established]: ['did', 'short_did', 'established_at'],
  [DATA_PIPE.close]: ['reason'],
  [ISSUE_CREDENTIAL.offer]: ['goal_code', 'replacement_id'],
  [ISSUE_CREDENTIAL.issue]: ['goal_code', 'replacement_id'],
  [ISSUE_CREDENTIAL.ack]: ['status'],
  [PRESENT_PROOF.request]: ['goal_code', 'will_confirm'],
  [PRESENT_PROOF.ack]: ['status'],
  'https://didcomm.org/report-problem/2.0/problem-report': ['code', 'comment', 'args'],
  [TRUST_PING.ping]: ['response_requested'],
  'https://didcomm.org/discover-features/2.0/queries': ['queries'],
  'https://didcomm.org/basicmessage/2.0/message': ['content'],
};
const FORMATS = ['dif/credential-manifest/manifest@v1.0', 'dif/credential-manifest/fulfillment@v1.0', 'dif/presentation-exchange/definitions@v1.0', 'aries/ld-proof-vc@v1.0', 'x'];

describe('fuzzing the wallet with sound envelopes from its peer', () => {
  let bed: Testbed;
  let wallet: Wallet;

  beforeAll(async () => {
    bed = await startTestbed();
    wallet = bed.wallets[0]!;
    await connectUser(bed, 'fuzzed', wallet);
    await bed.service.client.putDatapoints('fuzzed', { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' });
    await waitForCredential(wallet, (c) => c.claims.firstName === 'Ada');
  });
  afterAll(() => bed.close());

  it('takes any message of its protocols without an uncoded failure, and keeps its credential', async () => {
    const router = bed.service.agent.router;
    const own = await wallet.messages();
    const pipe = own.find((m) => m.type === DATA_PIPE.request)?.id;
    expect(pipe).toBeDefined();
    const threads = [...new Set(own.flatMap((m) => [m.id, m.thid, m.pthid]).filter((t): t is string => typeof t === 'string'))];
    const { rnd, int, pick, value } = draw(Number(process.env.FUZZ_SEED ?? 20261129), () => [wallet.did, wallet.shortDid, bed.service.did, ...threads.slice(0, 6)]);
    function nearValid(member: string): unknown {
      switch (member) {
        case 'did': return pick([wallet.did, wallet.shortDid, 'did:example:nobody']);
        case 'short_did': return pick([wallet.shortDid, wallet.did, '']);
        case 'established_at': return pick([new Date().toISOString(), 'never', '']);
        case 'code': return pick(['e.p.xfer.cant-use-endpoint', 'e.p.req.data-pipe.already-linked', 'e.m.me.x', 'w.p.x', 'bad code', '']);
        case 'args': return Array.from({ length: int(4) }, () => value(2));
        case 'status': return pick(['OK', 'PENDING', 'FAIL', '']);
        case 'goal_code': return pick(['streamlined-vc', 'idsync.sync.authenticate', 'x', '']);
        case 'replacement_id': return pick([...threads, 'urn:uuid:x', '']);
        case 'will_confirm':
        case 'response_requested': return rnd() < 0.5;
        case 'queries': return [{ 'feature-type': pick(['protocol', 'goal-code', 'x']), match: pick(['*', '', `${'a*'.repeat(40)}b`]) }];
        case 'content': return pick(['hello', '', 'x'.repeat(5000)]);
        default: return value(1);
      }
    }
    function attachments(): unknown {
      if (rnd() < 0.3) return value(1);
      return Array.from({ length: int(3) }, () => ({
        id: crypto.randomUUID(),
        ...(rnd() < 0.8 ? { format: pick(FORMATS) } : {}),
        media_type: 'application/json',
        data: rnd() < 0.8
          ? { json: rnd() < 0.6 ? { credential_manifest: value(1), options: { challenge: value(2), domain: value(2) }, presentation_definition: value(1), verifiableCredential: value(1), '@context': value(2), proof: value(1) } : value(1) }
          : { base64: pick(['', 'e30', '!!!']) },
      }));
    }

    let sent = 0;
    for (let i = 0; i < 400; i++) {
      const type = pick(Object.keys(TYPES));
      const body: Record<string, unknown> = {};
      for (const k of TYPES[type]!) if (rnd() < 0.85) body[k] = rnd() < 0.7 ? nearValid(k) : value();
      const msg: Record<string, unknown> & { type: string } = { type, body };
      if (rnd() < 0.85) msg.thid = rnd() < 0.85 ? pick(threads) : crypto.randomUUID();
      if (rnd() < 0.4) msg.pthid = rnd() < 0.8 ? pick(threads) : crypto.randomUUID();
      if (rnd() < 0.5) msg.attachments = attachments();
      // A close on the Data Pipe's own thread is a real close, which the wallet honours; sent by the
      // service's router alone, the service would not know of it. Closes go on other threads.
      if (type === DATA_PIPE.close && msg.thid === pipe) msg.thid = crypto.randomUUID();
      if (rnd() < 0.05) msg.expires_time = pick([-1e308, 1e308, 0]);
      // The service's own router checks what it sends: a message it will not send never reaches the wallet.
      if (await router.send(msg, { to: wallet.did }).then(() => true, () => false)) sent++;
    }
    await bed.service.agent.idle();
    const logged = await wallet.messages({ direction: 'in' });
    expect(logged.filter((m) => m.errorCode === 'internal_error').map((m) => `${m.type}: ${JSON.stringify(m.message).slice(0, 300)}`)).toEqual([]);
    // The service's router refuses to send what breaks a body rule, as the wallet's would refuse it: what
    // is sent passed them, and reaches the wallet's handlers.
    expect(sent).toBeGreaterThan(60);
    // It read them: most were refused, some handled (pings, queries, problem reports).
    expect(logged.length).toBeGreaterThan(own.length);
    expect((await wallet.credentials()).some((c) => c.claims.firstName === 'Ada' && c.verified)).toBe(true);
  });

  it('still takes the next credential', async () => {
    await bed.service.client.putDatapoints('fuzzed', { firstName: 'Augusta', lastName: 'King', birthDate: '1815-12-10' });
    const next = await waitForCredential(wallet, (c) => c.claims.firstName === 'Augusta');
    expect(next.verified).toBe(true);
  });
});
