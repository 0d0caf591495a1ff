// report.html names rules and never local files, labels every arrow (type, mode, HTTP status, id
// and thread), draws nothing red in a passing case, shows each message's contents behind its
// arrow, and lists the rules it names with their sources; no script, nothing fetched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResolver, documentResolver } from '../../src/did/resolver.js';
import { arrowOf, reportCss, reportHtml } from '../../src/harness/report-html.js';
import { runConformance } from '../../src/harness/run.js';
import type { ConformanceReport } from '../../src/harness/types.js';
import { startWrongAgent, type WrongAgent } from './wrong-agent.js';

let agent: WrongAgent;
let report: ConformanceReport;
let html: string;
beforeAll(async () => {
  agent = await startWrongAgent(['json-200']);
  report = await runConformance({ target: agent.did, resolve: documentResolver(createResolver({})), timeoutMs: 2000 });
  html = reportHtml(report);
}, 30_000);
afterAll(async () => agent?.close());

const sections = (text: string) => text.split('<section class="case"').slice(1);

describe('report.html', () => {
  it('a passing run draws no red arrow and no "(unreadable)" label; a JSON 200 shows as a transport answer', () => {
    expect(report.cases.every((c) => c.status === 'passed')).toBe(true);
    expect(html).not.toContain('class="arrow bad');
    expect(html).not.toContain('(unreadable)');
    expect(html).toContain('HTTP 200 · application/json · a transport answer');
  });

  it('every arrow carries its number and type, its mode and HTTP status, and its id and thread', () => {
    const ping = report.cases.find((c) => c.id === 'trust-ping/response')!;
    const [sent, answer] = ping.messages;
    const a = arrowOf(sent!);
    expect(a.label).toBe(`#${sent!.seq} trust-ping/2.0/ping`);
    expect(a.sublabel).toBe('authcrypt · HTTP 200');
    expect(a.detail).toBe(`id ${sent!.id!.slice(0, 8)}…`);
    const b = arrowOf(answer!);
    expect(b.sublabel).toBe('authcrypt · POST, HTTP 202 from idsync');
    expect(b.detail).toBe(`id ${answer!.id!.slice(0, 8)}… · thid ${sent!.id!.slice(0, 8)}…`);
    // Junk has no type: the arrow says what it was.
    expect(arrowOf(report.cases.find((c) => c.id === 'transport/junk')!.messages[0]!).label).toMatch(/^#\d+ not JSON$/);
  });

  it('behind each arrow: the plaintext, the protected headers and the HTTP answer', () => {
    const i = report.cases.findIndex((c) => c.id === 'trust-ping/response');
    const section = sections(html)[i]!;
    const seq = report.cases[i]!.messages[0]!.seq;
    expect(section).toContain(`<a href="#m-${i}-${seq}">`);
    const panel = section.slice(section.indexOf(`<div class="msg" id="m-${i}-${seq}">`));
    expect(panel).toMatch(/^<div class="msg" id="m-\d+-\d+"><h4>#\d+ sent by idsync: https:\/\/didcomm\.org\/trust-ping\/2\.0\/ping<\/h4>/);
    expect(panel).toContain('<h5>Plaintext</h5><pre>{\n  &quot;id&quot;');
    expect(panel).toContain('<h5>Protected headers (outer layer)</h5>');
    expect(panel).toContain('&quot;alg&quot;: &quot;ECDH-1PU+A256KW&quot;');
    expect(panel).toContain('<h5>HTTP answer</h5><p>HTTP 200 · application/json · a transport answer</p><pre>{&quot;ok&quot;:true}</pre>');
  });

  it('names rules, never local files: rule ids link to their spec section; the rules a case judges are listed even when none broke', () => {
    expect(html).not.toContain('file://');
    expect(html).not.toMatch(/<script|<link|<img|src="/);
    // Each with its keyword, the sentence it enforces, quoted, and a link to its spec section.
    expect(html).toContain('<tr id="rule-trust-ping-response-thid"><td><code>trust-ping.response-thid</code></td><td>error (MUST)</td><td>A ping-response carries thid = the id of the ping it answers.<blockquote>All subsequent messages in a thread MUST include a `thid` header');
    expect(html).toContain('<a href="https://identity.foundation/didcomm-messaging/spec/v2.1/#threads">DIDComm Messaging v2.1 §Threads</a>');
    // A rule of idsync's own protocol: its source is named, not linked to a path on this machine.
    const own = reportHtml({ ...report, cases: [{ ...report.cases[0]!, broken: [{ rule: 'data-pipe.established.thid', severity: 'error', detail: 'x' }] }] });
    expect(own).toContain('<a class="rule" href="#rule-data-pipe-established-thid"');
    expect(own).toMatch(/Data Pipe \(idsync\) 1\.0 §[^<]+ \(docs\/protocols\.md#[\w-]+ in the idsync package\)/);
  });

  it('beside each broken rule: its severity as a badge, its keyword and the sentence it enforces, quoted', () => {
    const broken = reportHtml({ ...report, cases: [{ ...report.cases[0]!, broken: [{ rule: 'trust-ping.response-thid', severity: 'error', detail: 'thid x' }] }] });
    expect(broken).toContain('<td><span class="sev sev-error">error</span> <span class="keyword">MUST</span></td>');
    expect(broken).toMatch(/<td>thid x<blockquote>All subsequent messages in a thread MUST include a `thid` header/);
  });

  it('with a stylesheet: a <link> to it instead of an inline <style>, the same rules in reportCss, and a link back', () => {
    const linked = reportHtml(report, { stylesheet: '/console/r/report.css', back: { href: '/console/conformance', label: 'All runs' } });
    expect(linked).not.toContain('<style');
    expect(linked).toContain('<link rel="stylesheet" href="/console/r/report.css">');
    expect(linked).toContain('<p class="back"><a href="/console/conformance">All runs</a></p>');
    const css = reportCss(report);
    expect(html).toContain(`<style>${css}</style>`);
    expect(css).toContain('.msg:target{display:block}');
    // Apart from the head, the two are the same document.
    const body = (h: string) => h.slice(h.indexOf('<h1>'));
    expect(body(linked)).toBe(body(html));
  });
});
