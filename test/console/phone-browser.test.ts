// The three consoles in Chromium on a phone (375 px), a tablet held upright or half a laptop
// screen (700 px), a small laptop window (900 px) and the narrowest desktop (1024 px), over data as
// long as it gets: a user id that is an e-mail address, did:peer DIDs, a mediator's DID as an
// endpoint, a conformance finding quoting a DID. At every width every page fits the window
// (fits.ts): no sideways scroll of the page, every table inside the window, scrolling its columns
// if they are wider. One testbed and one browser serve every width. Screenshots go to
// test-results/phone-browser/ (git-ignored), named by console, width and page. Skipped, saying
// why, where the browser is missing.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMediatorConsole, startWalletConsole, type MediatorConsole, type WalletConsole } from '../../src/console/index.js';
import { threadOf, type LoggedMessage } from '../../src/store/messages.js';
import { connectUser, nextOutboxEntry, syncDatapoints } from '../../src/testing/index.js';
import { HAVE_CHROMIUM, launchChromium, signInAsQa, SKIP_REASON, type Browser } from './chromium.js';
import { fit } from './fits.js';
import { ADA, logged, startConsoleBed, type ConsoleBed } from './helpers.js';

const SHOTS = fileURLToPath(new URL('../../test-results/phone-browser/', import.meta.url));
/** A phone (narrow.css), two windows narrower than a desktop's (console.css's rules up to 1023 px), and the narrowest desktop. */
const WIDTHS = [375, 700, 900, 1024] as const;
const HEIGHT = 800;
const WAIT = { timeout: 15_000 };
const USER = 'ada.augusta.king-noel.countess-of-lovelace@analytical-engine.example.org';
const EMAIL = 'grace.brewster.murray.hopper+invitations@harvard-computation-laboratory.example.edu';

let c: ConsoleBed;
let wallet: WalletConsole;
let mediator: MediatorConsole;
let browser: Browser;
const paths: Record<'service' | 'wallet' | 'mediator', string[]> = { service: [], wallet: [], mediator: [] };

const messageAndThread = (m: LoggedMessage) => [`/console/messages/${m.seq}`, `/console/threads/${encodeURIComponent(threadOf(m))}`];

async function signInWithCode(origin: string, code: string): Promise<void> {
  const { page } = browser;
  await page.goto(`${origin}/console`);
  await page.fill('input[name=clientSecret]', code);
  await Promise.all([page.waitForURL('**/console/overview', WAIT), page.click('section.login button[type=submit]')]);
}

/** Opens each path at `origin` at each width, screenshots it, and says how each fits. */
async function fits(origin: string, name: string, list: string[]) {
  const { page } = browser;
  const out = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHT });
    for (const [i, path] of list.entries()) {
      await page.goto(`${origin}${path}`);
      await page.waitForSelector('main h1', WAIT);
      await page.screenshot({ path: join(SHOTS, `${name}-${width}-${String(i + 1).padStart(2, '0')}.png`), fullPage: true });
      out.push({ width, path, ...(await fit(page)) });
    }
  }
  return out;
}

/** What went wrong in the pages (chromium.ts), requests to the wallet's and the mediator's consoles aside: the browser was launched for the twin's. */
const problems = () => browser.problems.filter((p) => ![wallet.url, mediator.url].some((u) => p.startsWith(`request elsewhere: ${new URL(u).origin}/`)));

const fitting = (list: string[]) => WIDTHS.flatMap((width) => list.map((path) => ({ width, path, misfits: [], page: width, window: width })));

