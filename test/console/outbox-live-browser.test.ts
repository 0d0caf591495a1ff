// An outbox message's page follows its entry live, as the other pages follow theirs: a change of
// its status shows without a reload. Skipped, saying why, where the browser is missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextOutboxEntry } from '../../src/testing/index.js';
import { HAVE_CHROMIUM, launchChromium, signInAsQa, SKIP_REASON, type Browser } from './chromium.js';
import { startConsoleBed, type ConsoleBed } from './helpers.js';

const WAIT = { timeout: 15_000 };

let c: ConsoleBed;
let browser: Browser;

describe.skipIf(!HAVE_CHROMIUM)(`an outbox message's page in Chromium${SKIP_REASON}`, () => {
  beforeAll(async () => {
    c = await startConsoleBed({ testbed: { transport: 'http' } });
    browser = await launchChromium(new URL(c.bed.service.url).origin);
    const { page } = browser;
    await signInAsQa(page, c.bed.service.url);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await c?.close();
  });

  it('shows a change of the entry without a reload', async () => {
    const wf = await c.bed.service.client.createWorkflow({ datapoints: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09', emailAddress: 'grace@example.com' } });
    await c.bed.service.client.sendInvitation(wf.id, [{ channel: 'EMAIL', target: 'grace@example.com' }]);
    const entry = await nextOutboxEntry(c.bed.service, { workflowId: wf.id });
    const { page } = browser;
    await page.goto(`${c.bed.service.url}/console/outbox/${entry.id}`);
    await page.waitForSelector('body.live-on', WAIT);
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
    await c.bed.service.deps.issuance!.outbox.update(entry.id, { status: 'failed', error: { code: 'smtp_refused', message: 'mailbox full' } });
    await page.waitForSelector('.mail-head code:text("smtp_refused")', WAIT);
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect(browser.problems).toEqual([]);
  });
});
