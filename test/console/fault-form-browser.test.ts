// The fault form, sent with a bad value, says what was wrong and keeps what was typed in every
// field, so that only the bad value needs changing. Skipped, saying why, where the browser is missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, launchChromium, SKIP_REASON, type Browser } from './chromium.js';
import { startConsoleBed, type ConsoleBed } from './helpers.js';

const WAIT = { timeout: 15_000 };

let c: ConsoleBed;
let browser: Browser;

describe.skipIf(!HAVE_CHROMIUM)(`the fault form in Chromium${SKIP_REASON}`, () => {
  beforeAll(async () => {
    c = await startConsoleBed({ testbed: { transport: 'http' } });
    browser = await launchChromium(new URL(c.bed.service.url).origin);
    const { page } = browser;
    await page.goto(`${c.bed.service.url}/console`);
    await page.fill('input[name=clientId]', 'qa-client');
    await page.fill('input[name=clientSecret]', 'qa-client-secret');
    await page.click('section.login button[type=submit]');
    await page.waitForURL('**/console/users', WAIT);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await c?.close();
  });

  it('keeps what was typed after a bad value', async () => {
    const { page } = browser;
    await page.goto(`${c.bed.service.url}/console/faults`);
    await page.selectOption('select[name=fault]', 'delay');
    await page.selectOption('select[name=direction]', 'to-service');
    await page.fill('input[name=type]', 'issue-credential/3.0/request-credential');
    await page.fill('input[name=times]', '');
    await page.fill('input[name=probability]', '7');
    await page.fill('input[name=delayMs]', '250');
    await page.click('#faults-on');
    await page.waitForSelector('p.error[role=alert]:has-text("[0, 1]")', WAIT);
    const kept = async () => ({
      fault: await page.inputValue('select[name=fault]'),
      direction: await page.inputValue('select[name=direction]'),
      type: await page.inputValue('input[name=type]'),
      times: await page.inputValue('input[name=times]'),
      probability: await page.inputValue('input[name=probability]'),
      delayMs: await page.inputValue('input[name=delayMs]'),
    });
    const typed = { fault: 'delay', direction: 'to-service', type: 'issue-credential/3.0/request-credential', times: '', probability: '7', delayMs: '250' };
    expect(await kept()).toEqual(typed);
    // A refresh of the live part keeps them too.
    await page.waitForSelector('body.live-on', WAIT);
    // The form as loaded is marked; the refresh brings one without the mark.
    await page.evaluate("document.querySelector('form.fault-form').setAttribute('data-before', '')");
    await c.bed.service.client.putUser('ada', { settings: { isSyncOn: false } });
    await page.waitForSelector('form.fault-form:not([data-before])', WAIT);
    expect(await kept()).toEqual(typed);
    expect(c.faults.current).toBeUndefined();
    expect(browser.problems).toEqual([]);
  });
});
