import { readFile, stat, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_LINE, runCli, tempDir } from './run-cli.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => dir.remove());

describe('idsync did', () => {
  it.each([
    ['ion', /^did:ion:[A-Za-z0-9_-]{46}:[A-Za-z0-9_-]+$/],
    ['peer', /^did:peer:2\./],
    ['peer4', /^did:peer:4zQm[1-9A-HJ-NP-Za-km-z]{44}:z[1-9A-HJ-NP-Za-km-z]+$/],
    ['key', /^did:key:z6Mk/],
  ])('creates a did:%s that resolves back to the same document', async (method, pattern) => {
    const created = await runCli(['did', 'create', '--method', method, '--json']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const { did, shortDid, document } = JSON.parse(created.stdout);
    expect(did).toMatch(pattern);
    expect(document.id).toBe(did);
    if (method === 'ion') expect(shortDid).toBe(did.split(':').slice(0, 3).join(':'));
    else if (method === 'peer4') expect(shortDid).toBe(did.split(':').slice(0, 3).join(':'));
    else expect(shortDid).toBeUndefined();

    const resolved = await runCli(['did', 'resolve', did, '--json']);
    expect(resolved.code).toBe(0);
    const result = JSON.parse(resolved.stdout);
    expect(result.didResolutionMetadata.error).toBeUndefined();
    expect(result.didDocument).toEqual(document);
    expect(result).toHaveProperty('didDocumentMetadata');
  });

  it('defaults to ion and prints did, short did and document for people', async () => {
    const run = await runCli(['did', 'create', '--endpoint', 'https://wallet.example/didcomm']);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^did: did:ion:/);
    expect(lines[1]).toMatch(/^short did: did:ion:[A-Za-z0-9_-]{46}$/);
    expect(lines[2]).toBe('document:');
    const document = JSON.parse(lines.slice(3).join('\n'));
    expect(document.service[0].serviceEndpoint.uri ?? document.service[0].serviceEndpoint).toBe('https://wallet.example/didcomm');
    expect(run.stdout).not.toContain('"d"');
  });

  it('writes private keys only to --keys-out, mode 0600, with full key ids', async () => {
    const keysFile = dir.file('peer-keys.json');
    const run = await runCli(['did', 'create', '--method', 'peer', '--keys-out', keysFile, '--json']);
    expect(run.code).toBe(0);
    const { did, document } = JSON.parse(run.stdout);
    expect(run.stdout).not.toMatch(/"d":/);
    expect((await stat(keysFile)).mode & 0o777).toBe(0o600);
    const keys = JSON.parse(await readFile(keysFile, 'utf8'));
    expect(keys.length).toBeGreaterThanOrEqual(2);
    const methodIds = document.verificationMethod.map((vm: { id: string }) => (vm.id.startsWith('#') ? did + vm.id : vm.id));
    for (const key of keys) {
      expect(typeof key.d).toBe('string');
      expect(methodIds).toContain(key.kid);
    }
  });

  it('refuses to overwrite an existing --keys-out file', async () => {
    const keysFile = dir.file('existing.json');
    const first = await runCli(['did', 'create', '--method', 'key', '--keys-out', keysFile]);
    expect(first.code).toBe(0);
    const before = await readFile(keysFile, 'utf8');
    const second = await runCli(['did', 'create', '--method', 'key', '--keys-out', keysFile]);
    expect(second.stderr).toMatch(ERROR_LINE);
    expect(second.stderr).toMatch(/^idsync: file_exists: /);
    // The user's to fix, like any option naming a path that cannot be used: a usage error.
    expect(second.code).toBe(2);
    expect(second.stdout).toBe('');
    expect(await readFile(keysFile, 'utf8')).toBe(before);
  });

  it('refuses a --keys-out path whose folder is a file, that is a folder, or whose folder is missing, as usage errors naming the path', async () => {
    const file = dir.file('plain.txt');
    await writeFile(file, 'x');
    const under = await runCli(['did', 'create', '--method', 'key', '--keys-out', `${file}/keys.json`]);
    expect(under.stderr).toMatch(/^idsync: file_not_found: cannot create .*plain\.txt\/keys\.json: a part of its path is a file, not a directory\n$/);
    expect(under.code).toBe(2);
    const folder = await runCli(['did', 'create', '--method', 'key', '--keys-out', dir.file('')]);
    expect(folder.stderr).toMatch(/^idsync: file_exists: .* already exists; refusing to overwrite a key file\n$/);
    expect(folder.code).toBe(2);
    const missing = await runCli(['did', 'create', '--method', 'key', '--keys-out', dir.file('nope/keys.json')]);
    expect(missing.stderr).toMatch(/^idsync: file_not_found: cannot create .*: no such directory\n$/);
    expect(missing.code).toBe(2);
  });

  it('resolves an Identus did:peer:2 without services (`.SW10`), exit 0, and says what it read against the method spec', async () => {
    const { noService } = JSON.parse(await readFile(new URL('../../fixtures/did/identus-castor.json', import.meta.url), 'utf8'));
    const run = await runCli(['did', 'resolve', noService]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(/^warning: an S element holds a JSON list of services \(DIF did:peer §Method 2: "The services MUST NOT be encoded as a JSON list"\)/);
    const json = JSON.parse((await runCli(['did', 'resolve', noService, '--json'])).stdout);
    expect(json.didResolutionMetadata.warnings[0].code).toBe('peer2_service_list');
    expect(json.didDocument.service).toEqual([]);
  });

  it('rejects --endpoint for did:key as a usage error', async () => {
    const run = await runCli(['did', 'create', '--method', 'key', '--endpoint', 'https://x.example']);
    expect(run.stderr).toMatch(/^idsync: invalid_argument: /);
    expect(run.code).toBe(2);
  });
});
