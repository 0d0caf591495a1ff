// The console's small parts: sessions (ids kept hashed, ended by logout and by time, bounded),
// what it withholds from displayed values, verdicts from conformance results, the cookie parser,
// the command copied for `idsync message check`, and the user a holder DID is named by in diagrams.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { cookieValue } from '../../src/console/auth.js';
import { redact, redactText } from '../../src/console/redact.js';
import { createSessions } from '../../src/console/sessions.js';
import { ruleView, verdictOf, worstVerdict } from '../../src/console/verdicts.js';
import { checkCommand } from '../../src/console/views/message.js';
import { tallyRules, threadVerdicts } from '../../src/console/views/thread-verdicts.js';
import type { LoggedMessage } from '../../src/store/messages.js';
import { RULES } from '../../src/conformance/catalogue.js';
import { userOfDid } from '../../src/console/service-context.js';
import { connectUser, startTestbed } from '../../src/testing/index.js';

describe('console sessions', () => {
  it('finds a session by its id only, until logout or its time is up', () => {
    const clock = new ManualClock(0);
    const s = createSessions({ clock, ttlMs: 1000 });
    const id = s.create({ subject: 'qa-client', tenantId: 'qa' });
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(s.get(id)).toEqual({ subject: 'qa-client', tenantId: 'qa' });
    expect(s.get(id.slice(0, -1) + (id.endsWith('A') ? 'B' : 'A'))).toBeUndefined();
    expect(s.get(undefined)).toBeUndefined();
    expect(s.get('x'.repeat(10_000))).toBeUndefined();
    clock.advance(999);
    expect(s.get(id)).toBeDefined();
    clock.advance(1);
    expect(s.get(id)).toBeUndefined();
    const other = s.create({ subject: 'qa-client' });
    s.delete(other);
    expect(s.get(other)).toBeUndefined();
  });

  it('keeps at most `max` sessions, the oldest going first', () => {
    const s = createSessions({ clock: new ManualClock(0), max: 2 });
    const [a, b, c] = [s.create({ subject: 'a' }), s.create({ subject: 'b' }), s.create({ subject: 'c' })];
    expect(s.size).toBe(2);
    expect(s.get(a)).toBeUndefined();
    expect(s.get(b)?.subject).toBe('b');
    expect(s.get(c)?.subject).toBe('c');
  });
});

describe('what the console withholds', () => {
  it('replaces private JWK members and secrets at any depth, and leaves public keys', () => {
    const value = {
      body: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'pub', d: 'PRIVATE' }, { kty: 'oct', k: 'SYMMETRIC' }] },
      clientSecret: 'hunter2', nested: { privateKeyMultibase: 'z3u2', secret: 'whsec_x', d: 'not a jwk member' },
    };
    expect(redact(value)).toEqual({
      body: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'pub', d: '(withheld)' }, { kty: 'oct', k: '(withheld)' }] },
      clientSecret: '(withheld)', nested: { privateKeyMultibase: '(withheld)', secret: '(withheld)', d: 'not a jwk member' },
    });
  });
});

describe('what the console withholds of a value kept as text', () => {
  it('gives text that holds nothing private back byte for byte, and withholds in text that parses or is cut short', () => {
    const clean = '{ "protected": "e30",  "ciphertext": "x" }';
    expect(redactText(clean)).toBe(clean);
    expect(JSON.parse(redactText('{"recipients":[{"header":{"kid":"x","kty":"OKP","d":"SECRET"}}]}'))).toEqual({ recipients: [{ header: { kid: 'x', kty: 'OKP', d: '(withheld)' } }] });
    // The first bytes of a message only a digest was kept of: no JSON, so every such member goes.
    expect(redactText('{"body":{"k":{"kty":"OKP","d":"SECRET","x":"pub"},"password": "hunt')).toBe('{"body":{"k":{"kty":"OKP","d":"(withheld)","x":"pub"},"password": "(withheld)"');
  });
});

