import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_LINE, ROOT, runCli, tempDir } from './run-cli.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let alice: { did: string; keys: string };
let bob: { did: string; keys: string };
let messageFile: string;

async function createParty(method: string, name: string) {
  const keys = dir.file(`${name}-keys.json`);
  const run = await runCli(['did', 'create', '--method', method, '--keys-out', keys, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return { did: JSON.parse(run.stdout).did as string, keys };
}

beforeAll(async () => {
  dir = await tempDir();
  [alice, bob] = await Promise.all([createParty('ion', 'alice'), createParty('peer', 'bob')]);
  messageFile = dir.file('hello.json');
  await writeFile(messageFile, JSON.stringify({ id: 'm-1', type: 'https://didcomm.org/basicmessage/2.0/message', from: alice.did, to: [bob.did], body: { content: 'hi bob' } }));
});
afterAll(async () => dir.remove());

describe('idsync message pack/unpack between DIDs made by the CLI', () => {
  it.each([
    ['plaintext', { encrypted: false, authenticated: false }],
    ['signed', { encrypted: false, nonRepudiation: true }],
    ['anoncrypt', { encrypted: true, anonymousSender: true }],
    ['authcrypt', { encrypted: true, authenticated: true }],
    ['authcrypt-signed', { encrypted: true, authenticated: true, nonRepudiation: true, anonymousSender: false }],
    ['anoncrypt-authcrypt', { encrypted: true, authenticated: true, anonymousSender: true }],
  ])('round-trips a message packed as %s', async (mode, expected) => {
    const packed = await runCli(['message', 'pack', messageFile, '--mode', mode, '--to', bob.did, '--from', alice.did, '--secrets', alice.keys, '--json']);
    expect(packed.stderr).toBe('');
    expect(packed.code).toBe(0);
    const packResult = JSON.parse(packed.stdout);
    expect(packResult.mode).toBe(mode);
    expect(typeof packResult.packed).toBe('string');

    const packedFile = dir.file(`packed-${mode}.json`);
    await writeFile(packedFile, packResult.packed);
    const unpacked = await runCli(['message', 'unpack', packedFile, '--secrets', bob.keys, '--json']);
    expect(unpacked.stderr).toBe('');
    expect(unpacked.code).toBe(0);
    const { message, metadata } = JSON.parse(unpacked.stdout);
    expect(message).toMatchObject({ id: 'm-1', from: alice.did, to: [bob.did], body: { content: 'hi bob' } });
    expect(metadata).toMatchObject({ mode, ...expected });
  });

  it('pipes the human output of pack into unpack on standard input', async () => {
    const packed = await runCli(['message', 'pack', '-', '--mode', 'authcrypt', '--to', bob.did, '--from', alice.did, '--secrets', alice.keys], {
      stdin: JSON.stringify({ type: 'https://didcomm.org/basicmessage/2.0/message', body: { content: 'via a pipe' } }),
    });
    expect(packed.code, packed.stderr).toBe(0);
    const unpacked = await runCli(['message', 'unpack', '-', '--secrets', bob.keys], { stdin: packed.stdout });
    expect(unpacked.code, unpacked.stderr).toBe(0);
    expect(unpacked.stdout).toMatch(/^mode: authcrypt\n/);
    expect(unpacked.stdout).toContain('"content": "via a pipe"');
    expect(unpacked.stdout).toContain(`sender key: ${alice.did}#`);
  });

  it('packs with --engine didcomm-node what the native engine unpacks, and the other way round', async () => {
    for (const [packer, unpacker] of [['didcomm-node', 'native'], ['native', 'didcomm-node']]) {
      const packed = await runCli(['message', 'pack', messageFile, '--mode', 'authcrypt-signed', '--to', bob.did, '--from', alice.did, '--secrets', alice.keys, '--engine', packer]);
      expect(packed.code, packed.stderr).toBe(0);
      const unpacked = await runCli(['message', 'unpack', '-', '--secrets', bob.keys, '--engine', unpacker, '--json'], { stdin: packed.stdout });
      expect(unpacked.code, unpacked.stderr).toBe(0);
      expect(JSON.parse(unpacked.stdout)).toMatchObject({ message: { body: { content: 'hi bob' } }, metadata: { mode: 'authcrypt-signed' } });
    }
  });

  it('packs authcrypt-signed as authcrypt(sign(plaintext)); --protect-sender adds the anoncrypt §IANA Media Types says MUST NOT be used, and unpack names the rule', async () => {
    const outerAlg = (packed: string) => JSON.parse(Buffer.from(JSON.parse(packed).protected, 'base64url').toString('utf8')).alg;
    const plain = await runCli(['message', 'pack', messageFile, '--mode', 'authcrypt-signed', '--to', bob.did, '--from', alice.did, '--secrets', alice.keys]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(outerAlg(plain.stdout)).toBe('ECDH-1PU+A256KW');
    const protectedForm = await runCli(['message', 'pack', messageFile, '--mode', 'authcrypt-signed', '--protect-sender', '--to', bob.did, '--from', alice.did, '--secrets', alice.keys]);
    expect(protectedForm.code, protectedForm.stderr).toBe(0);
    expect(outerAlg(protectedForm.stdout)).toBe('ECDH-ES+A256KW');
    const unpacked = await runCli(['message', 'unpack', '-', '--secrets', bob.keys, '--json'], { stdin: protectedForm.stdout });
    expect(unpacked.code, unpacked.stderr).toBe(0);
    expect(JSON.parse(unpacked.stdout).metadata).toMatchObject({ mode: 'authcrypt-signed', anonymousSender: true, notes: [expect.objectContaining({ rule: 'envelope.nesting-protected-signed', broken: true })] });
    const elsewhere = await runCli(['message', 'pack', messageFile, '--mode', 'authcrypt', '--protect-sender', '--to', bob.did, '--from', alice.did, '--secrets', alice.keys]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toBe('idsync: conflicting_option: --protect-sender applies to --mode authcrypt-signed only, not authcrypt\n');
  });

  it('asks for --from (or the message\'s "from") and --to as usage errors when the mode needs a sender, signer or recipient', async () => {
    const anonymous = dir.file('anonymous.json');
    await writeFile(anonymous, JSON.stringify({ id: 'm-2', type: 'https://didcomm.org/basicmessage/2.0/message', body: { content: 'from nobody' } }));
    for (const [args, message] of [
      [['--mode', 'authcrypt', '--to', bob.did], 'idsync: missing_mandatory_option_value: --mode authcrypt needs a sender: --from DID or the message\'s "from"\n'],
      [['--mode', 'anoncrypt-authcrypt', '--to', bob.did], 'idsync: missing_mandatory_option_value: --mode anoncrypt-authcrypt needs a sender: --from DID or the message\'s "from"\n'],
      [['--mode', 'signed'], 'idsync: missing_mandatory_option_value: --mode signed needs a signer: --from DID or the message\'s "from"\n'],
      [['--mode', 'anoncrypt'], 'idsync: missing_mandatory_option_value: --mode anoncrypt needs a recipient: --to DID or the message\'s "to"\n'],
    ] as const) {
      const run = await runCli(['message', 'pack', anonymous, ...args, '--secrets', alice.keys]);
      expect(run.stderr, args.join(' ')).toBe(message);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
    }
  });

  it('cannot unpack a message for someone else', async () => {
    const packed = await runCli(['message', 'pack', messageFile, '--mode', 'anoncrypt', '--secrets', alice.keys]);
    expect(packed.code, packed.stderr).toBe(0);
    const unpacked = await runCli(['message', 'unpack', '-', '--secrets', alice.keys], { stdin: packed.stdout });
    expect(unpacked.stderr).toMatch(ERROR_LINE);
    expect(unpacked.stderr).toMatch(/^idsync: secret_not_found: /);
    expect(unpacked.code).toBe(1);
  });
});

const SPEC = join(ROOT, 'fixtures/didcomm-v2-spec');
const spec = (name: string) => join(SPEC, name);

describe('idsync message unpack on the DIF DIDComm v2 vectors', () => {
  const documents = ['--dids', spec('diddocs-alice.json'), spec('diddocs-bob.json')];

  // All nine appendix vectors unpack with the default (native) engine, P-384 and P-521 included.
  it.each([
    ['authcrypt-x25519-a256cbc.json', { mode: 'authcrypt', authenticated: true, encryptedFromKid: 'did:example:alice#key-x25519-1' }],
    ['anoncrypt-x25519-xc20p.json', { mode: 'anoncrypt', anonymousSender: true }],
    ['anoncrypt-p384-a256cbc.json', { mode: 'anoncrypt', anonymousSender: true, encAlgAnon: 'ECDH-ES+A256KW/A256CBC-HS512' }],
    ['anoncrypt-p521-a256gcm.json', { mode: 'anoncrypt', anonymousSender: true, encAlgAnon: 'ECDH-ES+A256KW/A256GCM' }],
    ['signed-eddsa-ed25519.json', { mode: 'signed', nonRepudiation: true, signFrom: 'did:example:alice#key-1' }],
    ['signed-es256-p256.json', { mode: 'signed', signAlg: 'ES256', signFrom: 'did:example:alice#key-2' }],
    ['signed-es256k-secp256k1.json', { mode: 'signed', signAlg: 'ES256K', signFrom: 'did:example:alice#key-3' }],
    ['signed-then-authcrypt-p521.json', { mode: 'authcrypt-signed', encryptedFromKid: 'did:example:alice#key-p256-1' }],
    ['signed-authcrypt-then-anoncrypt-x25519.json', { mode: 'authcrypt-signed', anonymousSender: true, encryptedFromKid: 'did:example:alice#key-p521-1' }],
  ])('unpacks %s with Bob\'s secrets (kid spelt "kid ") and both documents', async (vector, expected) => {
    const run = await runCli(['message', 'unpack', spec(vector), '--secrets', spec('secrets-bob.json'), ...documents, '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const { message, metadata } = JSON.parse(run.stdout);
    const plaintext = JSON.parse(await readFile(spec('plaintext.json'), 'utf8'));
    // The appendix prints plaintext.json with an https type; the packed payloads carry http (fixtures README).
    expect({ ...message, type: message.type.replace(/^http:/, 'https:') }).toMatchObject(plaintext);
    expect(metadata).toMatchObject(expected);
  });

  it('prints the conformance notes of what it accepted (P-521 key agreement)', async () => {
    const run = await runCli(['message', 'unpack', spec('anoncrypt-p521-a256gcm.json'), '--secrets', spec('secrets-bob.json'), ...documents]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^note \(envelope\.jwe-curve\): ECDH-ES\+A256KW on P-521 accepted/m);
  });

  it('with --engine didcomm-node reports the P-384 vector as unsupported in one line', async () => {
    const run = await runCli(['message', 'unpack', spec('anoncrypt-p384-a256cbc.json'), '--secrets', spec('secrets-bob.json'), ...documents, '--engine', 'didcomm-node']);
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.stderr).toMatch(/^idsync: didcomm_unsupported: /);
    expect(run.code).toBe(1);
  });

  it('refuses an unknown --engine as a usage error', async () => {
    const run = await runCli(['message', 'unpack', spec('plaintext.json'), '--engine', 'wasm']);
    expect(run.stderr).toMatch(ERROR_LINE);
    expect(run.code).toBe(2);
  });
});
