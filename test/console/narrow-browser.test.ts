// The message list in a window narrower than its columns (800 px, half a laptop screen): the
// verdict and notes columns are still reached, by scrolling the list sideways, as a person would
// with a wheel or a trackpad. Skipped, saying why, where the browser is missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectUser, syncDatapoints } from '../../src/testing/index.js';
import { HAVE_CHROMIUM, launchChromium, signInAsQa, SKIP_REASON, type Browser } from './chromium.js';
import { ADA, startConsoleBed, type ConsoleBed } from './helpers.js';

const WAIT = { timeout: 15_000 };

let c: ConsoleBed;
let browser: Browser;

describe.skipIf(!HAVE_CHROMIUM)(`the message list in a narrow window in Chromium${SKIP_REASON}`, () => {
  beforeAll(async () => {
    c = await startConsoleBed({ testbed: { transport: 'http' } });
    await connectUser(c.bed, 'ada', c.bed.wallets[0]!);
    await syncDatapoints(c.bed, 'ada', c.bed.wallets[0]!, ADA);
    browser = await launchChromium(new URL(c.bed.service.url).origin);
    const { page } = browser;
    await page.setViewportSize({ width: 800, height: 700 });
    await signInAsQa(page, c.bed.service.url, '/console/messages');
    await page.waitForSelector('#message-rows .msg', WAIT);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await c?.close();
  });

  it('scrolls the list sideways to the verdict column', async () => {
    const { page } = browser;
    const verdict = page.locator('#message-rows .msg .c-verdict').first();
    const list = (await page.locator('.msg-list').boundingBox())!;
    await page.mouse.move(list.x + list.width / 2, list.y + 40);
    await page.mouse.wheel(1000, 0);
    await page.waitForTimeout(300);
    const box = (await verdict.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(list.x + list.width);
    expect(box.x).toBeGreaterThanOrEqual(list.x);
    expect(browser.problems).toEqual([]);
  });
});