describe('verdicts', () => {
  it('pass, warning, advice and fail by result and severity; a message takes its worst', () => {
    expect(verdictOf({ rule: 'a', ok: true, severity: 'error' })).toBe('pass');
    expect(verdictOf({ rule: 'a', ok: false, severity: 'error' })).toBe('fail');
    expect(verdictOf({ rule: 'a', ok: false, severity: 'warning' })).toBe('warning');
    expect(verdictOf({ rule: 'a', ok: false, severity: 'advice' })).toBe('advice');
    expect(worstVerdict([])).toBe('pass');
    expect(worstVerdict([{ rule: 'a', ok: false, severity: 'advice' }, { rule: 'b', ok: false, severity: 'warning' }])).toBe('warning');
    expect(worstVerdict([{ rule: 'a', ok: false, severity: 'error' }, { rule: 'b', ok: true }])).toBe('fail');
  });

  it("shows a rule's catalogue entry: its text, spec section and link", () => {
    const rule = RULES.find((r) => r.url.startsWith('https://'))!;
    expect(ruleView(rule.id)).toMatchObject({ id: rule.id, text: rule.text, spec: `${rule.spec} ${rule.version}`, quote: rule.quote, section: rule.section, href: rule.url });
    expect(ruleView('no.such-rule')).toEqual({ id: 'no.such-rule' });
  });
});

describe('console helpers', () => {
  it('reads one cookie of a Cookie header', () => {
    expect(cookieValue('a=1; idsync_console=abc; b=2', 'idsync_console')).toBe('abc');
    expect(cookieValue('xidsync_console=abc', 'idsync_console')).toBeUndefined();
    expect(cookieValue(undefined, 'idsync_console')).toBeUndefined();
  });

  it('copies a message as a command the shell hands to message check unchanged', () => {
    const text = '{"id":"1","body":{"x":"$HOME `date` \\\\ MESSAGE"}}';
    const cmd = checkCommand(text);
    expect(cmd.startsWith("idsync message check - <<'MESSAGE_'\n")).toBe(true);
    // The shell passes the heredoc through untouched: no expansion, the delimiter never inside.
    const out = execFileSync('bash', ['-c', cmd.replace(/^idsync message check -/, 'cat')], { encoding: 'utf8' });
    expect(out).toBe(`${text}\n`);
  });
});

describe("a thread's rule verdicts", () => {
  const msg = (seq: string, conformance: LoggedMessage['conformance']): LoggedMessage =>
    ({ seq, id: seq, direction: 'in', type: 'https://didcomm.org/trust-ping/2.0/ping', mode: 'authcrypt', at: '2025-01-01T00:00:00.000Z', size: 1, message: {} as never, conformance }) as LoggedMessage;
  const messages = [
    msg('1-1', [{ rule: 'plaintext.id-unique', ok: true, severity: 'error' }, { rule: 'plaintext.id-format', ok: true, severity: 'advice' }]),
    msg('1-2', [{ rule: 'plaintext.id-unique', ok: false, severity: 'error', detail: 'id used twice' }, { rule: 'plaintext.id-format', ok: true, severity: 'advice' }]),
  ];

  it('tallies each rule once: its worst verdict, on how many messages, and which broke it', () => {
    expect(tallyRules(messages)).toEqual([
      { rule: 'plaintext.id-unique', worst: 'fail', checked: 2, broken: [{ seq: '1-2', type: messages[1]!.type, detail: 'id used twice' }] },
      { rule: 'plaintext.id-format', worst: 'pass', checked: 2, broken: [] },
    ]);
  });

  it('shows a broken rule with its quoted sentence, keyword and spec link, and folds the rules that held', () => {
    const out = threadVerdicts(messages).value;
    expect(out).toMatch(/<span class="verdict verdict-fail">fail<\/span>[\s\S]*<code>plaintext\.id-unique<\/code>/);
    expect(out).toContain('<blockquote>The `id` attribute value MUST be unique to the sender, across all messages they send.</blockquote>');
    expect(out).toContain('<span class="keyword">MUST</span>');
    expect(out).toContain('<a href="/console/messages/1-2">trust-ping/2.0/ping</a>: id used twice');
    expect(out).toMatch(/<details class="held" id="held-rules"><summary>1 rule held on every message<\/summary>/);
    expect(threadVerdicts([messages[0]!]).value).toContain('Every rule checked held on every message.');
  });
});

describe('the user a holder DID belongs to, in diagrams', () => {
  it('is found for a did:peer:2 holder as for a did:ion one, and not looked for other methods', async () => {
    const bed = await startTestbed();
    try {
      const peerBed = await startTestbed({ walletDidMethod: 'peer' });
      try {
        for (const b of [bed, peerBed]) {
          const [wallet] = b.wallets;
          await connectUser(b, 'ada', wallet);
          expect(await userOfDid(b.service.deps, b.service.tenantId, wallet.did)).toBe('user ada');
          expect(await userOfDid(b.service.deps, b.service.tenantId, b.service.did)).toBeUndefined();
        }
      } finally {
        await peerBed.close();
      }
    } finally {
      await bed.close();
    }
  });
});
