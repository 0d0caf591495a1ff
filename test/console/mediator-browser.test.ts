// The standalone mediator's console in a real browser (playwright-core driving Debian's
// /usr/bin/chromium): sign in with the access code; see the wallet behind the mediator live; watch
// a queued message appear in the queue table without a reload, and go when the wallet collects it;
// open the messages view, and see the delivery it pushes when a message comes for the wallet.
// Nothing may be refused by the CSP, throw, or be fetched from elsewhere.
// Screenshots go to test-results/mediator-console-browser/ (git-ignored). Skipped, saying why,
// where the browser is missing.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMediatorConsole, type MediatorConsole } from '../../src/console/index.js';
import { startMediator, type RunningMediator } from '../../src/mediator/server.js';
import { openStore, type Store } from '../../src/store/store.js';
import { createWallet, type Wallet } from '../../src/wallet/wallet.js';
import { HAVE_CHROMIUM, launchChromium, SKIP_REASON, type Browser } from './chromium.js';
import { TRUST_PING } from '../../src/protocols/trust-ping.js';
import { sender } from '../mediator/parties.js';

const SHOTS = fileURLToPath(new URL('../../test-results/mediator-console-browser/', import.meta.url));
const WAIT = { timeout: 15_000 };

let stores: Store[] = [];
let mediator: RunningMediator;
let web: MediatorConsole;
let wallet: Wallet;
let browser: Browser;
let page: Page;
let problems: string[] = [];

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

describe.skipIf(!HAVE_CHROMIUM)(`the mediator console in Chromium${SKIP_REASON}`, () => {
  beforeAll(async () => {
    await rm(SHOTS, { recursive: true, force: true });
    await mkdir(SHOTS, { recursive: true });
    stores = [await openStore(), await openStore()];
    mediator = await startMediator({ store: stores[0]! });
    web = await startMediatorConsole(mediator.agent, { store: stores[0]!, port: 0 });
    wallet = createWallet({ store: stores[1]!, mediator: mediator.shortInvitationUrl });
    await wallet.init();
    browser = await launchChromium(new URL(web.url).origin);
    ({ page, problems } = browser);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await wallet?.close();
    await web?.close();
    await mediator?.close();
    for (const s of stores) await s.close();
  });

  it('signs in with the access code and shows the wallet mediated for, live', async () => {
    await page.goto(web.url);
    await expect(page.locator('section.login h1').textContent()).resolves.toContain('Sign in');
    await page.fill('input[name=clientSecret]', web.accessCode);
    await page.click('section.login button[type=submit]');
    await page.waitForURL('**/console/overview', WAIT);
    await page.waitForSelector('body.live-on', WAIT);
    await expect(page.locator('h1').first().textContent()).resolves.toBe('Mediator');
    await expect(page.locator('#overview').textContent()).resolves.toContain('Nothing waits');
    await expect(page.locator('#overview .state-ok').first().textContent()).resolves.toBe('live');
    await shot('01-overview');
    expect(problems).toEqual([]);
  });

  it('shows a message waiting as it is queued, and its going once collected, without a reload', async () => {
    const recipient = 'did:example:nobody-collects';
    // A queue of a DID nobody collects for: it waits until the test removes it.
    await mediator.agent.mediator.queue.enqueue(recipient, 'y'.repeat(3072));
    mediator.agent.events.emit('forward-queued', { to: recipient });
    await page.waitForSelector(`#overview code[title="${recipient}"]`, WAIT);
    await expect(page.locator('#overview').textContent()).resolves.toContain('3.0 KB');
    await shot('02-waiting');
    const [waiting] = await mediator.agent.mediator.queue.list(recipient);
    await mediator.agent.mediator.queue.remove(recipient, [waiting!.id]);
    mediator.agent.events.emit('pickup-received', { to: recipient, removed: 1 });
    await page.waitForSelector(`#overview code[title="${recipient}"]`, { state: 'detached', ...WAIT });
    await expect(page.locator('#overview').textContent()).resolves.toContain('Nothing waits');
    expect(problems).toEqual([]);
  });

  it("lists the mediator's messages with the wallet's mediation requests", async () => {
    await page.click('nav a[href="/console/messages"]');
    await page.waitForURL('**/console/messages', WAIT);
    const types = await page.locator('#message-rows .msg').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-type')?.split('/').pop()));
    expect(types).toEqual(expect.arrayContaining(['mediate-request', 'mediate-grant', 'keylist-update', 'keylist-update-response']));
    await shot('03-messages');
    expect(problems).toEqual([]);
  });

  it('shows, without a reload, the delivery it pushes on the live wallet\'s socket, checked like its other messages', async () => {
    // Someone sends the wallet a ping: its DID names the mediator, so the ping comes as a forward
    // and goes on in a delivery pushed on the wallet's WebSocket.
    const s = sender();
    try {
      const pushed = new Promise((resolve) => mediator.agent.events.once('live-pushed', resolve));
      await s.router.send({ type: TRUST_PING.ping, body: { response_requested: false } }, { to: wallet.did });
      await pushed;
      const row = page.locator('#message-rows .msg[data-type$="/messagepickup/3.0/delivery"]').first();
      await row.waitFor(WAIT);
      await expect(row.textContent()).resolves.toMatch(/sent[\s\S]*pass/i);
      await shot('04-delivery');
      expect(problems).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
