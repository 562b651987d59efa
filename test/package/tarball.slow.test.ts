import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The package as a user gets it: `npm pack` (which builds through `prepack`), installed
 * into a fresh project from the local npm cache only, then its command run and every
 * entry point of its `exports` map imported.
 */

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

let work: string;
let project: string;
let tarball: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'strata-tarball-'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string }>;
  tarball = join(work, info[0]!.filename);
  project = join(work, 'app');
  await run('mkdir', ['-p', project]);
  // A lockfile made of the package and this repository's locked production dependencies,
  // so `npm ci --offline` installs from the npm cache alone (no registry metadata needed).
  const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; version?: string; dependencies?: Record<string, string> }>;
  };
  const root = lock.packages['']!;
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name: 'app', version: '1.0.0', dependencies: { 'strata-prompts': spec } },
    'node_modules/strata-prompts': {
      version: root.version,
      resolved: spec,
      license: 'MIT',
      dependencies: root.dependencies,
      bin: { strata: 'dist/bin/strata.js' },
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path !== '' && !entry.dev) packages[path] = entry;
  }
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'app',
      version: '1.0.0',
      private: true,
      type: 'module',
      dependencies: { 'strata-prompts': spec },
    }),
  );
  await writeFile(
    join(project, 'package-lock.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages }),
  );
  await run('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: project,
    maxBuffer: 64 * 1024 * 1024,
  });
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('is named strata-prompts, ships the build, the licence and no tests', async () => {
    const installed = join(project, 'node_modules/strata-prompts');
    const pkg = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('strata-prompts');
    expect(pkg.bin).toEqual({ strata: 'dist/bin/strata.js' });
    expect(pkg.license).toBe('MIT');
    expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toContain(
      'Copyright (c) 2026 the strata authors',
    );
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean);
    expect(files).toContain('package/dist/src/index.js');
    expect(files).toContain('package/dist/bin/strata.js');
    expect(files.filter((f) => /\.test\.|\/test\//.test(f))).toEqual([]);
  });

  it('runs the strata command', async () => {
    const bin = join(project, 'node_modules/.bin/strata');
    const version = await run(bin, ['--version'], { cwd: project });
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect(version.stdout.trim()).toBe(pkg.version);
    const composed = await run(bin, ['compose', '--dir', join(ROOT, 'examples/roboco'), '--agent', 'ada'], {
      cwd: project,
    });
    expect(composed.stdout.length).toBeGreaterThan(100);
  });

  it('imports every entry point of its exports map', async () => {
    const pkg = JSON.parse(
      await readFile(join(project, 'node_modules/strata-prompts/package.json'), 'utf8'),
    ) as { exports: Record<string, unknown> };
    const entries = Object.keys(pkg.exports).filter((k) => !k.includes('*'));
    expect(entries).toContain('.');
    const specifiers = entries.map((k) => (k === '.' ? 'strata-prompts' : `strata-prompts/${k.slice(2)}`));
    const script = `
      const out = {};
      for (const s of ${JSON.stringify(specifiers)})
        out[s] = Object.keys(await import(s, s.endsWith('.json') ? { with: { type: 'json' } } : undefined)).length;
      console.log(JSON.stringify(out));`;
    await writeFile(join(project, 'imports.mjs'), script);
    const { stdout } = await run(process.execPath, ['imports.mjs'], { cwd: project });
    const counts = JSON.parse(stdout) as Record<string, number>;
    for (const s of specifiers) expect(counts[s], s).toBeGreaterThan(0);
    // The types of each entry are shipped where the map says.
    for (const key of entries) {
      const target = pkg.exports[key];
      const types =
        typeof target === 'object' && target !== null ? (target as Record<string, string>).types : undefined;
      if (types) await readFile(join(project, 'node_modules/strata-prompts', types), 'utf8');
    }
  });
});
