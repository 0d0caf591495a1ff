// Debian's Chromium driven by playwright-core, for the consoles' browser tests: one headless
// browser with a throw-away profile, watching that nothing is refused by the CSP, throws, or is
// fetched from any origin but the console's own.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
/** Added to a describe's name where the browser is missing: why its tests are skipped. */
export const SKIP_REASON = HAVE_CHROMIUM ? '' : ` (skipped: no ${CHROMIUM}; apt-get install chromium)`;

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** What went wrong in the page: console errors (a 401 aside), page errors, requests elsewhere. */
  problems: string[];
  close(): Promise<void>;
}

export async function launchChromium(origin: string): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'idsync-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 401/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  context.on('request', (r) => {
    if (new URL(r.url()).origin !== origin) problems.push(`request elsewhere: ${r.url()}`);
  });
  return {
    context,
    page,
    problems,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Signs in on the twin's console at `serviceUrl` + `path` as the console bed's admin client
 * (helpers.ts startConsoleBed: qa-client), and waits for the page the sign-in leads back to.
 */
export async function signInAsQa(page: Page, serviceUrl: string, path = '/console', timeoutMs = 15_000): Promise<void> {
  await page.goto(`${serviceUrl}${path}`);
  await page.fill('input[name=clientId]', 'qa-client');
  await page.fill('input[name=clientSecret]', 'qa-client-secret');
  await Promise.all([page.waitForURL(path === '/console' ? '**/console/users' : `**${path}`, { timeout: timeoutMs }), page.click('section.login button[type=submit]')]);
}
