// The rule catalogue is complete, quoted and documented: every rule id the code checks or records is
// in it (found two ways: the rule-id literals in src/, and the ids rules actually return on a
// spread of good and broken messages); every row quotes its spec verbatim (checked against the
// copies in fixtures/spec/ and docs/), names the RFC 2119 keyword of that quote and has the
// severity the keyword gives; docs/rules.md is what `npm run docs:rules` writes.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RULES, ruleLink, ruleOf, rulesDocument } from '../../src/conformance/catalogue.js';
import { headingAnchor } from '../../src/conformance/rule-sources.js';
import { headingsOf, keywordsIn, missingParts, normaliseSpecText } from './catalogue-quotes.js';
import { checkEnvelope, senderRules } from '../../src/conformance/envelope.js';
import { checkInvitationUrl } from '../../src/conformance/oob-url.js';
import { createRuleRegistry } from '../../src/conformance/registry.js';
import { protocolRules } from '../../src/conformance/protocol-rules.js';
import type { ConformanceResult } from '../../src/conformance/types.js';
import { run } from '../../src/cli/program.js';
import type { PlainMessage } from '../../src/didcomm/types.js';
import { idsyncProtocolRules, addIdsyncRules } from '../../src/protocols/idsync-rules.js';
import { RULES_DOC, renderRulesDoc } from '../../scripts/docs-rules.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PREFIXES = ['envelope', 'plaintext', 'oob', 'from_prior', 'trust-ping', 'discover-features', 'report-problem', 'out-of-band', 'issue-credential', 'present-proof', 'data-pipe', 'messagepickup', 'coordinate-mediation', 'routing', 'transport', 'credential', 'conformance'];
const RULE_LITERAL = new RegExp(`['\`](?:${PREFIXES.join('|')})\\.[A-Za-z0-9_.-]+['\`]`, 'g');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Rule-id literals in code (comments dropped), by file. */
function literalRuleIds(): Array<{ file: string; id: string }> {
  const out: Array<{ file: string; id: string }> = [];
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    if (/\/rows-[a-z]+\.ts$/.test(file)) continue; // the catalogue itself
    if (file.endsWith('/testing/crash-matrix.ts')) continue; // crash points name messages (data-pipe.request), not rules
    const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').replace(/\s\/\/ .*$/gm, '');
    for (const m of code.matchAll(RULE_LITERAL)) {
      const id = m[0].slice(1, -1);
      if (/\.(ts|js|md)$/.test(id)) continue; // file names, not rules
      out.push({ file: relative(ROOT, file), id });
    }
  }
  return out;
}

function json(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Record<string, unknown>;
}

/** Good messages (the spec and WACI vectors) and broken variants of each, for every type with rules. */
function messages(): PlainMessage[] {
  const dir = (d: string) => readdirSync(join(ROOT, d)).filter((f) => f.endsWith('.json')).map((f) => json(`${d}/${f}`));
  const vectors = [...dir('fixtures/waci-didcomm/issuance'), ...dir('fixtures/waci-didcomm/presentation'), json('fixtures/didcomm-v2-spec/plaintext.json')];
  const types = [...Object.keys(protocolRules), ...Object.keys(idsyncProtocolRules())];
  const garbage = { response_requested: 'x', queries: [{}], disclosures: [1], code: 'E!', comment: 1, args: [1], escalate_to: 'no uri', goal_code: 1, goal: 1, accept: 'x', replacement_id: 1, credential_preview: { x: 1 }, will_confirm: 'x', consent: {}, label: 1, did: 1, short_did: 1, established_at: 'x', reason: 1, recipient_did: 1, message_count: -1, longest_waited_seconds: -1, newest_received_time: -1, oldest_received_time: -1, total_bytes: -1, live_delivery: 'x', limit: 0, message_id_list: 'x', status: 'x' };
  const synthetic = types.flatMap((type) => [
    { id: 'm-1', type, body: {} },
    { id: 'bad id with spaces', type, from: 'did:example:a#frag', to: ['nope'], thid: '', pthid: '', created_time: 1.5, expires_time: 1e12, body: garbage, attachments: [{ '@id': 'x', data: { id: 'y', links: ['l'] } }], ack: 'x', return_route: 'x', from_prior: 'x', typ: 'x' },
    { id: 'm-2', type, thid: 't', created_time: 10, expires_time: 5, body: garbage, attachments: 'x' },
  ]);
  // Each vector with its attachment's format moved into data (the WACI present-proof vector's form).
  const moved = vectors.map((v) => ({
    ...v,
    attachments: Array.isArray(v.attachments) ? v.attachments.map((a: Record<string, unknown>) => ({ ...a, format: undefined, data: { ...(a.data as object), format: a.format } })) : undefined,
  }));
  return [...vectors, ...moved, ...synthetic, { id: 'x', type: 42 }, { id: 'x', type: 'not a uri' }, { id: 'x', type: 'https://example.com/p/x' }] as unknown as PlainMessage[];
}

