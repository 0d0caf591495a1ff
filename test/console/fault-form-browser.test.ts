// The fault form, sent with a bad value, says what was wrong and keeps what was typed in every
// field, so that only the bad value needs changing; and what is being typed in it survives the
// live refreshes of the page that other activity on the twin brings. Skipped, saying why, where
// the browser is missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, launchChromium, signInAsQa, SKIP_REASON, type Browser } from './chromium.js';
import { startConsoleBed, type ConsoleBed } from './helpers.js';

const WAIT = { timeout: 15_000 };

let c: ConsoleBed;
let browser: Browser;

describe.skipIf(!HAVE_CHROMIUM)(`the fault form in Chromium${SKIP_REASON}`, () => {
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

  it('keeps what is being typed, and the focus and caret, while the rules in force refresh live', async () => {
    const { page } = browser;
    await page.goto(`${c.bed.service.url}/console/faults`);
    await page.waitForSelector('body.live-on', WAIT);
    await page.selectOption('select[name=fault]', 'duplicate');
    await page.selectOption('select[name=direction]', 'to-wallet');
    await page.fill('input[name=type]', 'issue-credential/3.0/offer-credential');
    await page.fill('input[name=times]', '3');
    await page.fill('input[name=probability]', '0.5');
    await page.click('input[name=delayMs]');
    await page.keyboard.type('250');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    const typed = { fault: 'duplicate', direction: 'to-wallet', type: 'issue-credential/3.0/offer-credential', times: '3', probability: '0.5', delayMs: '250' };
    const state = () =>
      page.evaluate(() => {
        const d = (globalThis as unknown as { document: { querySelector(s: string): { value: string } | null; activeElement: { getAttribute(n: string): string | null; selectionStart?: number | null } | null } }).document;
        const v = (name: string) => d.querySelector(`form.fault-form [name=${name}]`)!.value;
        return {
          values: { fault: v('fault'), direction: v('direction'), type: v('type'), times: v('times'), probability: v('probability'), delayMs: v('delayMs') },
          focused: d.activeElement?.getAttribute('name'),
          caret: d.activeElement?.selectionStart,
        };
      });
    expect(await state()).toEqual({ values: typed, focused: 'delayMs', caret: 1 });

    // Elsewhere, a plan goes on and a rule is added, each followed by a write the stream reports.
    await page.evaluate("document.getElementById('faults').setAttribute('data-before', '')");
    c.faults.set({ rules: [{ fault: 'drop', direction: 'to-service', type: 'issue-credential/3.0/ack', times: 1 }] });
    await c.bed.service.client.putUser('ada', { settings: { isSyncOn: true } });
    await page.waitForSelector('#faults:not([data-before]) #fault-state:text("on")', WAIT);
    await page.waitForSelector('#faults li:has-text("drop, messages of type issue-credential/3.0/ack, to-service, 1 time")', WAIT);
    expect(await state()).toEqual({ values: typed, focused: 'delayMs', caret: 1 });

    await page.evaluate("document.getElementById('faults').setAttribute('data-before', '')");
    c.faults.add({ fault: 'tamper', direction: 'to-wallet', times: 2 });
    await c.bed.service.client.putUser('ada', { settings: { isSyncOn: false } });
    await page.waitForSelector('#faults:not([data-before]) li:has-text("tamper, every message, to-wallet, 2 times")', WAIT);
    expect(await page.locator('#faults li').count()).toBe(2);
    expect(await state()).toEqual({ values: typed, focused: 'delayMs', caret: 1 });

    // Typing goes on where it was.
    await page.keyboard.type('0');
    expect(await page.inputValue('input[name=delayMs]')).toBe('2050');
    c.faults.off();
    expect(browser.problems).toEqual([]);
  });
});