describe.skipIf(!HAVE_CHROMIUM)(`the consoles from a 375 px phone to a 1024 px window in Chromium${SKIP_REASON}`, () => {
  beforeAll(async () => {
    await rm(SHOTS, { recursive: true, force: true });
    await mkdir(SHOTS, { recursive: true });
    c = await startConsoleBed({ testbed: { transport: 'http', walletMode: 'mediated' } });
    const bed = c.bed;
    const w = bed.wallets[0]!;
    await connectUser(bed, USER, w);
    await syncDatapoints(bed, USER, w, { ...ADA, emailAddress: 'ada@analytical-engine.example.org' });
    const wf = await bed.service.client.createWorkflow({ userId: USER, datapoints: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09', emailAddress: EMAIL } });
    await bed.service.client.sendInvitation(wf.id, [{ channel: 'EMAIL', target: EMAIL }]);
    const mail = await nextOutboxEntry(bed.service, { workflowId: wf.id });
    // An invitation sent as a DIDComm message waits in the wallet for its user's approval.
    const invited = await bed.service.client.createWorkflow({ datapoints: { firstName: 'Alan', lastName: 'Turing', birthDate: '1912-06-23' } });
    const waiting = w.waitForPending({ kind: 'invitation' });
    await bed.service.client.sendInvitation(invited.id, [{ channel: 'DIDCOMM', target: w.did }]);
    await waiting;
    // A conformance run against the twin: a finding quotes the harness's did:peer:2.
    const started = await c.call('POST', '/console/conformance/runs', { headers: { 'content-type': 'application/json', accept: 'application/json' }, payload: JSON.stringify({ quick: 'service', suites: ['envelope'] }) });
    const run = (started.json() as { run: { id: string } }).run;
    const quoting = await logged(bed.service.deps.store, (m) => m.conformance?.some((r) => r.detail?.includes('did:peer:2.')) === true);
    const synced = await logged(bed.service.deps.store, (m) => m.type.endsWith('issue-credential/3.0/ack'));
    paths.service = [
      '/console/users',
      `/console/users/${encodeURIComponent(USER)}`,
      '/console/workflows',
      `/console/workflows/${wf.id}`,
      '/console/messages',
      '/console/threads',
      ...messageAndThread(synced),
      ...messageAndThread(quoting),
      '/console/outbox',
      `/console/outbox/${mail.id}`,
      '/console/webhooks',
      '/console/faults',
      '/console/conformance',
      `/console/conformance/runs/${run.id}`,
    ];

    wallet = await startWalletConsole(w, { port: 0 });
    const walletMessage = (await w.messages()).find((m) => m.type.endsWith('issue-credential/3.0/offer-credential'))!;
    paths.wallet = ['/console/overview', '/console/messages', '/console/threads', ...messageAndThread(walletMessage), '/console/conformance'];

    mediator = await startMediatorConsole(bed.mediator!.agent, { store: bed.mediator!.store, port: 0 });
    const delivery = await logged(bed.mediator!.store, (m) => m.endpoint?.startsWith('did:peer:2.') === true);
    paths.mediator = ['/console/overview', '/console/messages', '/console/threads', ...messageAndThread(delivery)];

    browser = await launchChromium(new URL(c.bed.service.url).origin);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await mediator?.close();
    await wallet?.close();
    await c?.close();
  });

  it("fits the twin's sign-in page and console pages in the window", async () => {
    for (const width of WIDTHS) {
      await browser.page.setViewportSize({ width, height: HEIGHT });
      await browser.page.goto(`${c.bed.service.url}/console/login`);
      await browser.page.waitForSelector('section.login', WAIT);
      expect(await fit(browser.page)).toEqual({ page: width, window: width, misfits: [] });
    }
    await signInAsQa(browser.page, c.bed.service.url);
    expect(await fits(c.bed.service.url, 'service', paths.service)).toEqual(fitting(paths.service));
    expect(problems()).toEqual([]);
  }, 120_000);

  it("fits the wallet's console pages in the window", async () => {
    const origin = new URL(wallet.url).origin;
    await signInWithCode(origin, wallet.accessCode);
    expect(await fits(origin, 'wallet', paths.wallet)).toEqual(fitting(paths.wallet));
    expect(problems()).toEqual([]);
  }, 60_000);

  it("fits the mediator's console pages in the window", async () => {
    const origin = new URL(mediator.url).origin;
    await signInWithCode(origin, mediator.accessCode);
    expect(await fits(origin, 'mediator', paths.mediator)).toEqual(fitting(paths.mediator));
    expect(problems()).toEqual([]);
  }, 60_000);
});
