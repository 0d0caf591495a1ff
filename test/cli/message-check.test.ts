// `idsync message check`, in process (the point is what it judges, not the process): every rule
// checked is printed, opened messages get plaintext, sender and body rules, what was found is said,
// the exit status is 1 exactly when a MUST is broken (or, with --profile strict, a SHOULD or advice).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program.js';
import { ROOT } from './run-cli.js';

const V = 'fixtures/didcomm-v2-spec';
const KEYS = ['--secrets', `${V}/secrets-bob.json`, '--dids', `${V}/diddocs-alice.json`, `${V}/diddocs-bob.json`];

async function check(args: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(['message', 'check', ...args], { stdout: (t) => void (out += t), stderr: (t) => void (err += t), readStdin: async () => stdin });
  return { code, out, err };
}

type Checked = { ok: boolean; profile: string; results: Array<{ rule: string; ok: boolean; severity: string; detail?: string }>; diagnosis: Array<{ rule: string; finding: string }> };
const parse = (out: string) => JSON.parse(out) as Checked;
const failed = (c: Checked) => c.results.filter((r) => !r.ok).map((r) => `${r.severity}:${r.rule}`);

describe('idsync message check', () => {
  it('a good plaintext passes every rule, printed with its spec section', async () => {
    const r = await check([`${V}/plaintext.json`]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^pass +plaintext\.body {2}\(DIDComm Messaging v2\.1, Message Headers\)$/m);
    expect(r.out).toContain('0 MUST broken');
  });

  it('--json prints {ok, results: [{rule, ok, severity, detail}]}; a body that is not an object breaks a MUST and exits 1', async () => {
    const message = { id: 'x-1', type: 'https://didcomm.org/trust-ping/2.0/ping', body: [] };
    const r = await check(['-', '--json'], JSON.stringify(message));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^idsync: nonconformant: plaintext\.body: /);
    const doc = parse(r.out);
    expect(doc.ok).toBe(false);
    expect(failed(doc)).toEqual(['error:plaintext.body']);
    for (const res of doc.results) expect(Object.keys(res).filter((k) => k !== 'detail')).toEqual(['rule', 'ok', 'severity']);
    expect(Object.keys(doc)).toEqual(['ok', 'profile', 'results', 'diagnosis']);
  });

  it('lists every broken rule of a plaintext without type, with a string created_time and a string to', async () => {
    const message = { id: 'x-1', created_time: '2025-01-01T00:00:00Z', to: 'did:example:bob', body: {} };
    const r = await check(['-', '--json'], JSON.stringify(message));
    expect(r.code).toBe(1);
    expect(failed(parse(r.out))).toEqual(['error:plaintext.type', 'error:plaintext.to', 'advice:plaintext.created_time']);
    expect(r.err).toMatch(/^idsync: nonconformant: plaintext\.type: the message has no type \(and 1 more\)\n$/);
    const text = await check(['-'], JSON.stringify(message));
    expect(text.out).toMatch(/^type: \(none\)$/m);
    expect(text.out).toMatch(/^FAIL +plaintext\.to +\(DIDComm Messaging v2\.1, Message Headers\)$/m);
    expect(text.out).toMatch(/^advice +plaintext\.created_time/m);
  });

  it('flags an anoncrypt without apv (DIDComm v2.1: "JWE messages MUST use common epk, apv and alg headers"), with or without keys', async () => {
    const jwe = JSON.parse(readFileSync(join(ROOT, V, 'anoncrypt-x25519-xc20p.json'), 'utf8')) as { protected: string };
    const header = JSON.parse(Buffer.from(jwe.protected, 'base64url').toString()) as Record<string, unknown>;
    delete header.apv;
    jwe.protected = Buffer.from(JSON.stringify(header)).toString('base64url');
    for (const args of [[], KEYS]) {
      const r = await check(['-', ...args, '--json'], JSON.stringify(jwe));
      expect(r.code).toBe(1);
      expect(failed(parse(r.out))).toContain('error:envelope.anoncrypt-no-apv');
      expect(parse(r.out).diagnosis).toContainEqual({ rule: 'envelope.anoncrypt-no-apv', finding: 'anoncrypt without apv' });
    }
  });

  it('--profile strict fails on advice too; an unknown profile is a one-line error', async () => {
    const offer = 'fixtures/waci-didcomm/issuance/3.issue-credential_offer.json';
    const strict = await check([offer, '--profile', 'strict', '--json']);
    expect(strict.code).toBe(1);
    expect(parse(strict.out)).toMatchObject({ ok: false, profile: 'strict' });
    expect(strict.err).toMatch(/^idsync: nonconformant: issue-credential\.offer\.credential_preview-missing: /);
    const bad = await check([offer, '--profile', 'pedantic']);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/^idsync: [a-z_]+: --profile must be liberal or strict, not pedantic\n$/);
  });

  it('advice not followed is shown and exits 0', async () => {
    const r = await check(['fixtures/waci-didcomm/issuance/3.issue-credential_offer.json', '--json']);
    expect(r.code).toBe(0);
    const doc = parse(r.out);
    expect(failed(doc)).toEqual(['advice:issue-credential.offer.credential_preview-missing']);
    // The body rules of idsync's protocols apply: the manifest attachment was checked.
    expect(doc.results.find((x) => x.rule === 'issue-credential.offer.manifest')?.ok).toBe(true);
  });

  it('an encrypted message without keys is judged by its envelope alone', async () => {
    const r = await check([`${V}/authcrypt-x25519-a256cbc.json`, '--json']);
    expect(r.code).toBe(0);
    const rules = parse(r.out).results.map((x) => x.rule);
    expect(rules).toContain('envelope.authcrypt-apu');
    expect(rules.some((x) => x.startsWith('plaintext.'))).toBe(false);
  });

  it('with the recipient keys it is opened: sender and plaintext rules too', async () => {
    const r = await check([`${V}/authcrypt-x25519-a256cbc.json`, ...KEYS, '--json']);
    expect(r.code).toBe(0);
    const rules = parse(r.out).results.map((x) => x.rule);
    expect(rules).toEqual(expect.arrayContaining(['envelope.jwe-apv', 'envelope.from-matches-sender', 'plaintext.body']));
  });

  it('a tampered ciphertext breaks envelope.jwe-tag', async () => {
    const jwe = JSON.parse(readFileSync(join(ROOT, V, 'authcrypt-x25519-a256cbc.json'), 'utf8')) as { ciphertext: string };
    jwe.ciphertext = (jwe.ciphertext[0] === 'A' ? 'B' : 'A') + jwe.ciphertext.slice(1);
    const r = await check(['-', ...KEYS, '--json'], JSON.stringify(jwe));
    expect(r.code).toBe(1);
    expect(failed(parse(r.out))).toEqual(['error:envelope.jwe-tag']);
  });

  it('a signed message opens with the signer DID document and checks the signer rule', async () => {
    const r = await check([`${V}/signed-eddsa-ed25519.json`, '--dids', `${V}/diddocs-alice.json`, '--json']);
    expect(r.code).toBe(0);
    expect(parse(r.out).results.find((x) => x.rule === 'envelope.from-matches-signer')?.ok).toBe(true);
  });

  it('text that is not JSON breaks envelope.json', async () => {
    const r = await check(['-', '--json'], 'hello');
    expect(r.code).toBe(1);
    expect(failed(parse(r.out))).toEqual(['error:envelope.json']);
  });
});
