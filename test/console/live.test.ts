// The console live, over the twin's real socket: a page's event stream carries each message's row
// as it is logged and again when its record is completed, a `changed` event when state changed,
// and what a browser missed while reconnecting (Last-Event-ID). A fault turned on shows on the row
// of the message it hit, and the message sent again shows as such.
import { afterEach, describe, expect, it } from 'vitest';
import { connectUser, syncDatapoints } from '../../src/testing/index.js';
import { ADA, startConsoleBed, type ConsoleBed } from './helpers.js';

let c: ConsoleBed | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

/** Reads an event stream until `done(text)` holds; the guard ends a stream that never gets there. */
async function follow(url: string, headers: Record<string, string>, until: Promise<unknown>, done: (text: string) => boolean): Promise<string> {
  const ctl = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', 'hx-request': 'true', ...headers }, signal: ctl.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const guard = setTimeout(() => ctl.abort(), 20_000);
  try {
    void until;
    while (!done(text)) {
      const { value, done: end } = await reader.read();
      if (end) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(guard);
    ctl.abort();
  }
  return text;
}

describe('console live', () => {
  it('streams each message row as it is logged and completed, and says when state changed', async () => {
    c = await startConsoleBed({ testbed: { transport: 'http' } });
    const bed = c.bed;
    const url = `${bed.service.url}/console/stream/messages`;
    const flow = (async () => {
      await connectUser(bed, 'ada', bed.wallets[0]!);
      await syncDatapoints(bed, 'ada', bed.wallets[0]!, ADA);
    })();
    const text = await follow(url, { cookie: c.cookie }, flow, (t) => t.includes('issue-credential/3.0/ack') && t.includes('event: changed'));
    await flow;
    // New rows go on top of the list; a completed record replaces its row.
    expect(text).toContain('<hx-partial hx-target="#message-rows" hx-swap="afterbegin">');
    expect(text).toMatch(/<hx-partial hx-target="#m-[0-9-]+" hx-swap="outerHTML">/);
    expect(text).toMatch(/^id: \d+-\d+$/m);
    expect(text).toContain('data-pipe/1.0/request');

    // A browser reconnecting with the id of the first row it had gets the rest again.
    const firstId = /^id: (\d+-\d+)$/m.exec(text)![1]!;
    const replay = await follow(url, { cookie: c.cookie, 'last-event-id': firstId }, Promise.resolve(), (t) => t.includes('issue-credential/3.0/ack'));
    expect(replay).toContain('present-proof/3.0/presentation');
  });

  it('says `changed` when an API call changed something, with no DIDComm message in it', async () => {
    c = await startConsoleBed({ testbed: { transport: 'http' } });
    const bed = c.bed;
    const url = `${bed.service.url}/console/stream/changes`;
    const ctl = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream', cookie: c.cookie }, signal: ctl.signal });
    const reader = res.body!.getReader();
    // The stream is open once its first frame (the retry delay) arrived.
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('retry: 1000');
    await bed.service.client.putUser('zoe');
    let text = '';
    const guard = setTimeout(() => ctl.abort(), 10_000);
    try {
      while (!text.includes('event: changed')) text += new TextDecoder().decode((await reader.read()).value);
    } finally {
      clearTimeout(guard);
      ctl.abort();
    }
    expect(text).toMatch(/^event: changed$/m);
  });

  it('filters the stream: a type filter sends no row of another type', async () => {
    c = await startConsoleBed({ testbed: { transport: 'http' } });
    const bed = c.bed;
    const flow = (async () => {
      await connectUser(bed, 'ada', bed.wallets[0]!);
      await syncDatapoints(bed, 'ada', bed.wallets[0]!, ADA);
    })();
    const text = await follow(`${bed.service.url}/console/stream/messages?type=present-proof`, { cookie: c.cookie }, flow, (t) => t.includes('present-proof/3.0/ack'));
    await flow;
    expect(text).not.toContain('data-pipe/1.0');
    expect(text).not.toContain('issue-credential/3.0/offer-credential');
  });

  it('shows a dropped message on its row, and the same message sent again', async () => {
    c = await startConsoleBed({ testbed: { retry: { baseDelayMs: 50, maxDelayMs: 100, acceptedDelayMs: 100 } } });
    const bed = c.bed;
    await connectUser(bed, 'ada', bed.wallets[0]!);
    c.faults.set({ rules: [{ fault: 'drop', direction: 'to-wallet', type: 'issue-credential/3.0/offer-credential', times: 1 }] });
    await syncDatapoints(bed, 'ada', bed.wallets[0]!, ADA);
    const page = (await c.call('GET', '/console/messages?type=offer-credential')).body;
    const rows = page.split('<div class="msg ').filter((r) => r.includes('offer-credential'));
    // Newest first: the oldest is the dropped one, the one after it the same message sent again
    // (the retries may send it more than once before the wallet's answer arrives).
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.at(-1)).toContain('fault fault-drop');
    expect(rows.at(-2)).toContain('sent again (#2)');
    expect(rows.slice(0, -1).some((r) => r.includes('fault-drop'))).toBe(false);
    const faults = await c.call('GET', '/console/faults');
    expect(faults.body).toMatch(/<td>1<\/td><td><time[^>]*>[^<]*<\/time><\/td><td><span class="fault fault-drop"/);
    expect(faults.body).toContain('logged message');
  });
});
