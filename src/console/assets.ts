// The console's static files, all from the installed package (nothing from the network): htmx and
// its SSE extension from node_modules/htmx.org, the console's own stylesheet and script from
// assets/console/ (shipped in the package's "files"). A fixed list: no path from a request
// reaches the file system. Read once, then served from memory.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

interface Asset {
  file: string;
  type: string;
}

const require = createRequire(import.meta.url);
// src/console/ and dist/console/ both sit two levels under the package root.
const own = (name: string) => fileURLToPath(new URL(`../../assets/console/${name}`, import.meta.url));

export const ASSETS: Readonly<Record<string, Asset>> = {
  'htmx.js': { file: require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript; charset=utf-8' },
  'hx-sse.js': { file: require.resolve('htmx.org/dist/ext/hx-sse.min.js'), type: 'text/javascript; charset=utf-8' },
  'console.js': { file: own('console.js'), type: 'text/javascript; charset=utf-8' },
  'console.css': { file: own('console.css'), type: 'text/css; charset=utf-8' },
  'narrow.css': { file: own('narrow.css'), type: 'text/css; charset=utf-8' },
};

const cache = new Map<string, Promise<Buffer>>();

/** The bytes and media type of a listed asset, or undefined for any other name. */
export async function readAsset(name: string): Promise<{ body: Buffer; type: string } | undefined> {
  if (!Object.hasOwn(ASSETS, name)) return undefined;
  const a = ASSETS[name]!;
  let body = cache.get(name);
  if (!body) {
    body = readFile(a.file);
    cache.set(name, body);
    body.catch(() => cache.delete(name));
  }
  return { body: await body, type: a.type };
}