function exercisedRuleIds(): Set<string> {
  const registry = addIdsyncRules(createRuleRegistry());
  const results: ConformanceResult[] = [];
  for (const m of messages()) {
    results.push(...registry.check(m));
    results.push(...senderRules(m, { metadata: { mode: 'authcrypt', encrypted: true, authenticated: false, nonRepudiation: false, anonymousSender: false, reWrappedInForward: false, encryptedFromKid: 'did:example:x#1', signFrom: 'did:example:y#1', encryptedToKids: ['did:example:z#1'] } }));
  }
  results.push(...registry.check('not an object'));
  for (const f of readdirSync(join(ROOT, 'fixtures/didcomm-v2-spec')).filter((f) => /^(anon|auth|signed)/.test(f))) {
    const text = readFileSync(join(ROOT, 'fixtures/didcomm-v2-spec', f), 'utf8');
    results.push(...checkEnvelope(text));
    const value = JSON.parse(text) as Record<string, unknown>;
    // Broken variants: no recipients, no protected header, a flattened form, unknown alg.
    results.push(...checkEnvelope(JSON.stringify({ ...value, recipients: [], protected: 'e30', signatures: [{ protected: 'e30' }] })));
    results.push(...checkEnvelope(JSON.stringify({ ...value, protected: 'not json' })));
  }
  results.push(...checkEnvelope('not json'), ...checkEnvelope('{}'), ...checkEnvelope('{"id":"x","type":"y","typ":"z"}'));
  for (const url of ['nope', 'http://x.example/?a=1', 'https://x.example/?_oob=***', 'https://x.example/?_oob=e30&_oobid=1', 'https://x.example/?_oobid=%20', 'https://x.example/?_oob=bm90IGpzb24']) results.push(...checkInvitationUrl(url));
  return new Set(results.map((r) => r.rule));
}

