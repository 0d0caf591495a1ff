// Fuzzing the service's DIDComm agent with sound envelopes around unsound messages: a holder whose
// Data Pipe is established sends every message type the service handles (data-pipe, issue-credential
// 3.0, present-proof 3.0, report-problem, trust-ping, discover-features, pickup 3.0 and
// coordinate-mediation), its body, attachments and thread headers filled from a seeded generator,
// the threads often the real ones of its own sync. Nothing a user sends may crash a server: no
// handler fails with an uncoded error (internal_error), and afterwards another user syncs to the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUE_CREDENTIAL } from '../../../src/protocols/issue-credential.js';
import { PRESENT_PROOF, PE_SUBMISSION_FORMAT } from '../../../src/protocols/present-proof.js';
import { DATA_PIPE } from '../../../src/protocols/data-pipe.js';
import { TRUST_PING } from '../../../src/protocols/trust-ping.js';
import { draw } from '../../fuzz-kit.js';
import { memoryHarness, type MemoryHarness } from './harness.js';
import type { Holder } from './holder.js';

const PICKUP = 'https://didcomm.org/messagepickup/3.0';
const CM2 = 'https://didcomm.org/coordinate-mediation/2.0';

/** Each type with the body members its protocol names. */
const TYPES: Record<string, string[]> = {
  [DATA_PIPE.request]: ['consent', 'label'],
  [DATA_PIPE.close]: ['reason'],
  [ISSUE_CREDENTIAL.propose]: ['goal_code', 'comment'],
  [ISSUE_CREDENTIAL.request]: ['goal_code'],
  [ISSUE_CREDENTIAL.ack]: ['status'],
  [PRESENT_PROOF.propose]: [],
  [PRESENT_PROOF.presentation]: ['goal_code'],
  'https://didcomm.org/report-problem/2.0/problem-report': ['code', 'comment', 'args', 'escalate_to'],
  [TRUST_PING.ping]: ['response_requested'],
  'https://didcomm.org/discover-features/2.0/queries': ['queries'],
  [`${PICKUP}/status-request`]: ['recipient_did'],
  [`${PICKUP}/delivery-request`]: ['limit'],
  [`${PICKUP}/messages-received`]: ['message_id_list'],
  [`${CM2}/mediate-request`]: [],
  [`${CM2}/keylist-update`]: ['updates'],
};

