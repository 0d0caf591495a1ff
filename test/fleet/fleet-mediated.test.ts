// `idsync fleet --mediated` as a library: a small fleet of wallets behind idsync's mediator,
// in this thread and in worker threads, completes the sync scenario; the wallets' DIDs name the
// mediator, so every message of the twin to them went through it.
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program.js';
import { startMediator } from '../../src/mediator/server.js';
import { openStore } from '../../src/store/store.js';
import { existsSync } from 'node:fs';
import { runFleet, type Scenario } from '../../src/fleet/index.js';
import { fleetMediator } from '../../src/fleet/mediator.js';
import { fleetTable, reportDocument, reportHtml } from '../../src/fleet/report.js';
import { startWalletPool } from '../../src/fleet/wallet-pool.js';
import { syncScenario } from '../../src/fleet/scenarios.js';
import { runCliProcess } from '../cli/run-cli.js';

const MESSAGES_RECEIVED = 'https://didcomm.org/messagepickup/3.0/messages-received';

describe('runFleet mediated', () => {
  it('runs the sync scenario with every wallet behind one mediator (this thread)', async () => {
    const endpoints: Array<string | undefined> = [];
    const unconfirmed: number[] = [];
    const scenario: Scenario = {
      ...syncScenario,
      async run(ctx) {
        endpoints.push(ctx.wallet.identity.endpoint);
        expect(ctx.wallet.collecting).toBe('live');
        await syncScenario.run(ctx);
        // Every message of the flow was pushed and handled, none confirmed yet: a fleet wallet
        // confirms them together when it closes, one messages-received for all (a flow slower
        // than FLEET_ACK_DELAY_MS confirms once on the way; one by one it would be 3 here).
        unconfirmed.push((await ctx.wallet.messages({ type: MESSAGES_RECEIVED })).length);
      },
    };
    const r = await runFleet({ scenario, model: { kind: 'closed', wallets: 4, concurrency: 2 }, workers: 1, mediated: true });
    expect(r.summary).toMatchObject({ completed: 4, failed: 0, errors: {} });
    expect(endpoints).toHaveLength(4);
    expect(new Set(endpoints).size).toBe(1);
    expect(endpoints[0]).toMatch(/^did:peer:2\./);
    expect(unconfirmed).toHaveLength(4);
    expect(Math.max(...unconfirmed)).toBeLessThanOrEqual(1);
    // The report says the wallets were mediated, and where the mediator's figures are.
    expect(r.target.mediator).toEqual({ url: expect.stringMatching(/\/invitation\?_oob=/), startedForRun: true });
    const said = "embedded twin; wallets behind idsync's mediator, started for the run in the coordinating thread";
    expect(fleetTable(r).split('\n')[0]).toContain(said);
    expect(reportHtml(reportDocument(r))).toContain(said);
  }, 60_000);

  it('leaves nothing queued at the mediator: each wallet confirms, before it closes, the delivery that brought its credential', async () => {
    // The flow ends when the credential is stored, inside the delivery that brought it; the
    // wallet is closed then. A running mediator (its invitation URL), so its queues can be read.
    const store = await openStore();
    const m = await startMediator({ store });
    try {
      const dids: string[] = [];
      const scenario: Scenario = {
        ...syncScenario,
        async run(ctx) {
          dids.push(ctx.wallet.did);
          await syncScenario.run(ctx);
        },
      };
      const r = await runFleet({ scenario, model: { kind: 'closed', wallets: 4, concurrency: 2 }, workers: 1, mediated: m.invitationUrl });
      expect(r.summary).toMatchObject({ completed: 4, failed: 0 });
      expect(dids).toHaveLength(4);
      for (const did of dids) expect(await m.agent.mediator.queue.count(did)).toBe(0);
      expect(r.target.mediator).toEqual({ url: m.invitationUrl, startedForRun: false });
      expect(fleetTable(r).split('\n')[0]).toContain(`; wallets behind the mediator ${m.invitationUrl}`);
    } finally {
      await m.close();
      await store.close();
    }
  }, 60_000);

  it('starts its mediator on a temporary LevelDB when the twin goes to disk, and removes it at the end', async () => {
    const onDisk = (await fleetMediator(true, 'disk'))!;
    expect(onDisk.store?.kind).toBe('disk');
    const dir = onDisk.store!.dir!;
    expect(existsSync(dir)).toBe(true);
    await onDisk.close();
    expect(existsSync(dir)).toBe(false);
    const inMemory = (await fleetMediator(true))!;
    expect(inMemory.store).toEqual({ kind: 'memory' });
    await inMemory.close();
    // A whole mediated run with both on disk.
    const r = await runFleet({ scenario: { builtin: 'sync' }, model: { kind: 'closed', wallets: 3, concurrency: 3 }, workers: 1, mediated: true, serviceStore: 'disk' });
    expect(r.summary).toMatchObject({ completed: 3, failed: 0 });
  }, 60_000);

  it('makes an idle wallet registered with the mediator but not live; its flow\'s wallet goes live', async () => {
    const store = await openStore();
    const m = await startMediator({ store });
    const pool = await startWalletPool({ mediator: m.invitationUrl });
    try {
      const types: string[] = [];
      m.agent.events.on('inbound', (e: { type?: string }) => void types.push(String(e.type).replace(/^https:\/\/didcomm\.org\//, '')));
      await pool.prepare(0);
      // Mediation and the key's registration; no socket and no live-delivery-change for a
      // wallet that will only be kept as a page.
      expect(types).toEqual(['coordinate-mediation/2.0/mediate-request', 'coordinate-mediation/2.0/keylist-update']);
      const w = await pool.wallet(0);
      expect(w.collecting).toBe('live');
      expect(types.slice(2)).toEqual(['messagepickup/3.0/live-delivery-change']);
    } finally {
      await pool.close();
      await m.close();
      await store.close();
    }
  }, 60_000);

  it('runs in worker threads too, over the link and over HTTP', async () => {
    for (const embeddedTransport of ['link', 'http'] as const) {
      const r = await runFleet({ scenario: { builtin: 'sync' }, model: { kind: 'closed', wallets: 4, concurrency: 4 }, workers: 2, mediated: true, embeddedTransport });
      expect(r.summary, embeddedTransport).toMatchObject({ completed: 4, failed: 0 });
      expect(r.target.mediator, embeddedTransport).toMatchObject({ startedForRun: true });
      // Every flow went through it: its deliveries were confirmed (nothing left failed or resent).
      expect(r.summary.errors, embeddedTransport).toEqual({});
    }
  }, 90_000);

  it('idsync fleet --scenario sync --mediated prints the --json document', async () => {
    let stdout = '';
    let stderr = '';
    const code = await run(['fleet', '--scenario', 'sync', '--mediated', '--wallets', '2', '--workers', '1', '--json', '--no-progress'], {
      stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), readStdin: async () => '',
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(JSON.parse(lines[lines.length - 1]!)).toMatchObject({ scenario: 'sync', completed: 2, failed: 0 });
  }, 60_000);

  it('refuses a --mediated value that names no mediator before anything starts (exit 2)', async () => {
    for (const value of ['nope', 'ftp://example.org/x', 'did:']) {
      let stderr = '';
      const code = await run(['fleet', '--scenario', 'sync', '--mediated', value, '--wallets', '2', '--no-progress'], {
        stdout: () => undefined, stderr: (t) => void (stderr += t), readStdin: async () => '',
      });
      expect(code, value).toBe(2);
      expect(stderr, value).toMatch(/^idsync: invalid_argument: --mediated takes a running mediator's DID or its invitation URL/);
    }
    // As a library: a URL that is no invitation is refused before a thread starts.
    await expect(runFleet({ scenario: { builtin: 'sync' }, model: { kind: 'closed', wallets: 2, concurrency: 2 }, workers: 2, mediated: 'https://example.org/no-invitation' })).rejects.toMatchObject({ code: 'invalid_invitation' });
  });

  it('ends, with one line and a non-zero exit, when the wallets\' thread fails: a DID with no DIDComm endpoint as the mediator', async () => {
    // Either wallets' thread may fail first. The one that does reports its failure and still
    // holds its link's ports: unless the run stops it, the process never exits.
    const r = await runCliProcess(['fleet', '--scenario', 'sync', '--mediated', 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', '--wallets', '2', '--workers', '2', '--no-progress']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^idsync: fleet_worker_failed: worker [01]: mediation_failed: /);
  }, 30_000);
});
