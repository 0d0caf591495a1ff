// `idsync wallet accept` when the service that made the invitation is down: the wallet cannot
// fetch the inviter's did:web document, and says so as transport_unreachable with the address
// (as `wallet serve` does when it cannot deliver), not as an unknown DID.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { startServiceTwin } from '../../src/testing/index.js';
import { ERROR_LINE, runCli, tempDir } from './run-cli.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let url: string;
let serviceUrl: string;

beforeAll(async () => {
  dir = await tempDir();
  const store = await openStore();
  const twin = await startServiceTwin({ store, transport: 'http' });
  serviceUrl = twin.url;
  await twin.client.putUser('ada', { settings: { isSyncOn: true } });
  url = (await twin.client.invite('ada')).invitationUrl!;
  // The service goes away; its invitation URL stays in the user's hands.
  await twin.close();
  await store.close();
  expect((await runCli(['wallet', 'create', '--data', dir.file('w')])).code).toBe(0);
});
afterAll(() => dir.remove());

describe('idsync wallet accept with the service down', () => {
  it('says transport_unreachable with the address it could not reach', async () => {
    const run = await runCli(['wallet', 'accept', url, '--data', dir.file('w')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toContain(`idsync: transport_unreachable: cannot reach ${serviceUrl}/.well-known/did.json (ECONNREFUSED)`);
  });

  it('names the endpoint and reason in --verbose details', async () => {
    const run = await runCli(['wallet', 'accept', url, '--data', dir.file('w'), '--verbose']);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')[0]).toMatch(/^idsync: transport_unreachable: /);
    expect(run.stderr).toContain(`"endpoint":"${serviceUrl}/.well-known/did.json"`);
    expect(run.stderr).toContain('"reason":"ECONNREFUSED"');
  });
});
