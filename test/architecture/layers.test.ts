// The dependency rule of docs/architecture.md, checked on every relative import in src/: arrows
// only run down the layers, the service and the wallet never import each other, the service's
// wings keep their order, no file-level import circle exists, and one file each talks to
// didcomm-node and to level. A new back-edge fails here, naming the import.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');

/** Bottom first. A module may import its own folder and any lower layer, never a layer above or beside it. */
const SRC_LAYERS: string[][] = [
  ['errors'],
  ['encoding', 'bounded', 'deep-freeze', 'clock', 'keyed-lock', 'wait', 'http-fetch', 'listen', 'json-depth', 'json-text', 'net', 'crash-point', 'make-dir', 'problem-details', 'own-entry'],
  ['crypto'],
  ['keys'],
  ['did'],
  ['didcomm'],
  ['conformance', 'credentials', 'store'],
  ['router'],
  ['protocols'],
  ['mediator'],
  ['service', 'wallet', 'harness'],
  ['testing'],
  ['fleet'],
  ['console'],
  ['cli'],
  ['index'],
];

/** The service's wings, bottom first (docs/architecture.md "src/service/"). */
const SERVICE_LAYERS: string[][] = [
  ['http'],
  ['config', 'net'],
  ['identity'],
  ['context'],
  ['auth'],
  ['seed', 'webhooks'],
  ['demo-tenant'],
  ['users'],
  ['issuance'],
  ['didcomm-seam'],
  ['deps'],
  ['didcomm'],
  ['routes'],
  ['app'],
];

interface Import {
  from: string;
  to: string;
  line: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function importsOf(file: string): { relative: Import[]; packages: string[] } {
  const text = readFileSync(file, 'utf8');
  const rel: Import[] = [];
  const packages: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/(?:from\s+|import\s*\(\s*|^import\s+)'([^']+)'/g)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) {
        const to = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts');
        rel.push({ from: relative(ROOT, file), to: relative(ROOT, to), line: i + 1 });
      } else packages.push(spec);
    }
  });
  return { relative: rel, packages };
}

/** The module a path belongs to under `base`: its first folder, or its file name without `.ts`. */
function moduleOf(path: string, base: string): string {
  const rest = relative(base, join(ROOT, path)).split('/');
  return rest.length > 1 ? rest[0]! : rest[0]!.replace(/\.ts$/, '');
}

function rankOf(layers: string[][], module: string): number {
  const i = layers.findIndex((l) => l.includes(module));
  if (i < 0) throw new Error(`module ${module} is in no layer: add it to the table in test/architecture/layers.test.ts`);
  return i;
}

function backEdges(imports: Import[], base: string, layers: string[][]): string[] {
  const bad: string[] = [];
  for (const imp of imports) {
    if (!imp.to.startsWith(relative(ROOT, base) + '/')) continue;
    const a = moduleOf(imp.from, base);
    const b = moduleOf(imp.to, base);
    if (a === b) continue;
    if (rankOf(layers, b) >= rankOf(layers, a)) bad.push(`${imp.from}:${imp.line} (${a}) imports ${imp.to} (${b})`);
  }
  return bad;
}

const files = sourceFiles(SRC);
const parsed = new Map(files.map((f) => [relative(ROOT, f), importsOf(f)]));
const allImports = [...parsed.values()].flatMap((p) => p.relative);

describe('the dependency rule', () => {
  it('every folder and top-level file of src/ is in a layer', () => {
    for (const f of parsed.keys()) expect(() => rankOf(SRC_LAYERS, moduleOf(f, SRC))).not.toThrow();
  });

  it('imports in src/ run only down the layers (service and wallet meet only on the wire)', () => {
    expect(backEdges(allImports, SRC, SRC_LAYERS)).toEqual([]);
  });

  it('the mediator is a party of its own: wallets and the harness reach it only on the wire', () => {
    const reach = allImports.filter((i) => /^src\/(wallet|harness)\//.test(i.from) && i.to.startsWith('src/mediator/'));
    expect(reach.map((i) => `${i.from}:${i.line} imports ${i.to}`)).toEqual([]);
  });

  it("the service's wings import only lower wings", () => {
    const service = join(SRC, 'service');
    const inService = allImports.filter((i) => i.from.startsWith('src/service/'));
    expect(backEdges(inService, service, SERVICE_LAYERS)).toEqual([]);
  });

  it('no import circle between files', () => {
    const graph = new Map<string, string[]>();
    for (const [f, p] of parsed) graph.set(f, p.relative.map((i) => i.to).filter((t) => parsed.has(t)));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (f: string): void => {
      state.set(f, 'open');
      stack.push(f);
      for (const t of graph.get(f)!) {
        if (state.get(t) === 'open') cycles.push([...stack.slice(stack.indexOf(t)), t].join(' → '));
        else if (!state.has(t)) visit(t);
      }
      stack.pop();
      state.set(f, 'done');
    };
    for (const f of graph.keys()) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  it('one file talks to didcomm-node, and only store/ talks to level', () => {
    const users = (pkg: RegExp) => [...parsed].filter(([, p]) => p.packages.some((s) => pkg.test(s))).map(([f]) => f);
    expect(users(/^didcomm-node$/)).toHaveLength(1);
    for (const f of users(/^(level|classic-level|memory-level|abstract-level)$/)) expect(f).toMatch(/^src\/store\//);
  });
});
