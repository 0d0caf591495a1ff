// The testbed's trace(): every message of a flow in one sequence diagram (an HTML file and Mermaid
// text); and a wait that times out writes such a file of what did happen and names it.
import { readFile, rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectUser, startTestbed, waitForCredential, type Testbed } from '../../src/testing/index.js';

let bed: Testbed;
const files: string[] = [];
beforeAll(async () => {
  bed = await startTestbed();
  await connectUser(bed, 'tracy', bed.wallets[0]!);
}, 30_000);
afterAll(async () => {
  await bed?.close();
  for (const f of files) await rm(f, { force: true });
});

describe('testbed trace', () => {
  it('draws the Data Pipe flow between the service and the wallet, each message once', async () => {
    const t = await bed.trace();
    files.push(t.file);
    expect(t.mermaid.split('\n').slice(0, 3)).toEqual(['sequenceDiagram', '  participant P0 as service', '  participant P1 as wallet-1']);
    // The invitation the wallet read from a URL is drawn from its log; the request/established exchange once each.
    expect(t.mermaid).toContain('P1->>P0: data-pipe/1.0/request (authcrypt)');
    expect(t.mermaid).toContain('P0->>P1: data-pipe/1.0/established (authcrypt)');
    expect(t.mermaid.match(/data-pipe\/1\.0\/request/g)).toHaveLength(1);
    const html = await readFile(t.file, 'utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html.match(/<g class="arrow/g)).toHaveLength(t.messages);
  });

  it('a wait that times out names an HTML trace of what did happen', async () => {
    type WaitError = { code: string; message: string; details: { traces?: string[] } };
    const err = (await waitForCredential(bed.wallets[0]!, () => true, { timeoutMs: 100 }).then(
      () => ({ code: 'resolved', message: '', details: {} }),
      (e: unknown) => e,
    )) as WaitError;
    expect(err.code).toBe('wait_timeout');
    const traces = err.details.traces ?? [];
    files.push(...traces);
    expect(traces).toHaveLength(1);
    expect(err.message).toContain(`what did happen: ${traces[0]}`);
    expect(await readFile(traces[0]!, 'utf8')).toContain('data-pipe/1.0/established');
  });
});
