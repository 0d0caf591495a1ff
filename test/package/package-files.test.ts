// What the published package holds and needs: source maps that carry their sources (the package
// ships dist/, not src/), and dependencies whose `engines` accept every Node our `engines` does,
// so that `npm ci` on Node 20 prints no EBADENGINE warning.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(args[0]!, args.slice(1), { cwd: ROOT, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      done({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr });
    });
  });
}

function files(dir: string, ending: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? files(p, ending) : p.endsWith(ending) ? [p] : [];
  });
}

describe('the source maps the package ships', () => {
  let out: string;
  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'idsync-build-'));
    // The build as `npm ci` / `npm run build` runs it, into a folder of its own.
    const built = await run([process.execPath, join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', out]);
    expect(built.stdout + built.stderr).toBe('');
  });
  afterAll(() => rm(out, { recursive: true, force: true }));

  it('carry the TypeScript they were made from, since src/ is not in the package', () => {
    const maps = files(out, '.js.map');
    expect(maps.length).toBeGreaterThan(100);
    for (const file of maps) {
      const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[]; sourceRoot?: string; sourcesContent?: Array<string | null> };
      expect(map.sourcesContent?.length, file).toBe(map.sources.length);
      map.sources.forEach((source, i) => {
        const original = resolve(dirname(file), map.sourceRoot ?? '', source);
        expect(map.sourcesContent![i], `${file} → ${source}`).toBe(readFileSync(original, 'utf8'));
      });
    }
  });

  it('are packed without src/ (npm pack --dry-run)', async () => {
    const packed = await run(['npm', 'pack', '--dry-run', '--json', '--ignore-scripts']);
    expect(packed.code).toBe(0);
    const paths = (JSON.parse(packed.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
    expect(paths).toContain('package.json');
    expect(paths.filter((p) => p.startsWith('src/'))).toEqual([]);
    // The web console's own files ship; htmx comes with the runtime dependencies.
    expect(paths).toEqual(expect.arrayContaining(['assets/console/console.css', 'assets/console/narrow.css', 'assets/console/console.js']));
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies['htmx.org']).toBeDefined();
  });
});

describe("the dependencies' engines", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; dev?: boolean; optional?: boolean; engines?: { node?: string } | string[] }>;
  };
  const withEngines = Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && !Array.isArray(p.engines) && typeof p.engines?.node === 'string')
    .map(([path, p]) => ({ path, dev: p.dev === true, range: (p.engines as { node: string }).node }));

  it('of runtime dependencies accept every Node version the package claims', () => {
    const ours = pkg.engines.node;
    expect(semver.validRange(ours)).not.toBeNull();
    const refusing = withEngines.filter((d) => !d.dev && !semver.subset(ours, d.range)).map((d) => `${d.path} wants node ${d.range}`);
    expect(refusing).toEqual([]);
  });

  it('of everything npm ci installs accept the oldest Node the package claims and this one (no EBADENGINE)', () => {
    const oldest = semver.minVersion(pkg.engines.node)!.version;
    // Platform packages of other systems are in the lock but never installed here.
    const installed = withEngines.filter((d) => existsSync(join(ROOT, d.path, 'package.json')));
    expect(installed.length).toBeGreaterThan(10);
    const refusing = installed
      .filter((d) => !semver.satisfies(oldest, d.range) || !semver.satisfies(process.version, d.range))
      .map((d) => `${d.path} wants node ${d.range}`);
    expect(refusing).toEqual([]);
  });
});
