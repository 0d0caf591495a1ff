// On Node 20, exporting a KeyObject made by generateKeyPairSync (keyObject.export(), as JWK among
// others) holds the key's mutex while it allocates JS strings; a garbage collection at that moment
// that frees the finished key generation job runs its destructor, which takes the same mutex, and
// the thread deadlocks in a futex wait: no CPU, and no timer (a test timeout) can fire. Seen as a
// property-test fork idle for minutes; a gdb stack of the hung thread reads ExportJWKEdKey →
// String allocation → Heap::CollectGarbage → GlobalHandles::InvokeFirstPassWeakCallbacks →
// ~KeyGenJob → uv_mutex_lock. Keys wanted as JWK or bytes are asked for in generateKeyPairSync's
// own encodings (publicKeyEncoding / privateKeyEncoding), where the job is still alive; this keeps
// the two calls out of the same file.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|mts|mjs|js)$/.test(name) ? [path] : [];
  });
}

const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

describe('generated keys and export', () => {
  it('no file both generates keys with generateKeyPairSync and exports a KeyObject', () => {
    const offenders = ['src', 'test', 'bench']
      .flatMap(files)
      .filter((f) => {
        const text = code(readFileSync(f, 'utf8'));
        return text.includes('generateKeyPairSync') && /\.export\(/.test(text);
      });
    expect(offenders).toEqual([]);
  });
});
