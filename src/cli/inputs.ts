// Files the user hands the CLI: messages (FILE or `-` for stdin), secrets (arrays of private JWKs
// with `kid`), DID documents, and the one file we write private keys into (--keys-out, mode 0600).
import { readFile, writeFile } from 'node:fs/promises';
import type { DIDDocument, Secret } from '../did/types.js';
import { IdsyncError } from '../errors.js';
import type { PrivateJwk } from '../keys.js';
import type { CliIo } from './output.js';

/** Reads a file as UTF-8 text; `-` reads standard input. */
export async function readInput(file: string, io: CliIo): Promise<string> {
  if (file === '-') return io.readStdin();
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw fileError(err, file);
  }
}

export async function readJson(file: string, io: CliIo): Promise<unknown> {
  const text = await readInput(file, io);
  try {
    return JSON.parse(text);
  } catch {
    // Node 20's SyntaxError quotes the input around the fault, and these files hold private
    // keys (`d`): report only where it is, never the parser's message, the text or the cause.
    const at = jsonErrorOffset(text);
    if (at < 0) throw new IdsyncError('invalid_json', `${label(file)} is not valid JSON`);
    const before = text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - before.lastIndexOf('\n');
    throw new IdsyncError('invalid_json', `${label(file)} is not valid JSON (line ${line}, column ${column})`, { details: { line, column, position: at } });
  }
}

/**
 * The offset of the first character that makes `text` invalid JSON (RFC 8259), or -1 when none
 * is found. A plain scanner (no recursion, so deep nesting cannot overflow the stack); it only
 * locates the fault so that no parser message (which quotes the input) is ever shown.
 */
export function jsonErrorOffset(text: string): number {
  const stack: string[] = [];
  const close: Record<string, string> = { '{': '}', '[': ']' };
  let i = 0;
  let expect: 'value' | 'key' | 'after' = 'value';
  let opened = false;
  for (;;) {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
    const c = text[i];
    if (c === undefined) return expect === 'after' && stack.length === 0 ? -1 : i;
    const top = stack[stack.length - 1];
    if ((expect === 'after' || opened) && top !== undefined && c === close[top]) {
      stack.pop();
      i++;
      expect = 'after';
      opened = false;
      continue;
    }
    opened = false;
    if (expect === 'after') {
      if (c !== ',' || top === undefined) return i;
      i++;
      expect = top === '{' ? 'key' : 'value';
    } else if (expect === 'key') {
      const end = c === '"' ? jsonStringEnd(text, i) : -1 - i;
      if (end < 0) return -1 - end;
      i = end;
      while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
      if (text[i] !== ':') return i;
      i++;
      expect = 'value';
    } else if (c === '{' || c === '[') {
      stack.push(c);
      i++;
      expect = c === '{' ? 'key' : 'value';
      opened = true;
    } else if (c === '"') {
      const end = jsonStringEnd(text, i);
      if (end < 0) return -1 - end;
      i = end;
      expect = 'after';
    } else {
      const scalar = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
      scalar.lastIndex = i;
      if (!scalar.test(text)) return i;
      i = scalar.lastIndex;
      expect = 'after';
    }
  }
}

/** The offset after the string starting at `start`, or -1 - (offset of the fault). */
function jsonStringEnd(text: string, start: number): number {
  for (let j = start + 1; j < text.length; ) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c < 0x20) return -1 - j;
    if (c !== 0x5c) {
      j++;
      continue;
    }
    const next = text[j + 1];
    if (next !== undefined && '"\\/bfnrt'.includes(next)) j += 2;
    else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) j += 6;
    else return -1 - j;
  }
  return -1 - text.length;
}

/**
 * Secrets files: each a JSON array of private JWKs carrying `kid` = the full key id (`did#fragment`),
 * as `idsync did create --keys-out` writes them. A single JWK object is accepted too. Member names
 * are trimmed because the DIF DIDComm v2 appendix spells Bob's `"kid "` with a trailing space.
 */
export async function loadSecrets(files: string[], io: CliIo): Promise<Secret[]> {
  const secrets: Secret[] = [];
  for (const file of files) {
    const value = await readJson(file, io);
    const entries = Array.isArray(value) ? value : [value];
    entries.forEach((entry, index) => secrets.push(toSecret(entry, `${label(file)} [${index}]`)));
  }
  return secrets;
}

function toSecret(entry: unknown, where: string): Secret {
  if (!isObject(entry)) throw new IdsyncError('invalid_secrets', `${where} is not a JWK object`);
  const jwk: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(entry)) jwk[name.trim()] = value;
  const { kid, ...key } = jwk;
  // Messages name the member that is wrong, never its value: `d` is private.
  if (typeof kid !== 'string' || !kid.includes('#')) throw new IdsyncError('invalid_secrets', `${where} needs a "kid" holding the full key id (did#fragment)`);
  if (typeof key.kty !== 'string') throw new IdsyncError('invalid_secrets', `${where} (${kid}) has no "kty"`);
  if (typeof key.d !== 'string') throw new IdsyncError('invalid_secrets', `${where} (${kid}) is not a private key (no "d")`);
  // EC keys (P-256 …) pass through unchanged for the envelope layer; our own keys are OKP.
  return { id: kid, type: 'JsonWebKey2020', privateKeyJwk: key as unknown as PrivateJwk };
}

/** The --keys-out form of secrets: their private JWKs with `kid` set to the full key id. */
export function secretsFileContent(secrets: Secret[]): string {
  return JSON.stringify(secrets.map((s) => ({ ...s.privateKeyJwk, kid: s.id })), null, 2) + '\n';
}

/** DID document files: each a document or an array of documents. */
export async function loadDidDocuments(files: string[], io: CliIo): Promise<DIDDocument[]> {
  const documents: DIDDocument[] = [];
  for (const file of files) {
    const value = await readJson(file, io);
    const entries = Array.isArray(value) ? value : [value];
    entries.forEach((entry, index) => {
      if (!isObject(entry) || typeof entry.id !== 'string' || !entry.id.startsWith('did:')) {
        throw new IdsyncError('invalid_did_document', `${label(file)} [${index}] is not a DID document (no "id" starting with did:)`);
      }
      documents.push(entry as unknown as DIDDocument);
    });
  }
  return documents;
}

/** Writes private material to a new file readable by its owner only; never overwrites. */
export async function writePrivateFile(file: string, content: string): Promise<void> {
  try {
    await writeFile(file, content, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new IdsyncError('file_exists', `${file} already exists; refusing to overwrite a key file`, { cause: err });
    }
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new IdsyncError('file_not_found', `cannot create ${file}: no such directory`, { cause: err });
    }
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw new IdsyncError('file_not_found', `cannot create ${file}: a part of its path is a file, not a directory`, { cause: err });
    }
    throw fileError(err, file);
  }
}

function fileError(err: unknown, file: string): IdsyncError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new IdsyncError('file_not_found', `no such file: ${file}`, { cause: err });
  if (code === 'EISDIR') return new IdsyncError('file_unreadable', `${file} is a directory`, { cause: err });
  return new IdsyncError('file_unreadable', `cannot use ${file} (${code ?? 'error'})`, { cause: err });
}

function label(file: string): string {
  return file === '-' ? 'standard input' : file;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