describe('the rule catalogue', () => {
  it('has unique ids, each with a layer, a source (spec, version, section, link) and one sentence', () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of RULES) {
      expect(r.id).toMatch(/^[a-z_-]+\.[A-Za-z0-9_.-]+$/);
      expect(['error', 'warning', 'advice']).toContain(r.severity);
      expect(r.spec.length * r.version.length * r.section.length, r.id).toBeGreaterThan(0);
      expect(r.url, r.id).toMatch(/^(https:\/\/|docs\/[a-z-]+\.md#)/);
      expect(r.text, r.id).toMatch(/^[A-Z_a-z0-9"'].*\.$/);
    }
  });

  it('quotes a sentence for every rule, and each quote from a kept spec is in that spec, verbatim', () => {
    const texts = new Map<string, string>();
    const missing: string[] = [];
    for (const r of RULES) {
      expect(r.quote.trim().length, `${r.id} has no quote`).toBeGreaterThan(10);
      if (!r.file) continue;
      if (!texts.has(r.file)) texts.set(r.file, readFileSync(join(ROOT, r.file), 'utf8'));
      const parts = missingParts(r.quote, texts.get(r.file)!);
      if (parts.length) missing.push(`${r.id}: not in ${r.file}: ${parts.join(' | ')}`);
    }
    expect(missing, 'quotes not found verbatim in the spec they name').toEqual([]);
    // Every spec kept under fixtures/spec/ is quoted from (none copied for nothing), and most rows check against one.
    expect(RULES.filter((r) => r.file).length).toBeGreaterThan(RULES.length * 0.85);
  });

  it('names each section as a heading of the text it quotes, and links to it', () => {
    const wrong: string[] = [];
    for (const r of RULES.filter((x) => x.file)) {
      const text = readFileSync(join(ROOT, r.file!), 'utf8');
      if (!headingsOf(text, r.file!.endsWith('.md')).includes(normaliseSpecText(r.section))) wrong.push(`${r.id}: no heading "${r.section}" in ${r.file}`);
      if (r.file!.endsWith('.md')) expect(r.url, r.id).toMatch(new RegExp(`#${headingAnchor(r.section).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    }
    expect(wrong).toEqual([]);
  });

  it("names the RFC 2119 keyword as it appears in the quote, and a quote without one has no keyword", () => {
    const wrong: string[] = [];
    for (const r of RULES) {
      const found = keywordsIn(r.quote);
      if (r.keyword === null ? found.length > 0 : !found.includes(r.keyword)) wrong.push(`${r.id}: keyword ${String(r.keyword)}, quote has ${found.join(', ') || 'none'}`);
    }
    expect(wrong).toEqual([]);
  });

  it('has the severity its keyword gives: MUST/REQUIRED/SHALL error, SHOULD/RECOMMENDED warning, else advice', () => {
    const expected = (k: string | null) =>
      k !== null && ['MUST', 'MUST NOT', 'REQUIRED', 'SHALL', 'SHALL NOT'].includes(k) ? 'error'
      : k !== null && ['SHOULD', 'SHOULD NOT', 'RECOMMENDED', 'NOT RECOMMENDED'].includes(k) ? 'warning'
      : 'advice';
    expect(RULES.filter((r) => r.severity !== expected(r.keyword)).map((r) => `${r.id}: ${r.keyword} → ${r.severity}`)).toEqual([]);
    // Results take the row's severity, whatever the code that produced them: one source of truth.
    expect(checkEnvelope('{"hello":"world"}')[0]).toMatchObject({ rule: 'envelope.shape', severity: ruleOf('envelope.shape')!.severity });
  });

  it('fixes the rows v2.1 changed or never made MUSTs', () => {
    const of = (id: string) => ruleOf(id)!;
    expect(of('plaintext.id-unique')).toMatchObject({ severity: 'error', keyword: 'MUST' });
    expect(of('plaintext.id-unique').quote).toContain('unique to the sender, across all messages they send');
    expect(of('plaintext.body').quote).toContain('If present, it MUST be a JSON object');
    expect(of('trust-ping.no-response')).toMatchObject({ severity: 'advice', keyword: null });
    expect(of('envelope.reply-in-kind')).toMatchObject({ severity: 'advice', keyword: null, spec: 'idsync profile of DIDComm Messaging' });
    expect(of('envelope.anoncrypt-no-apv')).toMatchObject({ severity: 'error', keyword: 'MUST' });
    expect(of('envelope.anoncrypt-no-apv').quote).toContain('JWE messages MUST use common `epk`, `apv` and `alg` headers for all recipient keys');
    expect(of('plaintext.created_time').severity).toBe('advice');
  });

  it('holds every rule id written in src/ (a new rule needs its catalogue row)', () => {
    const missing = literalRuleIds().filter(({ id }) => !ruleOf(id));
    expect(missing, 'add these to src/conformance/catalogue-entries.ts').toEqual([]);
  });

  it('holds every rule id the rules return on good and broken messages (ids built at run time too)', () => {
    const seen = exercisedRuleIds();
    expect(seen.size).toBeGreaterThan(100);
    expect([...seen].filter((id) => !ruleOf(id)), 'add these to src/conformance/catalogue-entries.ts').toEqual([]);
  });

  it('has no row that nothing checks: each id is written in src/ or returned by a rule', () => {
    const used = new Set([...literalRuleIds().map((u) => u.id), ...exercisedRuleIds()]);
    expect(RULES.map((r) => r.id).filter((id) => !used.has(id)), 'a catalogue row for a rule no code checks').toEqual([]);
  });

  it('docs/rules.md is what `npm run docs:rules` writes', () => {
    expect(readFileSync(RULES_DOC, 'utf8') === renderRulesDoc(), 'docs/rules.md is out of date: run `npm run docs:rules`').toBe(true);
    expect(renderRulesDoc().match(/^\| <a id="rule-/gm)).toHaveLength(RULES.length);
  });

  it('`idsync rules --json` prints {"rules": [{id, layer, severity, keyword, quote, spec, version, section, url, text}]}', async () => {
    let out = '';
    const code = await run(['rules', '--json'], { stdout: (t) => void (out += t), stderr: () => {}, readStdin: async () => '' });
    expect(code).toBe(0);
    const doc = JSON.parse(out) as { rules: Array<Record<string, unknown>> };
    expect(doc.rules).toHaveLength(RULES.length);
    for (const r of doc.rules) expect(Object.keys(r).filter((k) => k !== 'refuses' && k !== 'tolerated')).toEqual(['id', 'layer', 'severity', 'keyword', 'quote', 'spec', 'version', 'section', 'url', 'text']);
    expect(doc.rules.find((r) => r.id === 'trust-ping.response-thid')).toMatchObject({ layer: 'protocol', severity: 'error', keyword: 'MUST', spec: 'DIDComm Messaging', version: 'v2.1', section: 'Threads' });
    // A MUST idsync's agents take a message breaking all the same says so, and keeps its severity.
    expect(doc.rules.find((r) => r.id === 'present-proof.ack.status-present')).toMatchObject({ severity: 'error', keyword: 'MUST', tolerated: true });
  });

  it('`idsync rules` lists every rule for people', async () => {
    let out = '';
    expect(await run(['rules'], { stdout: (t) => void (out += t), stderr: () => {}, readStdin: async () => '' })).toBe(0);
    for (const r of RULES) expect(out).toContain(r.id);
  });
});

describe('rule links', () => {
  it('are public links, or name a doc shipped with idsync and a heading it has; never a path of this machine', () => {
    for (const r of rulesDocument().rules) {
      if (r.url.startsWith('https://')) continue;
      const [file, anchor] = r.url.split('#') as [string, string];
      const text = readFileSync(join(ROOT, file), 'utf8');
      expect(headingsOf(text, true).map(headingAnchor), r.id).toContain(anchor);
    }
    expect(rulesDocument().rules.some((r) => r.url.startsWith('docs/protocols.md#'))).toBe(true);
    expect(ruleLink('https://example.org/x#y')).toBe('https://example.org/x#y');
  });
});
