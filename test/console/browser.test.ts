// The console in a real browser (playwright-core driving Debian's /usr/bin/chromium): sign in;
// push datapoints and watch the sync arrive live; open the caught e-mail, accept it, and see the
// credential issued and the workflow completed; open one message and its rule verdicts; turn a
// fault on and see a message dropped and sent again; start a conformance run against the wallet,
// watch it end, and open its report, where a click on an arrow opens its message (CSS alone,
// under the console's CSP). Each step leaves a screenshot in
// test-results/console-browser/ (git-ignored). Skipped, saying why, where the browser is missing.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectUser, waitForWorkflowStatus } from '../../src/testing/index.js';
import { HAVE_CHROMIUM, launchChromium, SKIP_REASON, type Browser } from './chromium.js';
import { startConsoleBed, type ConsoleBed } from './helpers.js';

const SHOTS = fileURLToPath(new URL('../../test-results/console-browser/', import.meta.url));
// Each browser wait has this guard; a step that needs it has failed.
const WAIT = { timeout: 15_000 };

let c: ConsoleBed;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[] = [];

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

describe.skipIf(!HAVE_CHROMIUM)(`the console in Chromium${SKIP_REASON}`, () => {
  beforeAll(async () => {
    await rm(SHOTS, { recursive: true, force: true });
    await mkdir(SHOTS, { recursive: true });
    // Short retries: a message dropped after the wallet's endpoint took it is sent again within a second.
    c = await startConsoleBed({ testbed: { transport: 'http', retry: { baseDelayMs: 200, maxDelayMs: 400, acceptedDelayMs: 400 } } });
    // Nothing may be refused by the CSP, throw, or be fetched from anywhere but the twin.
    browser = await launchChromium(new URL(c.bed.service.url).origin);
    ({ context, page, problems } = browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(c.bed.service.url).origin });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await c?.close();
  });

  it('opens the console: the login page, then the users view once signed in', async () => {
    await page.goto(`${c.bed.service.url}/console`);
    await expect(page.locator('section.login h1').textContent()).resolves.toContain('Sign in');
    await shot('01-login');
    await page.fill('input[name=clientId]', 'qa-client');
    await page.fill('input[name=clientSecret]', 'qa-client-secret');
    await page.click('section.login button[type=submit]');
    await page.waitForURL('**/console/users', WAIT);
    await page.waitForSelector('body.live-on', WAIT);
    await shot('02-users');
    expect(problems).toEqual([]);
  });

  it('watches the sync happen live after datapoints are pushed', async () => {
    await page.goto(`${c.bed.service.url}/console/messages`);
    await page.waitForSelector('body.live-on', WAIT);
    // The page is never reloaded: what appears comes over its event stream.
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
    const [wallet] = c.bed.wallets;
    await connectUser(c.bed, 'ada', wallet!);
    await c.bed.service.client.putDatapoints('ada', { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' });
    await page.waitForSelector('#message-rows .msg[data-type$="issue-credential/3.0/ack"] .state-ok', WAIT);
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
    const types = await page.locator('#message-rows .msg').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-type')?.split('/').slice(-3).join('/')));
    expect(types).toEqual(expect.arrayContaining(['data-pipe/1.0/request', 'present-proof/3.0/presentation', 'issue-credential/3.0/offer-credential', 'issue-credential/3.0/ack']));
    await shot('03-messages-live');

    // The user's page follows the next sync as it happens.
    await page.goto(`${c.bed.service.url}/console/users/ada`);
    await page.waitForSelector('body.live-on', WAIT);
    await c.bed.service.client.putDatapoints('ada', { nationality: 'GB' });
    await page.waitForSelector('tr.dp-synced:has(code:text-is("nationality"))', WAIT);
    expect(await page.locator('article.flow').count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator('ol.timeline').first().textContent()).toContain('DATA_PIPE_ESTABLISHED');
    await shot('04-user-timeline');
    expect(problems).toEqual([]);
  });

  it('opens the caught e-mail, accepts it, and sees the credential issued and the workflow completed', async () => {
    await page.goto(`${c.bed.service.url}/console/outbox`);
    await page.waitForSelector('body.live-on', WAIT);
    const wf = await c.bed.service.client.createWorkflow({ datapoints: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09', emailAddress: 'grace@example.com' } });
    await c.bed.service.client.sendInvitation(wf.id, [{ channel: 'EMAIL', target: 'grace@example.com' }]);
    // The e-mail appears in the open outbox without a reload.
    await page.click('a:text("grace@example.com")', WAIT);
    await page.waitForSelector('.qr svg', WAIT);
    expect(await page.locator('.mail-body a.invitation-link').getAttribute('href')).toMatch(/\/connect\?_oob=/);
    await shot('05-email');
    const before = (await c.bed.wallets[0]!.credentials()).length;
    await page.click('#accept');
    await page.waitForURL(`**/console/workflows/${wf.id}`, WAIT);
    await page.waitForSelector('#workflow .state-ok:text("COMPLETED")', WAIT);
    await page.waitForSelector('ol.timeline li:has-text("CREDENTIAL_ISSUANCE_COMPLETED")', WAIT);
    expect(await page.locator('#workflow table.facts').textContent()).toMatch(/credential\s*urn:uuid:/);
    await shot('06-workflow-completed');
    expect((await waitForWorkflowStatus(c.bed.service.client, wf.id, 'COMPLETED')).status).toBe('COMPLETED');
    expect((await c.bed.wallets[0]!.credentials()).length).toBe(before + 1);
    expect(problems).toEqual([]);
  });

  it('opens one message and its rule verdicts, and copies it for idsync message check', async () => {
    await page.goto(`${c.bed.service.url}/console/messages?type=offer-credential`);
    await page.locator('#message-rows .msg a.c-type').first().click();
    await page.waitForSelector('table.rules', WAIT);
    const rules = await page.locator('table.rules tbody tr').count();
    expect(rules).toBeGreaterThan(3);
    expect(await page.locator('table.rules .verdict-pass').count()).toBe(rules);
    expect(await page.locator('table.rules').textContent()).toContain('DIDComm Messaging v2.1');
    expect(await page.locator('#plaintext').textContent()).toContain('"type": "https://didcomm.org/issue-credential/3.0/offer-credential"');
    await page.click('button[data-copy="check-plaintext"]');
    await page.waitForSelector('button.copied', WAIT);
    expect(await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())).toMatch(/^idsync message check - <<'MESSAGE'\n\{/);
    await shot('07-message-verdicts');
    expect(problems).toEqual([]);
  });

  it('turns a fault on and sees a message dropped and sent again', async () => {
    await page.goto(`${c.bed.service.url}/console/faults`);
    await page.selectOption('select[name=fault]', 'drop');
    await page.selectOption('select[name=direction]', 'to-wallet');
    await page.fill('input[name=type]', 'issue-credential/3.0/offer-credential');
    await page.fill('input[name=times]', '1');
    await page.click('#faults-on');
    await page.waitForSelector('#fault-state:text("on")', WAIT);
    await shot('08-fault-on');

    await page.goto(`${c.bed.service.url}/console/messages?type=offer-credential`);
    await page.waitForSelector('body.live-on', WAIT);
    const offers = await page.locator('#message-rows .msg').count();
    await c.bed.service.client.putDatapoints('ada', { residentialAddressCountry: 'GB' });
    await page.waitForSelector('#message-rows .msg .fault-drop', WAIT);
    await page.waitForSelector('#message-rows .msg .again', WAIT);
    expect(await page.locator('#message-rows .msg').count()).toBeGreaterThanOrEqual(offers + 2);
    await shot('09-dropped-and-resent');
    expect(c.faults.applied.filter((f) => f.fault === 'drop')).toHaveLength(1);

    await page.goto(`${c.bed.service.url}/console/faults`);
    await page.click('#faults-off');
    await page.waitForSelector('#fault-state:text("off")', WAIT);
    expect(c.faults.current).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it('starts a conformance run against the wallet, watches it end, and opens its report', async () => {
    await page.goto(`${c.bed.service.url}/console/conformance`);
    await page.waitForSelector('body.live-on', WAIT);
    await shot('10-conformance');
    await page.click('button[data-quick="wallet"]');
    await page.waitForURL('**/console/conformance/runs/*', WAIT);
    // The page is not reloaded: the cases and the end arrive through its stream.
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
    await page.waitForSelector('#run-state[data-state="finished"]', { timeout: 60_000 });
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
    const cases = await page.locator('table.cases tbody tr').count();
    expect(cases).toBeGreaterThan(3);
    expect(await page.locator('table.cases .status-passed').count()).toBe(cases);
    expect(await page.locator('#run-state').textContent()).toContain('passed');
    await shot('11-run-finished');

    await page.click('#open-report');
    await page.waitForSelector('h1:text("idsync conformance report")', WAIT);
    // The report's styles came as a file: panels are hidden until an arrow is clicked.
    const arrow = page.locator('#c0 a[href^="#m-0-"]').first();
    const panelId = (await arrow.getAttribute('href'))!.slice(1);
    const panel = page.locator(`[id="${panelId}"]`);
    expect(await panel.isVisible()).toBe(false);
    await arrow.locator('g.arrow').click();
    await expect.poll(() => panel.isVisible(), WAIT).toBe(true);
    expect(await panel.innerText()).toContain('Plaintext');
    await shot('12-report-message');
    await page.click('p.back a');
    await page.waitForSelector('#run-state', WAIT);
    expect(problems).toEqual([]);
  }, 90_000);
});
