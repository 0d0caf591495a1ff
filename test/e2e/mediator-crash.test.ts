// Crashes of `idsync mediator` as a real process (SIGKILL at a named step: IDSYNC_TEST_CRASH_AT,
// crash-point.ts), restarted on the same data folder and port (its did:peer:2 names the port):
//   mediator:forward-queued  a forward written, its 202 not yet sent: the sender sends the same
//                            bytes again; the message is delivered once.
//   mediator:delivered       forwards answered 202, a delivery being answered: after the restart
//                            every one of them is delivered (nothing acknowledged is lost).
//   mediator:received        messages-received applied, its status not yet sent: what it named is
//                            never delivered again, and the same messages-received again is harmless.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { pack } from '../../src/didcomm/envelope/index.js';
import { MEDIA_TYPES } from '../../src/didcomm/types.js';
import { requestMediation, updateRecipients } from '../../src/protocols/coordinate-mediation.js';
import { wrapForMediator } from '../../src/protocols/routing.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import { tempDir } from '../cli/run-cli.js';
import { deliveryRequest, extraDid, messagesReceived, open, party, status, type Delivered, type Party } from '../mediator/parties.js';
import { freePort, startCli, type RunningCli } from './processes.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
const running: RunningCli[] = [];
const parties: Party[] = [];
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  for (const p of running.splice(0)) await p.stop();
  for (const p of parties.splice(0)) await p.close();
  await dir?.remove();
});

interface Started {
  cli: RunningCli;
  did: string;
  url: string;
  killed: Promise<NodeJS.Signals | null>;
}

async function mediator(name: string, port: number, crashAt?: string): Promise<Started> {
  const cli = startCli(['mediator', '--port', String(port), '--data', dir.file(name), '--json'], crashAt ? { IDSYNC_TEST_CRASH_AT: crashAt } : {});
  running.push(cli);
  const killed = new Promise<NodeJS.Signals | null>((resolve) => cli.child.once('exit', (_code, signal) => resolve(signal)));
  const { did, listening } = JSON.parse(await cli.line(/^\{/)) as { did: string; listening: string };
  return { cli, did, url: listening, killed };
}

/** A recipient granted mediation, with one registered DID behind the mediator; a sender. */
async function setup(m: Started) {
  const r = party();
  const s = party();
  parties.push(r, s);
  const a = extraDid(r, m.did).did;
  await requestMediation(r.router, m.did, '2.0');
  await updateRecipients(r.router, m.did, [{ recipientDid: a, action: 'add' }]);
  return { r, s, a };
}

/** A forward for `to`, packed once (a sender retrying sends these same bytes). */
async function packedForward(s: Party, mediatorDid: string, to: string): Promise<{ bytes: string; id: string }> {
  const ping = { id: crypto.randomUUID(), type: TRUST_PING.ping, from: s.did, to: [to], body: { response_requested: false } };
  const inner = (await pack(ping, { mode: 'authcrypt', to, forward: false }, s.envelope)).packed;
  return { bytes: (await wrapForMediator(inner, { next: to, mediator: mediatorDid }, s.envelope, { clock: systemClock })).packed, id: ping.id };
}

async function post(url: string, bytes: string): Promise<number | string> {
  try {
    return (await fetch(`${url}/didcomm`, { method: 'POST', headers: { 'content-type': MEDIA_TYPES.encrypted }, body: bytes })).status;
  } catch (err) {
    return (err as Error).message;
  }
}

async function deliveredIds(r: Party, did: string): Promise<{ ids: string[]; queueIds: string[] }> {
  const d = await deliveryRequest(r, did, 100);
  if (!('messages' in d)) return { ids: [], queueIds: [] };
  const opened = await Promise.all((d as Delivered).messages.map((m) => open(r, m.packed)));
  return { ids: opened.map((m) => m.id), queueIds: (d as Delivered).messages.map((m) => m.id) };
}

describe('idsync mediator killed mid-delivery, restarted on its folder', () => {
  it('mediator:forward-queued — the unanswered forward, sent again, is delivered once', async () => {
    const port = await freePort();
    const m = await mediator('fq', port, 'mediator:forward-queued');
    const { r, s, a } = await setup(m);
    const f = await packedForward(s, m.did, a);
    expect(await post(m.url, f.bytes)).not.toBe(202);
    expect(await m.killed).toBe('SIGKILL');
    const again = await mediator('fq', port);
    expect(again.did).toBe(m.did);
    expect(await post(again.url, f.bytes)).toBe(202);
    expect((await deliveredIds(r, again.did)).ids).toEqual([f.id]);
  }, 90_000);

  it('mediator:delivered — every forward answered 202 is delivered after the restart', async () => {
    const port = await freePort();
    const m = await mediator('dl', port, 'mediator:delivered');
    const { r, s, a } = await setup(m);
    const sent = [await packedForward(s, m.did, a), await packedForward(s, m.did, a)];
    for (const f of sent) expect(await post(m.url, f.bytes)).toBe(202);
    await expect(deliveryRequest(r, m.did, 100)).rejects.toBeDefined();
    expect(await m.killed).toBe('SIGKILL');
    const again = await mediator('dl', port);
    const got = await deliveredIds(r, again.did);
    expect(got.ids.sort()).toEqual(sent.map((f) => f.id).sort());
    expect(await messagesReceived(r, again.did, got.queueIds)).toMatchObject({ messageCount: 0 });
  }, 90_000);

  it('mediator:received — what messages-received named is never delivered again', async () => {
    const port = await freePort();
    const m = await mediator('rc', port, 'mediator:received');
    const { r, s, a } = await setup(m);
    const first = await packedForward(s, m.did, a);
    expect(await post(m.url, first.bytes)).toBe(202);
    const got = await deliveredIds(r, m.did);
    expect(got.ids).toEqual([first.id]);
    await expect(messagesReceived(r, m.did, got.queueIds)).rejects.toBeDefined();
    expect(await m.killed).toBe('SIGKILL');
    const again = await mediator('rc', port);
    // The recipient, never answered, confirms again: nothing is left, nothing comes back.
    expect(await messagesReceived(r, again.did, got.queueIds)).toMatchObject({ messageCount: 0 });
    const second = await packedForward(s, again.did, a);
    expect(await post(again.url, second.bytes)).toBe(202);
    expect((await deliveredIds(r, again.did)).ids).toEqual([second.id]);
    expect((await status(r, again.did)).status.messageCount).toBe(1);
  }, 90_000);
});
