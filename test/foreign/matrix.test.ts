// `idsync conformance matrix` over the three foreign agents (Veramo 7, Identus 7, didcomm-node):
// one page, cases × agents and rules × agents, whose every rule id links to its spec section on
// the web (or, for idsync's own profile, to its row on the page) and never to a local file. A few
// cases keep it quick; the verdict tests judge every case of each agent.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../cli/run-cli.js';
import { startDidcommNodeAgent } from './didcomm-node-agent.js';
import { startIdentusAgent } from './identus-agent.js';
import { startVeramoAgent, type ForeignAgent } from './veramo-agent.js';
import { idsync } from './verdicts.js';

const CASES = ['envelope/authcrypt', 'envelope/signed-flattened', 'envelope/anoncrypt', 'trust-ping/response', 'transport/junk'];

let agents: ForeignAgent[] = [];
let dir: Awaited<ReturnType<typeof tempDir>>;
let result: Awaited<ReturnType<typeof idsync>>;

beforeAll(async () => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  agents = [await startVeramoAgent(), await startIdentusAgent(), await startDidcommNodeAgent()];
  dir = await tempDir();
  result = await idsync(['conformance', 'matrix', ...agents.flatMap((a) => ['--target', a.did]), ...CASES.flatMap((c) => ['--case', c]), '--report', dir.path, '--json']);
});
afterAll(async () => {
  for (const a of agents) await a.close();
  await dir?.remove();
});

type Matrix = { targets: Array<{ exitCode: number }>; cases: Array<{ id: string; results: string[] }>; rules: Array<{ rule: string; results: Array<{ state: string }> }> };

describe('conformance matrix over Veramo, Identus and didcomm-node', () => {
  it('lays the verdicts side by side; every agent fails (exit 1)', () => {
    expect(result.code).toBe(1);
    const m = JSON.parse(result.out) as Matrix;
    expect(m.targets.map((t) => t.exitCode)).toEqual([1, 1, 1]);
    expect(Object.fromEntries(m.cases.map((c) => [c.id, c.results]))).toEqual({
      // Veramo refuses authcrypt; no MUST obliges a recipient to process it (advice).
      'envelope/authcrypt': ['passed', 'passed', 'passed'],
      'envelope/signed-flattened': ['failed', 'failed', 'failed'],
      'envelope/anoncrypt': ['failed', 'passed', 'passed'],
      'trust-ping/response': ['blocked', 'passed', 'passed'],
      'transport/junk': ['passed', 'passed', 'passed'],
      'run/sent-messages': ['passed', 'passed', 'passed'],
    });
    const rule = (id: string) => m.rules.find((r) => r.rule === id)!.results.map((r) => r.state);
    expect(rule('envelope.signed-supported')).toEqual(['broken', 'broken', 'broken']);
    expect(rule('envelope.authcrypt-supported')).toEqual(['broken', 'held', 'held']);
    expect(rule('envelope.authcrypt-kdf')).toEqual(['broken', 'held', 'held']);
    expect(rule('envelope.jwe-apv')).toEqual(['broken', 'held', 'held']);
  });

  it('the page and each agent\'s report link rules to the spec on the web or to their row, never to a local file', async () => {
    const pages = [join(dir.path, 'matrix.html'), ...agents.map((_, i) => join(dir.path, `target-${i + 1}`, 'report.html'))];
    for (const page of pages) {
      const html = await readFile(page, 'utf8');
      const ruleLinks = [...html.matchAll(/<a class="rule" href="([^"]*)"[^>]*><code>([^<]+)<\/code><\/a>/g)];
      expect(ruleLinks.length).toBeGreaterThan(0);
      for (const [, href, id] of ruleLinks) expect(href, `${page}: ${id}`).toMatch(/^(https:\/\/|#)/);
      expect(html).toContain('<a class="rule" href="https://identity.foundation/didcomm-messaging/spec/v2.1/');
      for (const [, href] of html.matchAll(/href="([^"]*)"/g)) expect(href).toMatch(/^(https?:\/\/|#|target-\d+\/report\.html$)/);
      // No path of this machine either (idsync's own profile names its doc in the package, as text).
      expect(html).not.toMatch(/file:\/\/|\/work\/|\/tmp\//);
    }
  });
});
