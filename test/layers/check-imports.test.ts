import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkImports } from '../../scripts/check-imports.js';
import { ROOT, tempDir } from '../helpers.js';

/** A copy of src/ to break. */
function copyOfSrc(): string {
  const src = join(tempDir('strata-imports-'), 'src');
  cpSync(join(ROOT, 'src'), src, { recursive: true });
  return src;
}

describe('scripts/check-imports.ts (npm run check:imports, part of npm test)', () => {
  it('finds nothing in src/: no cycle, every import points down', () => {
    expect(checkImports(join(ROOT, 'src'))).toEqual([]);
  });

  it('exits 1 on an import cycle, even a type-only one inside one folder', () => {
    const src = copyOfSrc();
    writeFileSync(join(src, 'core', 'a.ts'), "import { b } from './b.js';\nexport const a = b;\n");
    writeFileSync(
      join(src, 'core', 'b.ts'),
      "import type { a } from './a.js';\nexport const b: typeof a = 1;\n",
    );
    expect(checkImports(src)).toEqual(['import cycle: core/a.ts -> core/b.ts -> core/a.ts']);
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'scripts', 'check-imports.ts'), src],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('import cycle: core/a.ts -> core/b.ts -> core/a.ts\n');
  });

  it('finds an import that points up the layers, naming the rule', () => {
    const src = copyOfSrc();
    writeFileSync(
      join(src, 'tokens', 'extra.ts'),
      "import type { LintCheck } from '../tooling/lint/lint-check.js';\n",
    );
    expect(checkImports(src)).toEqual([
      'tokens/extra.ts: imports tooling/lint/lint-check.ts: tokens/ may import core, engine, layouts (tokens/README.md), not tooling/lint/',
    ]);
  });

  it('fails a core file importing the engine, and a layout importing the server', () => {
    const src = copyOfSrc();
    appendFileSync(
      join(src, 'core', 'text', 'suggest.ts'),
      "\nimport type { ByteCache } from '../../engine/byte-cache.js';\n",
    );
    appendFileSync(
      join(src, 'layouts', 'crewai', 'layout.ts'),
      "\nimport type { HostPolicy } from '../../server/service/host-policy.js';\n",
    );
    expect(checkImports(src)).toEqual([
      'core/text/suggest.ts: imports engine/byte-cache.ts: core/ may import no folder (core/README.md), not engine/',
      'layouts/crewai/layout.ts: imports server/service/host-policy.ts: layouts/crewai/ may import core (layouts/crewai/README.md), not server/service/',
    ]);
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'scripts', 'check-imports.ts'), src],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(1);
  });

  it('finds a package a folder may not load, and a folder without its README line', () => {
    const src = copyOfSrc();
    appendFileSync(join(src, 'client', 'sse.ts'), "\nimport 'hono';\n");
    writeFileSync(join(src, 'tooling', 'verbs', 'README.md'), '# verbs\n');
    expect(checkImports(src)).toEqual([
      'client/sse.ts: imports the package hono: client/ may import the packages none (client/README.md)',
      'tooling/verbs/README.md: no "May import:" line',
    ]);
  });
});

describe('scripts/gen-presets.ts', () => {
  it("src/layouts/preset-texts.ts is current with every layout's preset.yaml", () => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'scripts', 'gen-presets.ts'), '--check'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
