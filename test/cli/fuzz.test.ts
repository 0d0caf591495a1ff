// Fuzzing the commands that read files a person hands them: `message check`, `unpack` and `pack`
// with messages, secrets files and DID document files drawn around the DIDComm v2 spec vectors
// (fixtures/didcomm-v2-spec, Apache-2.0: members removed, replaced or retyped, characters changed),
// options of any value, and `did resolve` / `did create` with DIDs and options drawn the same way.
// Every run ends with exit 0, 1 or 2; a failure is one line on stderr, `idsync: <code>: …`, with a
// code of the catalogue other than internal_error, and no stack trace.
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draw } from '../fuzz-kit.js';
import { readVector } from '../didcomm/envelope-fixtures.js';
import { runCli, tempDir } from './run-cli.js';

const MESSAGES = ['plaintext.json', 'authcrypt-x25519-a256cbc.json', 'anoncrypt-x25519-xc20p.json', 'signed-eddsa-ed25519.json', 'signed-then-authcrypt-p521.json'];

describe('fuzzing the file-reading commands', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(() => dir.remove());

  it('ends each run with a status and at most one coded line, never a stack', async () => {
    const { rnd, int, pick, value } = draw(Number(process.env.FUZZ_SEED ?? 20261129), () => ['did:example:alice', 'did:example:bob#key-x25519-1', 'did:example:alice#key-1', 'X25519', 'OKP', 'Ed25519']);
    function mutate(json: unknown, depth = 0): unknown {
      if (Array.isArray(json)) return json.length && rnd() < 0.7 ? json.map((x, i) => (i === int(json.length) ? mutate(x, depth + 1) : x)) : value(2);
      if (typeof json !== 'object' || json === null) return rnd() < 0.5 ? value(2) : json;
      const o = { ...(json as Record<string, unknown>) };
      const keys = Object.keys(o);
      const k = pick(keys.length ? keys : ['x']);
      const how = rnd();
      if (how < 0.25) delete o[k];
      else if (how < 0.6 && depth < 3) o[k] = mutate(o[k], depth + 1);
      else o[k] = value(2);
      return o;
    }
    const text = (name: string) => {
      const t = readVector(name);
      const how = rnd();
      if (how < 0.15) return t.slice(0, int(t.length));
      if (how < 0.25) return String(value(1));
      if (how < 0.35) return t;
      return JSON.stringify(mutate(JSON.parse(t)));
    };
    const fails: string[] = [];
    for (let i = 0; i < 120; i++) {
      let args: string[];
      if (rnd() < 0.75) {
        const msg = dir.file(`m${i}.json`);
        const secrets = dir.file(`s${i}.json`);
        const dids = dir.file(`d${i}.json`);
        await writeFile(msg, text(pick(MESSAGES)));
        await writeFile(secrets, text(pick(['secrets-alice.json', 'secrets-bob.json'])));
        await writeFile(dids, rnd() < 0.5 ? text('diddocs-alice.json') : text('diddocs-bob.json'));
        const cmd = pick(['check', 'unpack', 'pack']);
        args = ['message', cmd, rnd() < 0.95 ? msg : dir.file('missing.json'), '--secrets', secrets, '--dids', dids];
        if (cmd === 'pack') args.push('--mode', pick(['plaintext', 'signed', 'anoncrypt', 'authcrypt', 'anoncrypt-authcrypt', 'x']), ...(rnd() < 0.5 ? ['--to', pick(['did:example:bob', 'did:example:nobody', 'x'])] : []), ...(rnd() < 0.5 ? ['--from', pick(['did:example:alice', 'did:example:bob', ''])] : []));
        if (cmd === 'check' && rnd() < 0.5) args.push('--profile', pick(['liberal', 'strict', 'x']));
        if (rnd() < 0.3) args.push('--engine', pick(['native', 'didcomm-node', 'x']));
      } else if (rnd() < 0.6) {
        args = ['did', 'resolve', pick(['did:peer:2.Ez6LS', 'did:key:z6Mk', 'did:ion:EiA', 'did:peer:4zQm', 'did:jwk:x', 'did:', 'x', `did:peer:2.S${Buffer.from(JSON.stringify(value(1))).toString('base64url')}`, `did:key:z${'1'.repeat(int(60))}`]) + String(value(2)).slice(0, 40)];
      } else {
        args = ['did', 'create', '--method', pick(['ion', 'peer', 'peer4', 'key', 'web', 'x']), ...(rnd() < 0.5 ? ['--endpoint', String(value(2))] : [])];
      }
      if (rnd() < 0.5) args.push('--json');
      const run = await runCli(args);
      const err = run.stderr.trim();
      const bad =
        ![0, 1, 2].includes(run.code) ||
        err.includes('\n    at ') ||
        (run.code !== 0 && (err.split('\n').length !== 1 || !/^idsync: [a-z_]+: /.test(err) || err.startsWith('idsync: internal_error')));
      if (bad) fails.push(`${args.join(' ').slice(0, 200)} → ${run.code}: ${err.slice(0, 300)}`);
    }
    expect(fails).toEqual([]);
  }, 120_000);
});
