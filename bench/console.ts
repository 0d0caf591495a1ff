// The console with a fleet running (src/console/fleet-check.ts): a twin serving its console, N
// wallets syncing against it (default 200, 50 at a time, in worker threads), the live message view
// followed on its event stream and, with --browser, in Chromium (playwright-core, /usr/bin/chromium),
// while the console's pages are loaded one after the other. Prints how far the view fell behind
// the message log (p50/p90/p99/max), how long pages took, and the fleet's own figures beside the
// target: the view at most a few seconds behind (p99 ≤ 3 s), pages p95 ≤ 2 s.
// Options: --wallets N (BENCH_WALLETS), --concurrency C (BENCH_CONCURRENCY), --workers W|auto,
// --browser, --json (the last line is one JSON document).
import { existsSync } from 'node:fs';
import { followMessageView, lagOf, startConsoleFleet, timePages, type LagFigures } from '../src/console/fleet-check.js';
import { CHROMIUM, openMessageView, type ViewInBrowser } from '../test/console/view-in-browser.js';

const argv = process.argv.slice(2);
const arg = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const wallets = Number(arg('wallets') ?? process.env.BENCH_WALLETS ?? 200);
const concurrency = Number(arg('concurrency') ?? process.env.BENCH_CONCURRENCY ?? 50);
const workersArg = arg('workers') ?? 'auto';
const workers = workersArg === 'auto' ? 'auto' : Number(workersArg);
const withBrowser = argv.includes('--browser');
const json = argv.includes('--json');
const TARGETS = { lagP99Ms: 3000, pageP95Ms: 2000 };

const say = (line: string) => process.stderr.write(`${line}\n`);

const cf = await startConsoleFleet();
const stream = followMessageView(cf.url, cf.cookie);
let browser: ViewInBrowser | undefined;
if (withBrowser) {
  if (!existsSync(CHROMIUM)) throw new Error(`--browser needs ${CHROMIUM}`);
  browser = await openMessageView(cf.url, cf.cookie);
}

const pauseMs = Number(arg('page-pause') ?? 500);
const pages = argv.includes('--no-pages') ? undefined : timePages(cf.url, cf.cookie, ['/console/messages', '/console/users', '/console/threads', '/console/workflows'], pauseMs);
say(`${wallets} wallets syncing, ${concurrency} at a time, workers ${workersArg}${withBrowser ? ', the message view open in Chromium' : ''}`);
const t0 = performance.now();
let last = 0;
const result = await cf.fleet({
  wallets,
  concurrency,
  workers,
  onProgress: (p) => {
    if (p.elapsedMs - last < 2000) return;
    last = p.elapsedMs;
    say(`  ${p.completed} done, ${p.failed} failed, ${(p.elapsedMs / 1000).toFixed(0)} s; ${cf.logged.size} messages logged, ${stream.arrivals.size} streamed`);
  },
});
const fleetSeconds = (performance.now() - t0) / 1000;
const loopDelay = cf.loopDelay();
const pageTimes = (await pages?.stop()) ?? { slowest: {}, requests: 0, failed: 0, p50Ms: 0, p95Ms: 0, maxMs: 0 };
await stream.caughtUp(cf.logged.keys(), 10_000);
const lag = lagOf(cf.logged, stream.arrivals);
let browserLag: LagFigures | undefined;
let frameGapMs: number | undefined;
if (browser) {
  // The list keeps its newest 500 rows; every row it was sent passed through it.
  await browser.caughtUp(cf.logged.keys(), 10_000);
  const seen = await browser.arrivals();
  say(`browser saw ${seen.size} rows; ${await browser.rows()} in the list`);
  browserLag = lagOf(cf.logged, seen);
  frameGapMs = await browser.busiestMs();
  await browser.close();
}
stream.close();
await cf.close();

const ok = (v: number, target: number) => (v <= target ? 'ok' : 'OVER');
say(`fleet: ${result.summary.completed} completed, ${result.summary.failed} failed in ${fleetSeconds.toFixed(1)} s (${result.summary.flowsPerSecond} flows/s)${result.summary.failed ? ` ${JSON.stringify(result.summary.errors)} ${JSON.stringify(result.errorSamples).slice(0, 400)}` : ''}`);
say(`the twin's event loop ran late by p50 ${loopDelay.p50Ms} ms, p99 ${loopDelay.p99Ms} ms, max ${loopDelay.maxMs} ms`);
say(`messages logged ${lag.logged}; on the view's stream ${lag.shown}; reconnects ${stream.reconnects}`);
say(`stream lag  p50 ${lag.p50Ms} ms, p90 ${lag.p90Ms} ms, p99 ${lag.p99Ms} ms (target ≤ ${TARGETS.lagP99Ms}: ${ok(lag.p99Ms, TARGETS.lagP99Ms)}), max ${lag.maxMs} ms`);
if (browserLag) say(`browser lag p50 ${browserLag.p50Ms} ms, p90 ${browserLag.p90Ms} ms, p99 ${browserLag.p99Ms} ms (target ≤ ${TARGETS.lagP99Ms}: ${ok(browserLag.p99Ms, TARGETS.lagP99Ms)}), max ${browserLag.maxMs} ms; rows ${browserLag.shown}; longest the page was busy ${frameGapMs} ms`);
say(`pages: ${pageTimes.requests} loads, ${pageTimes.failed} failed, p50 ${pageTimes.p50Ms} ms, p95 ${pageTimes.p95Ms} ms (target ≤ ${TARGETS.pageP95Ms}: ${ok(pageTimes.p95Ms, TARGETS.pageP95Ms)}), max ${pageTimes.maxMs} ms; slowest ${JSON.stringify(pageTimes.slowest)}`);
const doc = {
  wallets, concurrency, workers: result.summary.workers, completed: result.summary.completed, failed: result.summary.failed,
  fleetSeconds: Math.round(fleetSeconds * 10) / 10, flowsPerSecond: result.summary.flowsPerSecond,
  loopDelay, streamLag: lag, reconnects: stream.reconnects, ...(browserLag ? { browserLag, longestBusyMs: frameGapMs } : {}), pages: pageTimes, targets: TARGETS,
};
if (json) console.log(JSON.stringify(doc));