describe("fuzzing the service's DIDComm agent with sound envelopes", () => {
  let h: MemoryHarness;
  let holder: Holder;
  let invitation: { id: string; from: string };
  const uncoded: unknown[] = [];
  const reached = new Map<string, number>();

  beforeAll(async () => {
    h = await memoryHarness();
    h.agent.events.on('received', (e: { status?: string; code?: string; type?: string }) => {
      if (e.code === 'internal_error') uncoded.push(e);
      reached.set(String(e.status), (reached.get(String(e.status)) ?? 0) + 1);
    });
    const ref = await h.user('fuzzed');
    invitation = await h.invitation(ref);
    holder = h.holder();
    await holder.acceptDataPipe(invitation);
    const done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await done;
    await h.agent.idle();
  });
  afterAll(() => h.close());

  it('takes any message of its protocols without an uncoded failure', async () => {
    // Threads the service knows (the invitation, the Data Pipe's, the sync's), to reach past "no such thread".
    const threads = () => [invitation.id, ...holder.sentPacked.flatMap((p) => [p.message.id, p.message.thid, p.message.pthid]).filter((t): t is string => typeof t === 'string')];
    const { rnd, int, pick, value } = draw(Number(process.env.FUZZ_SEED ?? 20261129), () => [holder.did.did, holder.did.shortDid!, h.service.deps.serviceDid, ...threads().slice(0, 6)]);
    function nearValid(member: string): unknown {
      switch (member) {
        case 'consent': return { granted: rnd() < 0.7, at: pick([new Date(h.clock.now()).toISOString(), '2026-13-45T99:00:00Z', '', 'yesterday']) };
        case 'code': return pick(['e.p.xfer.cant-use-endpoint', 'e.p.req.data-pipe.already-linked', 'w.m.x', 'e.m.me.foo', 'e.p', 'bad code', '']);
        case 'args': return Array.from({ length: int(4) }, () => value(2));
        case 'escalate_to': return pick(['mailto:a@example.com', 'x', '']);
        case 'status': return pick(['OK', 'PENDING', 'FAIL', 'ok', '']);
        case 'goal_code': return pick(['streamlined-vc', 'idsync.sync.authenticate', 'x', '']);
        case 'recipient_did': return pick([holder.did.did, holder.did.shortDid!, 'did:example:nobody']);
        case 'limit': return pick([0, 1, -1, 10, 1e9, 2.5]);
        case 'message_id_list': return Array.from({ length: int(4) }, () => pick([crypto.randomUUID(), '', '0']));
        case 'response_requested': return rnd() < 0.5;
        case 'queries': return [{ 'feature-type': pick(['protocol', 'goal-code', 'x']), match: pick(['*', '', `${'a*'.repeat(40)}b`]) }];
        case 'updates': return [{ recipient_did: pick([holder.did.did, 'did:example:nobody']), action: pick(['add', 'remove', 'x']) }];
        default: return value(1);
      }
    }
    function attachments(): unknown {
      if (rnd() < 0.3) return value(1);
      return Array.from({ length: int(3) }, () => ({
        id: crypto.randomUUID(),
        ...(rnd() < 0.7 ? { format: pick([PE_SUBMISSION_FORMAT, 'dif/credential-manifest/application@v1.0', 'x']) } : {}),
        ...(rnd() < 0.5 ? { media_type: pick(['application/json', 'text/plain']) } : {}),
        data: rnd() < 0.7 ? { json: rnd() < 0.5 ? { presentation_submission: value(1), verifiableCredential: value(1), proof: value(1), type: value(2) } : value(1) } : { base64: pick(['', 'e30', '!!!']) },
      }));
    }
    function message(): Record<string, unknown> & { type: string } {
      const type = pick(Object.keys(TYPES));
      const body: Record<string, unknown> = {};
      for (const k of TYPES[type]!) if (rnd() < 0.85) body[k] = rnd() < 0.7 ? nearValid(k) : value();
      if (rnd() < 0.15) body[pick(['extra', '__proto__', 'constructor'])] = value(1);
      const msg: Record<string, unknown> & { type: string } = { type, body };
      if (rnd() < 0.6) msg.thid = rnd() < 0.8 ? pick(threads()) : crypto.randomUUID();
      if (rnd() < 0.3) msg.pthid = rnd() < 0.8 ? pick(threads()) : crypto.randomUUID();
      if (rnd() < 0.5) msg.attachments = attachments();
      if (rnd() < 0.2) msg.return_route = 'all';
      if (rnd() < 0.05) msg.expires_time = pick([-1e308, 1e308, 0, Math.floor(h.clock.now() / 1000) + 60]);
      return msg;
    }

    let sent = 0;
    for (let i = 0; i < 300; i++) {
      const msg = message();
      // The holder's own router checks what it sends: a message it will not send never reaches the service.
      const ok = await holder.send(msg).then(() => true, () => false);
      if (ok) sent++;
      await h.agent.idle();
      if (uncoded.length) expect.fail(`internal_error for ${JSON.stringify(msg).slice(0, 500)}`);
    }
    expect(uncoded).toEqual([]);
    // The generator reached both sides: messages handled, and refused.
    expect(sent).toBeGreaterThan(100);
    expect(reached.get('handled') ?? 0).toBeGreaterThan(0);
    expect([...reached.keys()].some((k) => k !== 'handled')).toBe(true);
  });

  it('still links and syncs another user to the end', async () => {
    const ref = await h.user('after-fuzz');
    const other = h.holder();
    await other.acceptDataPipe(await h.invitation(ref));
    const done = h.agent.waitFor('sync-completed');
    await h.service.deps.users.startSync(ref);
    await done;
    await h.agent.idle();
    expect(other.credentials).toHaveLength(1);
    expect(other.credentials[0]!.result.verified).toBe(true);
  });
});
