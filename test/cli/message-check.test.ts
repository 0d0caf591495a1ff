// `idsync message check`, in process (the point is what it judges, not the process): every rule
// checked is printed, opened messages get plaintext, sender and body rules, the exit status is 1
// exactly when a MUST is broken.
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

type Checked = { ok: boolean; results: Array<{ rule: string; ok: boolean; severity: string; detail?: string }> };
const parse = (out: string) => JSON.parse(out) as Checked;
const failed = (c: Checked) => c.results.filter((r) => !r.ok).map((r) => `${r.severity}:${r.rule}`);

describe('idsync message check', () => {
  it('a good plaintext passes every rule, printed with its spec section', async () => {
    const r = await check([`${V}/plaintext.json`]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^pass plaintext\.body {2}\(DIDComm Messaging v2\.1, Message Headers\)$/m);
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
