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
  } catch (err) {
    throw new IdsyncError('invalid_json', `${label(file)} is not JSON (${(err as Error).message})`, { cause: err });
  }
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
