// A run stopped by its AbortSignal ends after the case under way: the cases not yet run are left
// out of the report, and a signal aborted before the start runs none of the agent's cases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { runConformance } from '../../src/harness/run.js';
import { startWrongAgent, type WrongAgent } from './wrong-agent.js';

let agent: WrongAgent;
beforeAll(async () => {
  agent = await startWrongAgent([]);
}, 30_000);
afterAll(async () => agent?.close());

describe('a cancelled conformance run', () => {
  it('stops between cases: the case under way ends, the rest are left out', async () => {
    const ctl = new AbortController();
    const seen: string[] = [];
    const report = await runConformance({
      target: agent.did,
      resolve: documentResolver(createResolver({})),
      suites: ['trust-ping', 'discover-features'],
      timeoutMs: 2000,
      signal: ctl.signal,
      onCase: (c) => {
        seen.push(c.id);
        if (seen.length === 2) ctl.abort();
      },
    });
    // Two cases of the agent, then the run-level case that judges what came.
    expect(report.cases.map((c) => c.id)).toEqual([...seen.slice(0, 2), 'run/sent-messages']);
    expect(report.cases.slice(0, 2).every((c) => c.status === 'passed')).toBe(true);
  }, 30_000);

  it('runs none of the cases when aborted before it starts', async () => {
    const report = await runConformance({ target: agent.did, resolve: documentResolver(createResolver({})), suites: ['trust-ping'], signal: AbortSignal.abort() });
    expect(report.cases.map((c) => c.id)).toEqual(['run/sent-messages']);
    expect(report.cases[0]!.status).toBe('skipped');
  }, 30_000);
});
