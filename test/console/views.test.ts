// The service twin's console views over a testbed that ran both flows: users and search, a user's
// flows on timelines with datapoints synced vs latest, messages with filters and one message's
// verdicts, plaintext and packed form, threads as diagrams, the outbox with QR code and accept,
// webhooks with attempts and signatures and a redeliver, and faults on and off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageLog, threadOf, type LoggedMessage } from '../../src/store/messages.js';
import { IdsyncError } from '../../src/errors.js';
import { connectUser, nextOutboxEntry, syncDatapoints, waitForWorkflowStatus } from '../../src/testing/index.js';
import { systemClock } from '../../src/clock.js';
import { ADA, startConsoleBed, type ConsoleBed } from './helpers.js';

let c: ConsoleBed;
let workflowId: string;
let outboxId: string;
let messages: LoggedMessage[];

const form = (fields: Record<string, string>) => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });

beforeAll(async () => {
  c = await startConsoleBed();
  const [wallet] = c.bed.wallets;
  await connectUser(c.bed, 'ada', wallet!);
  await syncDatapoints(c.bed, 'ada', wallet!, ADA);
  await c.bed.service.client.putUser('bob', { settings: { isSyncOn: false } });
  // A datapoint changed with the user's sync off: latest and synced differ.
  await c.bed.service.client.putUser('ada', { settings: { isSyncOn: false } });
  await c.bed.service.client.putDatapoints('ada', { nationality: 'GB' });
  const wf = await c.bed.service.client.createWorkflow({ userId: 'ada', datapoints: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09', emailAddress: 'grace@example.com' } });
  workflowId = wf.id;
  await c.bed.service.client.sendInvitation(wf.id, [{ channel: 'EMAIL', target: 'grace@example.com' }]);
  outboxId = (await nextOutboxEntry(c.bed.service, { workflowId })).id;
  messages = await messageLog(c.bed.service.deps.store, systemClock).list();
}, 60_000);
afterAll(() => c.close());

describe('users', () => {
  it('lists the users with where they stand, and finds them by id or DID', async () => {
    const all = await c.call('GET', '/console/users');
    expect(all.body).toContain('2 users');
    expect(all.body).toContain('href="/console/users/ada"');
    expect(all.body).toContain('1 of 4 not synced');
    // ada's DID is random and may hold any two letters (case-insensitive search); three rarely collide.
    const byId = await c.call('GET', '/console/users?q=bob');
    expect(byId.body).toContain('1 of 2 users match');
    expect(byId.body).toContain('/console/users/bob');
    const shortDid = (await c.bed.service.client.getUser('ada')).shortUserDID!;
    const byDid = await c.call('GET', `/console/users?q=${encodeURIComponent(shortDid.slice(-12))}`);
    expect(byDid.body).toContain('/console/users/ada');
    expect(byDid.body).not.toContain('/console/users/bob');
  });

  it("shows a user's datapoints synced against the latest, and each flow on a timeline with links to its messages", async () => {
    const res = await c.call('GET', '/console/users/ada');
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/<tr class="dp-new"><td><code>nationality<\/code><\/td><td>GB<\/td>/);
    expect(res.body).toMatch(/<tr class="dp-synced"><td><code>firstName<\/code><\/td><td>Ada<\/td><td>Ada<\/td>/);
    for (const event of ['DATA_PIPE_INITIATED', 'DATA_PIPE_ESTABLISHED', 'DATA_SYNC_STARTED', 'DATA_SYNC_COMPLETED']) expect(res.body).toContain(event);
    expect(res.body).toContain('requested (datapoints-updated)');
    // Every message of the sync is on its timeline, each linked.
    for (const type of ['present-proof/3.0/request-presentation', 'issue-credential/3.0/offer-credential', 'issue-credential/3.0/ack']) {
      const m = messages.find((x) => x.type.endsWith(type))!;
      expect(res.body).toContain(`href="/console/messages/${m.seq}"`);
    }
    expect(res.body).toContain(`/console/workflows/${workflowId}`);
    expect(res.body).toContain('/console/messages?user=ada');
    expect((await c.call('GET', '/console/users/nobody')).statusCode).toBe(404);
  });
});

describe('messages', () => {
  it('lists every message with its envelope, thread, result and verdict, newest first', async () => {
    const res = await c.call('GET', '/console/messages');
    const seqs = [...res.body.matchAll(/id="m-([0-9-]+)"/g)].map((m) => m[1]);
    expect(seqs).toEqual(messages.map((m) => m.seq).reverse());
    expect(res.body).toContain('authcrypt');
    expect(res.body).toContain('verdict verdict-pass');
  });

  it('filters by user, thread, type and verdict', async () => {
    const offer = messages.find((m) => m.type.endsWith('/offer-credential'))!;
    const count = async (q: string) => [...(await c.call('GET', `/console/messages?${q}`)).body.matchAll(/id="m-/g)].length;
    expect(await count('user=ada')).toBe(messages.length);
    expect(await count('user=bob')).toBe(0);
    const thid = threadOf(offer);
    expect(await count(`thid=${encodeURIComponent(thid)}`)).toBe(messages.filter((m) => threadOf(m) === thid).length);
    expect(messages.filter((m) => threadOf(m) === thid).length).toBe(4);
    expect(await count('type=offer-credential')).toBe(1);
    expect(await count('verdict=pass')).toBe(messages.length);
    expect(await count('verdict=fail')).toBe(0);
  });

  it("shows one message's rule verdicts with the catalogue's text, the plaintext, the packed form and the check command", async () => {
    const offer = messages.find((m) => m.type.endsWith('/offer-credential'))!;
    const res = await c.call('GET', `/console/messages/${offer.seq}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('https://didcomm.org/issue-credential/3.0/offer-credential');
    expect(res.body).toMatch(/<code>plaintext\.[a-z-]+<\/code>/);
    expect(res.body).toContain('DIDComm Messaging v2.1');
    expect(res.body).toContain(`<code>${offer.id}</code>`);
    // The plaintext, and the envelope as it travelled (seen by the console's feed).
    expect(res.body).toContain('id="plaintext"');
    expect(res.body).toContain('&quot;ciphertext&quot;');
    expect(res.body).toContain("idsync message check - &lt;&lt;&#39;MESSAGE&#39;");
    expect((await c.call('GET', '/console/messages/00000000000000000-000000')).statusCode).toBe(404);
    expect((await c.call('GET', '/console/messages/..%2F..')).statusCode).toBe(404);
  });

  it('withholds private key members in what it shows of a message only a digest was kept of, and in its packed form', async () => {
    // An unauthenticated plaintext whose body carries a private JWK, and an envelope whose header does.
    const plain = { id: 'leak-plain-1', typ: 'application/didcomm-plain+json', type: 'https://didcomm.org/trust-ping/2.0/ping', body: { k: { kty: 'OKP', crv: 'Ed25519', x: 'AAAA', d: 'PLAINSECRETdddd' } } };
    const jwe = { protected: 'eyJhbGciOiJFQ0RILUVTK0EyNTZLVyJ9', recipients: [{ header: { kid: 'x', kty: 'OKP', d: 'RAWSECRET3' }, encrypted_key: 'AA' }], iv: 'AA', ciphertext: 'AA', tag: 'AA' };
    for (const [body, ct] of [[plain, 'application/didcomm-plain+json'], [jwe, 'application/didcomm-encrypted+json']] as const) {
      const posted = await c.app.inject({ method: 'POST', url: '/didcomm', headers: { 'content-type': ct }, payload: JSON.stringify(body) });
      expect(posted.statusCode).toBeLessThan(500);
    }
    const logged = (await messageLog(c.bed.service.deps.store, systemClock).list()).filter((m) => m.id === 'leak-plain-1' || m.result === 'undecryptable');
    expect(logged.length).toBeGreaterThanOrEqual(2);
    for (const m of logged) {
      const page = await c.call('GET', `/console/messages/${m.seq}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('PLAINSECRET');
      expect(page.body).not.toContain('RAWSECRET');
    }
  });

  it('groups threads and draws each as a sequence diagram', async () => {
    const res = await c.call('GET', '/console/threads');
    expect(res.body.match(/<svg[^>]*class="sequence"/g)?.length).toBeGreaterThanOrEqual(3);
    expect(res.body).toContain('user ada');
    const offer = messages.find((m) => m.type.endsWith('/offer-credential'))!;
    const one = await c.call('GET', `/console/threads/${encodeURIComponent(threadOf(offer))}`);
    expect(one.body.match(/<g class="arrow/g)).toHaveLength(4);
    // Every rule checked on the thread, once, with its verdict and the sentence it enforces.
    expect(one.body).toContain('<h2>Rule verdicts</h2>');
    expect(one.body).toContain('Every rule checked held on every message.');
    expect(one.body).toMatch(/<td><span class="verdict verdict-pass">pass<\/span><\/td>\s*<td><code>plaintext\.type<\/code><div class="muted">checked on 4 messages<\/div>/);
    expect(one.body).toContain('<blockquote>The `type` attribute value MUST be a valid message type URI');
    expect(one.body).toContain('<code>issue-credential.offer.credential_preview</code><div class="muted">checked on 1 message</div>');
  });
});

describe('outbox and workflows', () => {
  it('shows the caught e-mail rendered and raw, with its invitation link and QR code', async () => {
    const list = await c.call('GET', '/console/outbox');
    expect(list.body).toContain(`/console/outbox/${outboxId}`);
    const res = await c.call('GET', `/console/outbox/${outboxId}`);
    const entry = (await c.bed.service.outbox.get(outboxId))!;
    expect(res.body).toContain('grace@example.com');
    expect(res.body).toContain(entry.subject!);
    expect(res.body).toContain(`href="${entry.invitationUrl.replace(/&/g, '&amp;')}"`);
    expect(res.body).toMatch(/<div class="qr"[^>]*><svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(res.body).toContain('To: grace@example.com');
    expect(res.body).toContain('X-Idsync-Channel: EMAIL');
  });

  it('accepts the invitation with the in-process wallet and goes to the workflow, which completes', async () => {
    const res = await c.call('POST', `/console/outbox/${outboxId}/accept`, form({}));
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/console/workflows/${workflowId}`);
    await waitForWorkflowStatus(c.bed.service.client, workflowId, 'COMPLETED');
    const wf = await c.call('GET', res.headers.location as string);
    for (const state of ['CREATED', 'INVITATION_SENT', 'IN_PROGRESS', 'COMPLETED']) expect(wf.body).toContain(state);
    expect(wf.body).toContain('CREDENTIAL_ISSUANCE_COMPLETED');
    expect(wf.body).toMatch(/<svg[^>]*class="sequence"/);
    expect(wf.body).toContain('issue-credential/3.0/ack');
    const list = await c.call('GET', '/console/workflows');
    expect(list.body).toContain(`/console/workflows/${workflowId}`);
  });

  it("shows a workflow's expiry with its date: it is weeks away, not a time of today", async () => {
    const { expiresAt } = await c.bed.service.client.getWorkflow(workflowId);
    const page = await c.call('GET', `/console/workflows/${workflowId}`);
    expect(page.body).toContain(`<th>expires</th><td><time datetime="${expiresAt}" title="${expiresAt}">${expiresAt.slice(0, 10)} ${expiresAt.slice(11, 19)}</time></td>`);
  });

  it("shows a refused answer to a workflow's invitation, not 'no wallet has answered'", async () => {
    // Bound to ada's wallet: another wallet's propose is refused (e.p.trust.forbidden).
    const wf = await c.bed.service.client.createWorkflow({ userId: 'ada', datapoints: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09' } });
    const other = await c.bed.addWallet();
    const accepted = await other.acceptInvitation(wf.invitationUrl, { timeoutMs: 10_000 });
    if (accepted.kind === 'issuance') await accepted.done.catch(() => undefined);
    const page = await c.call('GET', `/console/workflows/${wf.id}`);
    expect(page.body).not.toContain('No wallet has answered the invitation yet');
    expect(page.body).toContain('issue-credential/3.0/propose-credential');
    expect(page.body).toContain('e.p.trust.forbidden');
    expect(page.body).toContain(`/console/messages?thid=${wf.invitation.id}`);
  });

  it('says why when the wallet cannot accept the invitation', async () => {
    const other = await startConsoleBed({ console: { wallet: () => Promise.reject(new IdsyncError('wallet_not_initialized', 'no wallet here')) } });
    try {
      const wf = await other.bed.service.client.createWorkflow({ datapoints: { firstName: 'G', lastName: 'H', birthDate: '1906-12-09' } });
      await other.bed.service.client.sendInvitation(wf.id, [{ channel: 'SMS', target: '+15550100' }]);
      const entry = await nextOutboxEntry(other.bed.service, { workflowId: wf.id });
      const res = await other.call('POST', `/console/outbox/${entry.id}/accept`, form({}));
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toMatch(new RegExp(`^/console/outbox/${entry.id}\\?failed=wallet_not_initialized`));
      const page = await other.call('GET', res.headers.location as string);
      expect(page.body).toContain('Not accepted: wallet_not_initialized: no wallet here');
    } finally {
      await other.close();
    }
  });
});

describe('webhooks', () => {
  it('shows deliveries per subject in order, with attempts, signature headers and payload; redelivers', async () => {
    await c.bed.service.deps.webhooks!.deliverDue();
    const res = await c.call('GET', '/console/webhooks');
    expect(res.body).toContain('<h3>user:ada</h3>');
    expect(res.body).toContain(`<h3>workflow:${workflowId}</h3>`);
    expect(res.body).toContain('webhook-signature: v1,');
    expect(res.body).toContain('webhook-id: ');
    expect(res.body).toContain('&quot;DATA_SYNC_COMPLETED&quot;');
    // The user's events, in their sequence order.
    const userSection = res.body.slice(res.body.indexOf('<h3>user:ada</h3>'));
    const seqs = [...userSection.slice(0, userSection.indexOf('</article>')).matchAll(/<span class="seq">#(\d+)<\/span>/g)].map((m) => Number(m[1]));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const delivered = (await c.bed.service.deps.webhooks!.deliveries({ state: 'delivered' }))[0]!;
    const again = await c.call('POST', `/console/webhooks/deliveries/${encodeURIComponent(delivered.id)}/redeliver`, form({}));
    expect(again.statusCode).toBe(303);
    const after = (await c.bed.service.deps.webhooks!.attempts(delivered.eventId)).find((d) => d.id === delivered.id)!;
    expect(after.roundStart).toBe(delivered.attempts.length);
    expect((await c.call('POST', '/console/webhooks/deliveries/nope%3Anope/redeliver', form({}))).statusCode).toBe(404);
  });
});

describe('faults', () => {
  it('turns a fault plan on from a form and off again, refusing what is no fault', async () => {
    const on = await c.call('POST', '/console/faults', form({ fault: 'drop', direction: 'to-wallet', type: 'issue-credential/3.0/offer-credential', times: '1' }));
    expect(on.statusCode).toBe(303);
    expect(c.faults.current?.rules).toEqual([{ fault: 'drop', direction: 'to-wallet', type: 'issue-credential/3.0/offer-credential', times: 1 }]);
    const page = await c.call('GET', '/console/faults');
    expect(page.body).toContain('id="fault-state">on');
    expect(page.body).toContain('drop, messages of type issue-credential/3.0/offer-credential, to-wallet, 1 time');
    const bad = await c.call('POST', '/console/faults', form({ fault: 'explode' }));
    expect(bad.headers.location).toMatch(/failed=invalid_request/);
    expect(c.faults.current?.rules).toHaveLength(1);
    await c.call('POST', '/console/faults/off', form({}));
    expect(c.faults.current).toBeUndefined();
    expect((await c.call('GET', '/console/faults')).body).toContain('id="fault-state">off');
  });

  it('adds a rule without starting the rules already on again: a spent "1 time" stays spent', async () => {
    const offer = { direction: 'to-wallet', mediaType: 'encrypted' as const, type: 'https://didcomm.org/issue-credential/3.0/offer-credential' };
    await c.call('POST', '/console/faults', form({ fault: 'drop', direction: 'to-wallet', type: 'issue-credential/3.0/offer-credential', times: '1' }));
    expect(c.faults.decide(offer).faults.map((f) => f.kind)).toEqual(['drop']);
    expect(c.faults.decide(offer).faults).toEqual([]);
    const added = await c.call('POST', '/console/faults', form({ fault: 'delay', type: 'issue-credential/3.0/ack', times: '1' }));
    expect(added.headers.location).toBe('/console/faults');
    expect(c.faults.current?.rules).toHaveLength(2);
    expect(c.faults.decide(offer).faults).toEqual([]);
    expect(c.faults.decide({ direction: 'to-service', mediaType: 'encrypted', type: 'https://didcomm.org/issue-credential/3.0/ack' }).faults.map((f) => f.kind)).toEqual(['delay']);
    await c.call('POST', '/console/faults/off', form({}));
  });
});
