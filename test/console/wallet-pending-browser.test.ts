// The wallet console's table of what waits for approval shows each item's whole id, the one
// `idsync wallet approve ID` takes, as text that can be selected and copied. Skipped, saying why,
// where the browser is missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWalletConsole, type WalletConsole } from '../../src/console/index.js';
import type { PendingItem } from '../../src/wallet/policies.js';
import { startTestbed, type Testbed } from '../../src/testing/index.js';
import { HAVE_CHROMIUM, launchChromium, SKIP_REASON, type Browser } from './chromium.js';

const WAIT = { timeout: 15_000 };

let bed: Testbed;
let web: WalletConsole;
let browser: Browser;
let item: PendingItem;

describe.skipIf(!HAVE_CHROMIUM)(`the wallet console's pending items in Chromium${SKIP_REASON}`, () => {
  beforeAll(async () => {
    bed = await startTestbed({ transport: 'http' });
    const wallet = bed.wallets[0]!;
    // An invitation sent as a DIDComm message waits for the user's approval.
    const wf = await bed.service.client.createWorkflow({ datapoints: { firstName: 'Alan', lastName: 'Turing', birthDate: '1912-06-23' } });
    const arrived = wallet.waitForPending({ kind: 'invitation' });
    await bed.service.client.sendInvitation(wf.id, [{ channel: 'DIDCOMM', target: wallet.did }]);
    item = await arrived;
    web = await startWalletConsole(wallet, { port: 0 });
    browser = await launchChromium(new URL(web.url).origin);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await bed?.close();
  });

  it('shows the whole id of an item waiting, as selectable text', async () => {
    const { page } = browser;
    await page.goto(web.url);
    await page.fill('input[name=clientSecret]', web.accessCode);
    await page.click('section.login button[type=submit]');
    await page.waitForURL('**/console/overview', WAIT);
    const row = page.locator('#overview h2:text-is("Waiting for approval") + table tbody tr');
    await expect(row.count()).resolves.toBe(1);
    const cells = await row.locator('td').allInnerTexts();
    expect(cells).toContain(item.id);
    // Selected as a person copying it would.
    const id = row.locator('td').nth(cells.indexOf(item.id)).locator('code');
    await id.selectText();
    expect(await page.evaluate('String(getSelection())')).toBe(item.id);
    expect(item.id.length).toBeGreaterThan(14);
    expect(browser.problems).toEqual([]);
  });
});
