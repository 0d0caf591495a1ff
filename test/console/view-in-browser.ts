// The live message view open in Chromium (playwright-core, /usr/bin/chromium), measured from
// inside the page: when each row arrived in the list (a MutationObserver; wall-clock ms, the clock
// the twin's log is timed with on the same machine), and the longest the page's main thread was
// busy (how late a 50 ms timer ran). The fleet check test and `npm run bench:console` use it.
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export interface ViewInBrowser {
  arrivals(): Promise<Map<string, number>>;
  /** Resolves once every one of `seqs` has arrived in the page's list, or after `guardMs` (then arrivals() says which did not). */
  caughtUp(seqs: Iterable<string>, guardMs: number): Promise<void>;
  busiestMs(): Promise<number>;
  rows(): Promise<number>;
  close(): Promise<void>;
}

export async function openMessageView(url: string, cookie: string): Promise<ViewInBrowser> {
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const eq = cookie.indexOf('=');
  await context.addCookies([{ name: cookie.slice(0, eq), value: cookie.slice(eq + 1), url }]);
  const page = await context.newPage();
  await page.goto(`${url}/console/messages`);
  await page.waitForSelector('body.live-on', { timeout: 30_000 });
  // Text, not a function: it runs in the page, whose DOM types the tests do not load.
  await page.evaluate(`(() => {
    window.arrivals = {};
    window.busiest = 0;
    let last = performance.now();
    setInterval(() => {
      const now = performance.now();
      window.busiest = Math.max(window.busiest, now - last - 50);
      last = now;
    }, 50);
    new MutationObserver((changes) => {
      const now = Date.now();
      for (const c of changes) for (const n of c.addedNodes) if (n.id && n.id.startsWith('m-') && !(n.id.slice(2) in window.arrivals)) window.arrivals[n.id.slice(2)] = now;
    }).observe(document.getElementById('message-rows'), { childList: true });
  })()`);
  return {
    arrivals: async () => new Map(Object.entries((await page.evaluate('window.arrivals')) as Record<string, number>)),
    caughtUp: async (seqs, guardMs) => {
      // The page reads its own stream: it may take the last rows a moment after the test's stream did.
      await page
        .waitForFunction((want: string[]) => want.every((s) => s in (globalThis as unknown as { arrivals: Record<string, number> }).arrivals), [...seqs], { timeout: guardMs, polling: 100 })
        .catch(() => undefined);
    },
    busiestMs: async () => Math.round((await page.evaluate('window.busiest')) as number),
    rows: () => page.locator('#message-rows .msg').count(),
    close: () => browser.close(),
  };
}
