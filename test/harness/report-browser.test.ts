// The HTML report opens offline in a real browser and shows the diagrams: headless Chromium loads
// report.html with every host unresolvable and prints the DOM it built; then, driven through
// playwright-core, a click on an arrow opens that message (its plaintext, protected headers and
// HTTP answer) and highlights the rule rows it broke; on a phone (375 px) and in a tablet or half a
// laptop screen (700 px) it fits the window with a message open (test/console/fits.ts), screenshots
// in test-results/report-browser/ (git-ignored). Skipped, saying why, where /usr/bin/chromium is
// missing (.ci/run installs Debian's chromium when it runs as root).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium as playwright } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { writeReportFiles } from '../../src/harness/report-files.js';
import { runConformance } from '../../src/harness/run.js';
import type { ConformanceReport } from '../../src/harness/types.js';
import { fit } from '../console/fits.js';
import { startWrongAgent } from './wrong-agent.js';

/** What a person looks at in the report and may be wider than a phone: the boxes checked (a table's cells scroll with it). */
const REPORT_BOXES = 'h1, h2, p, ol, table, section.case, svg.sequence, .msg, pre';
const SHOTS = fileURLToPath(new URL('../../test-results/report-browser/', import.meta.url));

const CHROMIUM = '/usr/bin/chromium';
const HAVE = existsSync(CHROMIUM);
const SKIP = HAVE ? '' : ` (skipped: no ${CHROMIUM}; apt-get install chromium)`;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

function chromium(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM, [...ARGS, '--host-resolver-rules=MAP * ~NOTFOUND', ...args], { timeout: 30_000, maxBuffer: 8 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}

let dir: string;
let report: ConformanceReport;
beforeAll(async () => {
  if (!HAVE) return;
  dir = await mkdtemp(join(tmpdir(), 'idsync-report-'));
  // ping-thid: the ping-response is threaded wrongly; broken-reply: its body is "pong" (a broken MUST).
  const agent = await startWrongAgent(['ping-thid', 'broken-reply']);
  try {
    report = await runConformance({ target: agent.did, resolve: documentResolver(createResolver({})), suites: ['trust-ping', 'transport'], timeoutMs: 2000 });
    await writeReportFiles(report, dir);
  } finally {
    await agent.close();
  }
}, 30_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('report.html in headless Chromium', () => {
  it.skipIf(!HAVE)(`renders offline with a sequence diagram per case and failed rules linked to their spec sections${SKIP}`, async () => {
    const dom = await chromium(['--dump-dom', `file://${join(dir, 'report.html')}`]);
    // The browser parsed the cases that exchanged messages, each with its SVG diagram of arrows.
    expect(dom.match(/<svg[^>]*class="sequence"/g)).toHaveLength(4);
    expect(dom.match(/<g class="arrow bad[^"]*">/g)?.length).toBeGreaterThanOrEqual(1);
    expect(dom).toContain('<a class="rule" href="https://identity.foundation/didcomm-messaging/spec/v2.1/#threads"');
    expect(dom).toContain('<tr id="rule-trust-ping-response-thid">');
    expect(dom).not.toContain('file://');
  }, 60_000);

  it.skipIf(!HAVE)(`a click on an arrow shows the message and highlights the rules it broke${SKIP}`, async () => {
    const browser = await playwright.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      const page = await browser.newPage();
      // Offline: any request that leaves the file is a defect of the report.
      const requests: string[] = [];
      page.on('request', (r) => void (r.url().startsWith('file://') || requests.push(r.url())));
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
      await page.goto(`file://${join(dir, 'report.html')}`);
      const c = report.cases[0]!;
      expect(c).toMatchObject({ id: 'trust-ping/response', status: 'failed' });
      const response = c.messages.find((m) => m.direction === 'received')!;
      const panel = page.locator(`#m-0-${response.seq}`);
      await expect.poll(() => panel.isVisible()).toBe(false);
      await page.locator(`#c0 a[href="#m-0-${response.seq}"] g.arrow`).click();
      await expect.poll(() => panel.isVisible()).toBe(true);
      const text = await panel.innerText();
      expect(text).toContain('Plaintext');
      expect(text).toContain('"body": "pong"');
      expect(text).toContain('Protected headers');
      expect(text).toContain('"alg": "ECDH-1PU+A256KW"');
      expect(text).toContain('Rules broken: trust-ping.response-thid (error), plaintext.body (error)');
      // The rule rows of that message are highlighted with it.
      const row = page.locator(`#c0 table.broken tr.seq-${response.seq}`).first();
      // (Typed by hand: the test's own types have no DOM.)
      const style = (el: unknown) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor;
      expect(await row.evaluate(style)).toBe('rgb(255, 243, 176)');
      // The ping idsync sent shows the HTTP answer it got.
      await page.locator(`#c0 a[href="#m-0-${c.messages[0]!.seq}"] g.arrow`).click();
      const sent = await page.locator(`#m-0-${c.messages[0]!.seq}`).innerText();
      expect(sent).toContain('HTTP answer');
      expect(sent).toContain('HTTP 202 · a transport answer');
      expect(requests).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it.skipIf(!HAVE)(`fits a phone's window and a tablet's, a message open, without scrolling sideways${SKIP}`, async () => {
    await rm(SHOTS, { recursive: true, force: true });
    await mkdir(SHOTS, { recursive: true });
    const browser = await playwright.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      const c = report.cases[0]!;
      const received = c.messages.find((m) => m.direction === 'received')!;
      const fits = [];
      // As a phone lays it out: its browser reads the page's viewport (else it draws a 980 px desktop page, shrunk).
      for (const [width, isMobile] of [[375, true], [700, false]] as const) {
        const page = await browser.newPage({ viewport: { width, height: 800 }, isMobile });
        await page.goto(`file://${join(dir, 'report.html')}#m-0-${received.seq}`);
        await expect.poll(() => page.locator(`#m-0-${received.seq}`).isVisible()).toBe(true);
        await page.screenshot({ path: join(SHOTS, `report-${width}.png`), fullPage: true });
        fits.push({ width, ...(await fit(page, REPORT_BOXES)) });
        await page.close();
      }
      expect(fits).toEqual([
        { width: 375, page: 375, window: 375, misfits: [] },
        { width: 700, page: 700, window: 700, misfits: [] },
      ]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
