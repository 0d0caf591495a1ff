// Proof that the harness judges idsync's own agents fairly: the service twin's DIDComm agent and a
// holder wallet pass every case that applies to them, over real HTTP on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runConformance } from '../../src/harness/run.js';
import { startTestbed, type Testbed } from '../../src/testing/index.js';

let bed: Testbed;
beforeAll(async () => {
  bed = await startTestbed({ transport: 'http' });
}, 30_000);
afterAll(async () => bed?.close());

function verdicts(report: Awaited<ReturnType<typeof runConformance>>) {
  return report.cases.map((c) => `${c.id}: ${c.status}${c.detail ? ` (${c.detail})` : ''}${c.failedRules.length ? ` [${c.failedRules.join(', ')}]` : ''}`);
}

describe('conformance run against idsync itself', () => {
  it.each([
    ['the service agent', () => bed.service.did],
    ['a holder wallet', () => bed.wallets[0]!.did],
  ])('%s passes every case that applies to it, in well under 10 s', async (_name, target) => {
    const report = await runConformance({ target: target(), resolve: documentResolver(createResolver({})) });
    expect(verdicts(report).filter((v) => !v.endsWith(': passed'))).toEqual([]);
    expect(report.summary).toEqual({ passed: report.cases.length, failed: 0, expected: 0, blocked: 0, skipped: 0, inconclusive: 0 });
    expect(report.durationMs).toBeLessThan(10_000);
    // Every protocol it discloses that idsync speaks was tried, in a role it plays.
    expect(report.cases.find((c) => c.id === 'discover-features/disclosed-supported')!.notes?.[0]).toMatch(/^probed .*https:\/\/didcomm\.org\/trust-ping\/2\.0/);
    // Every case exchanged messages, and every message of the agent opened and broke nothing.
    for (const c of report.cases.filter((x) => x.id !== 'run/sent-messages')) {
      expect(c.messages.length).toBeGreaterThan(0);
      expect(c.messages.filter((m) => m.direction === 'received' && (m.mode === 'unreadable' || m.findings))).toEqual([]);
    }
  }, 30_000);
});

describe('conformance run over a WebSocket', () => {
  it('the service passes every case with messages sent on its WebSocket endpoint', async () => {
    const report = await runConformance({ target: bed.service.did, resolve: documentResolver(createResolver({})), transport: 'ws' });
    expect(verdicts(report).filter((v) => !v.endsWith(': passed'))).toEqual([]);
    // Nothing went by HTTP POST: every message the harness sent has no HTTP status.
    expect(report.cases.flatMap((c) => c.messages).filter((m) => m.direction === 'sent' && m.httpStatus !== undefined)).toEqual([]);
  }, 30_000);
});

describe('conformance run against an invitation URL of idsync', () => {
  it('the service as WACI streamlined-vc issuer: the harness as holder completes the issuance and the credential matches the preview', async () => {
    const wf = await bed.service.client.createWorkflow({ datapoints: { firstName: 'Alan', lastName: 'Turing', birthDate: '1912-06-23' } });
    const report = await runConformance({ target: wf.invitationUrl, resolve: documentResolver(createResolver({})) });
    expect(verdicts(report)).toEqual(['out-of-band/invitation: passed', 'waci/streamlined-vc: passed', `waci/streamlined-vp: skipped (the invitation's goal_code is streamlined-vc, not streamlined-vp)`, `data-pipe/establish: skipped (the invitation's goal_code is streamlined-vc, not idsync.data-pipe)`, 'run/sent-messages: passed']);
    const flow = report.cases[1]!.messages.map((m) => `${m.direction} ${m.type?.split('/').pop()}`);
    expect(flow).toEqual(['sent propose-credential', 'received offer-credential', 'sent request-credential', 'received issue-credential', 'sent ack']);
    expect((await bed.service.client.getWorkflow(wf.id)).status).toBe('COMPLETED');
  }, 30_000);
});

describe('conformance run against a user invitation of idsync', () => {
  it('the service as Data Pipe responder: the harness requests and the pipe is established', async () => {
    await bed.service.client.putUser('conformance-user', { settings: { isSyncOn: true } });
    const invitation = await bed.service.client.invite('conformance-user');
    const report = await runConformance({ target: invitation.invitationUrl!, resolve: documentResolver(createResolver({})) });
    expect(verdicts(report)).toEqual(['out-of-band/invitation: passed', `waci/streamlined-vc: skipped (the invitation's goal_code is idsync.data-pipe, not streamlined-vc)`, `waci/streamlined-vp: skipped (the invitation's goal_code is idsync.data-pipe, not streamlined-vp)`, 'data-pipe/establish: passed', 'run/sent-messages: passed']);
  }, 30_000);
});

describe('conformance run --role holder against idsync', () => {
  it('the wallet as holder accepts idsync\'s streamlined-vc invitation, requests with a signed application and acks the credential', async () => {
    const wallet = bed.wallets[0]!;
    const report = await runConformance({
      role: 'holder',
      resolve: documentResolver(createResolver({})),
      acceptTimeoutMs: 10_000,
      onInvitation: (url) => void wallet.acceptInvitation(url).catch(() => {}),
    });
    expect(verdicts(report)).toEqual(['holder/streamlined-vc: passed', 'run/sent-messages: passed']);
    expect(report.target).toBe(wallet.did);
    expect(report.cases[0]!.messages.map((m) => `${m.direction} ${m.type?.split('/').pop()}`)).toEqual([
      'received propose-credential', 'sent offer-credential', 'received request-credential', 'sent issue-credential', 'received ack',
    ]);
    expect((await wallet.credentials()).some((c) => c.claims.firstName === 'Ada')).toBe(true);
  }, 30_000);
});

describe('discover-features/disclosed-supported against idsync', () => {
  it('probes every protocol the service discloses that idsync speaks, the credential ones included', async () => {
    const report = await runConformance({ target: bed.service.did, resolve: documentResolver(createResolver({})), cases: ['discover-features/disclosed-supported'] });
    const c = report.cases[0]!;
    expect(c.status).toBe('passed');
    const probed = /^probed (.*)$/.exec(c.notes![0]!)![1]!.split(', ').sort();
    expect(probed).toEqual(['https://didcomm.org/discover-features/2.0', 'https://didcomm.org/issue-credential/3.0', 'https://didcomm.org/messagepickup/3.0', 'https://didcomm.org/present-proof/3.0', 'https://didcomm.org/report-problem/2.0', 'https://didcomm.org/trust-ping/2.0']);
  }, 30_000);
});

describe('the harness as each DID method against idsync', () => {
  it.each(['did:peer:4', 'did:web'] as const)('the service answers a harness that is a %s', async (as) => {
    const report = await runConformance({ target: bed.service.did, resolve: documentResolver(createResolver({})), suites: ['trust-ping', 'discover-features'], as });
    expect(report.harnessDid.startsWith(as)).toBe(true);
    expect(verdicts(report).filter((v) => !v.endsWith(': passed'))).toEqual([]);
  }, 30_000);
});
