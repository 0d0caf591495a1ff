// The standalone mediator's console on a port of its own: the access code signs in; the overview
// shows the parties it mediates for (their grant, the DIDs they registered, whether they are live)
// and what waits in each queue, drawn again as that changes; the message view lists what the
// mediator received and sent.
import { afterEach, describe, expect, it } from 'vitest';
import { startMediatorConsole, type MediatorConsole } from '../../src/console/index.js';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { openStore, type Store } from '../../src/store/store.js';
import { createWallet, type Wallet } from '../../src/wallet/wallet.js';
import { connectUser, startTestbed, syncDatapoints } from '../../src/testing/index.js';
import { ADA } from './helpers.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers: { accept: 'text/html', ...headers }, redirect: 'manual' });

async function mediatorWithWallet(): Promise<{ mediator: RunningMediator; store: Store; wallet: Wallet; web: MediatorConsole }> {
  const store = await openStore();
  cleanup.push(() => store.close());
  const mediator = await startMediator({ store, policy: { maxKeys: 12, maxQueue: 7 } });
  cleanup.push(() => mediator.close());
  const web = await startMediatorConsole(mediator.agent, { store, port: 0 });
  cleanup.push(() => web.close());
  const walletStore = await openStore();
  cleanup.push(() => walletStore.close());
  const wallet = createWallet({ store: walletStore, mediator: mediator.shortInvitationUrl });
  await wallet.init();
  cleanup.push(() => wallet.close());
  return { mediator, store, wallet, web };
}

describe('mediator console', () => {
  it('signs in with the access code only, and shows the parties, their live state and what waits for them', async () => {
    const { mediator, wallet, web } = await mediatorWithWallet();
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console$/);
    expect((await get(`${web.url}/overview`)).status).toBe(401);
    expect((await get(`${web.url}/overview?fragment=1`, { authorization: 'Bearer nope' })).status).toBe(401);
    const auth = { authorization: `Bearer ${web.accessCode}` };

    const overview = await (await get(`${web.url}/overview?fragment=1`, auth)).text();
    expect(overview).toContain(mediator.shortInvitationUrl);
    expect(overview).toContain('12 recipient DIDs per party · queue 7 messages per recipient');
    // The wallet asked for mediation (2.0), registered its DID, and collects live.
    expect(overview).toMatch(/<tr><td><code class="did"[^>]*>[^<]*<\/code><\/td><td>2\.0<\/td><td><time[^>]*>[^<]*<\/time><\/td><td>1<\/td><td><span class="state state-ok">live<\/span><\/td><\/tr>/);
    expect(overview).toContain('Nothing waits');

    // A message queued for the wallet's DID shows in the queue table.
    await mediator.agent.mediator.queue.enqueue(wallet.did, 'x'.repeat(2048));
    const queued = await (await get(`${web.url}/overview?fragment=1`, auth)).text();
    expect(queued).toMatch(/<td>1<\/td><td>2\.0 KB<\/td>/);
    expect(queued).toContain(`title="${wallet.did}"`);

    // The page itself, and the mediator's messages: the wallet's mediate-request and keylist-update, and the answers.
    const page = await (await get(`${web.url}/overview`, auth)).text();
    expect(page).toContain('<h1>Mediator</h1>');
    expect(page).toContain('Parties and queues');
    const messages = await (await get(`${web.url}/messages`, auth)).text();
    for (const type of ['mediate-request', 'mediate-grant', 'keylist-update', 'keylist-update-response', 'live-delivery-change', 'status']) expect(messages).toContain(type);
  });

  it('tells the page when a party stops being live: its socket closed', async () => {
    const { wallet, web } = await mediatorWithWallet();
    const auth = { authorization: `Bearer ${web.accessCode}` };
    expect(await (await get(`${web.url}/overview?fragment=1`, auth)).text()).toContain('state-ok">live<');
    const ctl = new AbortController();
    const guard = setTimeout(() => ctl.abort(), 10_000);
    const res = await fetch(`${web.url}/stream/changes`, { headers: { accept: 'text/event-stream', ...auth }, signal: ctl.signal });
    const reader = res.body!.getReader();
    let said = '';
    const reading = (async () => {
      for (;;) said += new TextDecoder().decode((await reader.read()).value);
    })().catch(() => undefined);
    // Open, and whatever the wallet's start set going has been said.
    await new Promise((r) => setTimeout(r, 800));
    expect(said).toContain('retry: 1000');
    said = '';
    await wallet.close();
    try {
      while (!said.includes('event: changed') && !ctl.signal.aborted) await new Promise((r) => setTimeout(r, 50));
    } finally {
      clearTimeout(guard);
      ctl.abort();
      await reading;
    }
    expect(said).toMatch(/^event: changed$/m);
    expect(await (await get(`${web.url}/overview?fragment=1`, auth)).text()).not.toContain('state-ok">live<');
  });

  it("serves the testbed's mediator too: the forwards of a sync, in process on the memory network", async () => {
    const bed = await startTestbed({ walletMode: 'mediated' });
    cleanup.push(() => bed.close());
    const wallet = bed.wallets[0]!;
    const web = await startMediatorConsole(bed.mediator!.agent, { store: bed.mediator!.store, port: 0 });
    cleanup.push(() => web.close());
    await connectUser(bed, 'ada', wallet);
    await syncDatapoints(bed, 'ada', wallet, ADA);
    const auth = { authorization: `Bearer ${web.accessCode}` };
    const messages = await (await get(`${web.url}/messages`, auth)).text();
    expect(messages).toContain('routing/2.0/forward');
    const overview = await (await get(`${web.url}/overview?fragment=1`, auth)).text();
    expect(overview).toContain(`title="${wallet.did}"`);
  });

  it('says when nobody asked for mediation yet', async () => {
    const store = await openStore();
    cleanup.push(() => store.close());
    const mediator = await startMediator({ store });
    cleanup.push(() => mediator.close());
    const web = await startMediatorConsole(mediator.agent, { store, port: 0 });
    cleanup.push(() => web.close());
    const overview = await (await get(`${web.url}/overview?fragment=1`, { authorization: `Bearer ${web.accessCode}` })).text();
    expect(overview).toContain('Nobody asked for mediation yet');
  });
});
