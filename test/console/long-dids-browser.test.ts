// A did:peer:2 runs to hundreds of characters with no space in them. In Chromium, a message page
// stays as wide as the window where one is shown: the endpoint of a delivery to a wallet behind a
// mediator (the mediator's console; the endpoint is the mediator's DID), and a rule's finding
// that quotes a sender's DID (the twin's console, after a conformance run's anoncrypt ping from
// the harness's did:peer:2). Skipped, saying why, where the browser is missing.
import { afterAll, describe, expect, it } from 'vitest';
import { startMediatorConsole } from '../../src/console/index.js';
import { threadOf } from '../../src/store/messages.js';
import { connectUser, startTestbed, syncDatapoints } from '../../src/testing/index.js';
import { HAVE_CHROMIUM, launchChromium, SKIP_REASON } from './chromium.js';
import { ADA, logged, startConsoleBed } from './helpers.js';

const WAIT = { timeout: 15_000 };
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** Signs in at `origin` (id and secret, or an access code), opens each path, and says how wide each page is. */
async function widths(origin: string, login: { clientId?: string; secret: string }, paths: string[]): Promise<{ path: string; wider: boolean }[]> {
  const browser = await launchChromium(origin);
  try {
    const { page } = browser;
    await page.goto(`${origin}/console`);
    if (login.clientId) await page.fill('input[name=clientId]', login.clientId);
    await page.fill('input[name=clientSecret]', login.secret);
    await page.click('section.login button[type=submit]');
    await page.waitForSelector('body.live-on', WAIT);
    const out = [];
    for (const path of paths) {
      await page.goto(`${origin}${path}`);
      await page.waitForSelector('main h1', WAIT);
      out.push({ path, wider: (await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth')) as boolean });
    }
    expect(browser.problems).toEqual([]);
    return out;
  } finally {
    await browser.close();
  }
}

describe.skipIf(!HAVE_CHROMIUM)(`long DIDs on message pages in Chromium${SKIP_REASON}`, () => {
  it("keeps a delivery's page as wide as the window when its endpoint is the mediator's DID", async () => {
    const bed = await startTestbed({ transport: 'http', walletMode: 'mediated' });
    cleanup.push(() => bed.close());
    const web = await startMediatorConsole(bed.mediator!.agent, { store: bed.mediator!.store, port: 0 });
    cleanup.push(() => web.close());
    await connectUser(bed, 'ada', bed.wallets[0]!);
    await syncDatapoints(bed, 'ada', bed.wallets[0]!, ADA);
    const delivery = await logged(bed.mediator!.store, (m) => m.endpoint?.startsWith('did:peer:2.') === true);
    expect(delivery).toBeDefined();
    const origin = new URL(web.url).origin;
    expect(await widths(origin, { secret: web.accessCode }, [`/console/messages/${delivery.seq}`])).toEqual([{ path: `/console/messages/${delivery.seq}`, wider: false }]);
  }, 60_000);

  it("keeps a message's page and its thread's as wide as the window when a finding quotes a DID", async () => {
    const c = await startConsoleBed({ testbed: { transport: 'http' } });
    cleanup.push(() => c.close());
    const started = await c.call('POST', '/console/conformance/runs', { headers: { 'content-type': 'application/json', accept: 'application/json' }, payload: JSON.stringify({ quick: 'service', suites: ['envelope'] }) });
    expect(started.statusCode).toBe(202);
    const quoting = await logged(c.bed.service.deps.store, (m) => m.conformance?.some((r) => r.detail?.includes('did:peer:2.')) === true);
    expect(quoting).toBeDefined();
    const paths = [`/console/messages/${quoting.seq}`, `/console/threads/${encodeURIComponent(threadOf(quoting))}`];
    expect(await widths(c.bed.service.url, { clientId: 'qa-client', secret: 'qa-client-secret' }, paths)).toEqual(paths.map((path) => ({ path, wider: false })));
  }, 60_000);
});
