// A wallet's console on its own port: the access code signs in (a wrong one does not), a script
// sends it as a bearer; the flows view shows the Data Pipe, the threads and the credential; the
// message view has the wallet's messages with their packed form.
import { afterEach, describe, expect, it } from 'vitest';
import { startWalletConsole, type WalletConsole } from '../../src/console/index.js';
import { connectUser, startTestbed, syncDatapoints, type Testbed } from '../../src/testing/index.js';
import { ADA } from './helpers.js';

let bed: Testbed | undefined;
let web: WalletConsole | undefined;
afterEach(async () => {
  await web?.close();
  await bed?.close();
  web = undefined;
  bed = undefined;
});

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers: { accept: 'text/html', ...headers }, redirect: 'manual' });

describe('wallet console', () => {
  it('shows a wallet behind a mediator: the mediator, the grant, and how it collects', async () => {
    bed = await startTestbed({ transport: 'http', walletMode: 'mediated' });
    const wallet = bed.wallets[0]!;
    web = await startWalletConsole(wallet, { port: 0 });
    const auth = { authorization: `Bearer ${web.accessCode}` };
    const overview = await (await get(`${web.url}/overview?fragment=1`, auth)).text();
    expect(overview).toContain('<th>mediator</th>');
    expect(overview).toContain(bed.mediator!.did.slice(0, 40));
    // Its endpoint is the mediator's DID (hundreds of characters): cut to fit, whole in the title.
    expect(overview).toMatch(/<th>endpoint<\/th><td><code class="did" title="did:peer:2\.[^"]+">did:peer:2\.[^<]{1,40}<\/code><\/td>/);
    expect(overview).toMatch(/coordinate-mediation 2\.0, <span class="state state-ok">registered<\/span>, its DID as the endpoint; collecting <span class="state state-ok">live<\/span>/);
    // A direct wallet has no such row.
    const direct = await startTestbed({ transport: 'http' });
    const plain = await startWalletConsole(direct.wallets[0]!, { port: 0 });
    try {
      expect(await (await get(`${plain.url}/overview?fragment=1`, { authorization: `Bearer ${plain.accessCode}` })).text()).not.toContain('<th>mediator</th>');
    } finally {
      await plain.close();
      await direct.close();
    }
  });

  it('signs in with the access code only, and shows the flows, messages and threads of the wallet', async () => {
    bed = await startTestbed({ transport: 'http' });
    const wallet = bed.wallets[0]!;
    web = await startWalletConsole(wallet, { port: 0 });
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console$/);
    expect(web.accessCode).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const locked = await get(`${web.url}/overview`);
    expect(locked.status).toBe(401);
    expect(await locked.text()).toContain('Access code');
    const login = (code: string) =>
      fetch(`${web!.url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ clientSecret: code }), redirect: 'manual' });
    const refused = await login('wrong');
    expect(refused.status).toBe(401);
    // The page says what was wrong: there is no client here, only the code.
    const said = await refused.text();
    expect(said).toContain('Wrong access code.');
    expect(said).not.toContain('Unknown client');
    const ok = await login(web.accessCode);
    expect(ok.status).toBe(303);
    const cookie = ok.headers.get('set-cookie')!.split(';')[0]!;

    await connectUser(bed, 'ada', wallet);
    await syncDatapoints(bed, 'ada', wallet, ADA);
    const overview = await (await get(`${web.url}/overview`, { cookie })).text();
    expect(overview).toContain('Data Pipes');
    expect(overview).toContain('established');
    expect(overview).toContain('https://didcomm.org/issue-credential/3.0');
    const [credential] = await wallet.credentials();
    expect(overview).toContain(credential!.id);

    const messages = await (await get(`${web.url}/messages`, { cookie })).text();
    const seqs = [...messages.matchAll(/href="\/console\/messages\/([0-9-]+)"/g)].map((m) => m[1]!);
    expect(seqs.length).toBe((await wallet.messages()).length);
    const detail = await (await get(`${web.url}/messages/${seqs[0]}`, { cookie })).text();
    expect(detail).toContain('&quot;ciphertext&quot;');
    const threads = await (await get(`${web.url}/threads`, { cookie })).text();
    expect(threads).toMatch(/<svg[^>]*class="sequence"/);
    expect(threads).toContain('>wallet<');

    // Scripts: the access code as a bearer token.
    expect((await get(`${web.url}/overview?fragment=1`, { authorization: `Bearer ${web.accessCode}` })).status).toBe(200);
    expect((await get(`${web.url}/overview?fragment=1`, { authorization: 'Bearer nope' })).status).toBe(401);
  });

  it('runs conformance against the wallet itself and serves the report under the console', async () => {
    bed = await startTestbed({ transport: 'http' });
    const wallet = bed.wallets[0]!;
    web = await startWalletConsole(wallet, { port: 0 });
    const auth = { authorization: `Bearer ${web.accessCode}` };
    const page = await (await get(`${web.url}/conformance`, auth)).text();
    expect(page).toContain('Run against this wallet');
    const started = await fetch(`${web.url}/conformance/runs`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ quick: 'wallet', suites: ['trust-ping'] }) });
    expect(started.status).toBe(202);
    const { run } = (await started.json()) as { run: { id: string } };
    // Each `changed` on the run's stream: read the record again, until it has ended.
    const ctl = new AbortController();
    const stream = await fetch(`${web.url}/stream/conformance?run=${run.id}`, { headers: { ...auth, accept: 'text/event-stream' }, signal: ctl.signal });
    const reader = stream.body!.getReader();
    let state = '';
    try {
      for (;;) {
        state = ((await (await fetch(`${web.url}/conformance/runs/${run.id}`, { headers: { ...auth, accept: 'application/json' } })).json()) as { run: { state: string } }).run.state;
        if (state !== 'queued' && state !== 'running') break;
        if ((await reader.read()).done) break;
      }
    } finally {
      ctl.abort();
    }
    expect(state).toBe('finished');
    const report = await get(`${web.url}/conformance/runs/${run.id}/report`, auth);
    expect(report.status).toBe(200);
    const text = await report.text();
    expect(text).toContain(wallet.did.slice(0, 60));
    expect(text).toContain('<link rel="stylesheet"');
  }, 60_000);
});
