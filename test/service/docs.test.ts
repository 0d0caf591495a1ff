// docs/service.md says what the code does: its workflow transition table is the state machine of
// src/service/issuance/states.ts, its webhook table names every event the twin sends (and the
// others as never sent), and the retry figures are those of backoff.ts and the dispatcher.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canTransition, WORKFLOW_STATUSES } from '../../src/service/issuance/states.js';
import { DEFAULT_BACKOFF } from '../../src/service/webhooks/backoff.js';
import { WEBHOOK_EVENT_NAMES } from '../../src/service/webhooks/events.js';

const DOC = readFileSync(new URL('../../docs/service.md', import.meta.url), 'utf8');

/** The table rows (cells, trimmed) right after the `<!-- name: … -->` marker. */
function tableAfter(marker: string): string[][] {
  const at = DOC.indexOf(`<!-- ${marker}:`);
  expect(at, `marker ${marker}`).toBeGreaterThan(0);
  const lines = DOC.slice(at).split('\n').slice(1);
  const rows: string[][] = [];
  for (const line of lines.slice(2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

const names = (cell: string) => [...cell.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!);
const section = (title: string) => DOC.slice(DOC.indexOf(`## ${title}`), DOC.indexOf('\n## ', DOC.indexOf(`## ${title}`) + 3));

describe('docs/service.md', () => {
  it('lists exactly the workflow transitions states.ts allows', () => {
    const rows = tableAfter('transitions').filter(([from]) => from !== '(none)');
    const documented = rows.map(([from, to]) => `${names(from!)[0]} → ${names(to!)[0]}`);
    const allowed = WORKFLOW_STATUSES.flatMap((from) => WORKFLOW_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from} → ${to}`));
    expect([...documented].sort()).toEqual([...allowed].sort());
    expect(new Set(documented).size).toBe(documented.length);
  });

  it('names every webhook event: those the twin sends in the table, the rest as never sent', () => {
    const sent = tableAfter('events').flatMap(([, event]) => names(event!));
    const webhooks = section('Webhooks');
    const neverSent = webhooks.slice(webhooks.indexOf('never sends:'), webhooks.indexOf('**Signature**'));
    const listed = new Set([...sent, ...names(neverSent)]);
    for (const name of WEBHOOK_EVENT_NAMES) {
      const family = name.replace(/_(STARTED|COMPLETED|FAILED|PENDING)$/, '_*');
      expect(listed.has(name) || neverSent.includes(`\`${family}\``), name).toBe(true);
    }
    for (const name of sent) expect(WEBHOOK_EVENT_NAMES, name).toContain(name);
  });

  it('gives the retry schedule of backoff.ts', () => {
    const webhooks = section('Webhooks');
    expect(DEFAULT_BACKOFF).toEqual({ baseMs: 5_000, maxMs: 3_600_000, maxAttempts: 10 });
    expect(webhooks).toContain('min(5 s × 2^(n−1), 1 h)');
    expect(webhooks).toContain('After **10 attempts**');
  });

  it('is what the README says it covers', () => {
    expect(DOC).toMatch(/^## Issuance workflow states$/m);
    expect(DOC).toMatch(/^## Webhooks$/m);
  });
});
