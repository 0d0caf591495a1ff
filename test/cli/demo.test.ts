// `idsync demo`: the service twin and a wallet in one process through the sync flow and an
// e-mailed issuance. The steps run in-process here; the CLI contract (--json) is checked in
// test/e2e/cli-flow.test.ts, which runs the command as users do.
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../src/cli/commands/demo.js';
import { createOutput } from '../../src/cli/output.js';

function capture(json: boolean) {
  let stdout = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: () => {}, readStdin: async () => '' };
  return { out: createOutput(io, json), text: () => stdout };
}

describe('idsync demo', () => {
  it('prints each step, numbered, and both credentials verified', async () => {
    const c = capture(false);
    const result = await runDemo(c.out);
    for (const step of [1, 2, 3, 4, 5, 6]) expect(c.text()).toMatch(new RegExp(`^${step}\\. `, 'm'));
    expect(c.text()).toMatch(/Done: both credentials verified by the wallet \(true\)/);
    expect(result.sync).toMatchObject({ userId: 'demo-user', isLinked: true, verified: true });
    expect(result.sync.userDID).toMatch(/^did:ion:/);
    expect(result.issuance).toMatchObject({ status: 'COMPLETED', verified: true });
    expect(result.issuance.credentialId).not.toBe(result.sync.credentialId);
  });

  it('with --mediated runs both flows with the wallet behind the mediator: every message to it forwarded, nothing left waiting', async () => {
    const c = capture(false);
    const result = await runDemo(c.out, { mediated: true });
    expect(c.text()).toMatch(/^ {3}wallet {2}did:ion:\S+ \(did:ion long form\), behind the mediator: coordinate-mediation 2\.0, .*collecting live$/m);
    expect(result.sync).toMatchObject({ isLinked: true, verified: true });
    expect(result.issuance).toMatchObject({ status: 'COMPLETED', verified: true });
    // established, request-presentation, ack, offer and issue of the sync; offer and issue of the issuance.
    // (More only if the twin had to send one again on a slow machine.)
    expect(result.mediator).toEqual({ did: expect.stringMatching(/^did:peer:2\./), forwards: expect.any(Number), waiting: 0 });
    expect(result.mediator!.forwards).toBeGreaterThanOrEqual(7);
    expect(c.text()).toMatch(/the twin's \d+ messages to the wallet went through the mediator as forwards, each delivered live and confirmed; 0 wait there/);
  });

  it('prints only the result with --json, and no private keys', async () => {
    const c = capture(true);
    await runDemo(c.out);
    const lines = c.text().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ sync: { verified: true }, issuance: { verified: true, status: 'COMPLETED' } });
    expect(c.text()).not.toMatch(/"d":/);
  });
});
