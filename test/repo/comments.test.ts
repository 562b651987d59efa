import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

// Comment conventions the compiler cannot check. A `/** … */` block attaches to the
// declaration after it, blank line or not: a block that describes the file must be `//`
// lines (or carry `@packageDocumentation`), or editors show it as the first export's doc.

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|js)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

describe('source comments', () => {
  it('no JSDoc block is followed by a blank line (a file comment is // lines)', () => {
    const found: string[] = [];
    for (const file of [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'bin'))]) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\/\*\*[\s\S]*?\*\/\n[ \t]*\n/g)) {
        if (m[0].includes('@packageDocumentation')) continue;
        const line = text.slice(0, m.index).split('\n').length;
        found.push(`${relative(ROOT, file)}:${line}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('cite the README or docs/, not a document outside the repository', () => {
    const found: string[] = [];
    for (const file of sources(join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      if (/\bSPEC\b/.test(text)) found.push(relative(ROOT, file));
    }
    expect(found).toEqual([]);
  });
});
