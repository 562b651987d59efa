import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

// The core is the reference: no state of its own and no layout by name (src/core/README.md).

const CORE = join(ROOT, 'src', 'core');

function coreFiles(): string[] {
  return readdirSync(CORE, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** Top-level statements that hold state: a `let`/`var`, or a collection made at module level. */
const MODULE_STATE =
  /^(?:export\s+)?(?:let|var)\s|^(?:export\s+)?const\s+[\w$]+(?:\s*:[^=]+)?\s*=\s*new\s+(?:Map|Set|WeakMap|WeakSet|WeakRef|Array|[A-Z]\w*Cache)\b/;

/** The names of the layouts, in any case, as code or prose would write them. */
const LAYOUT_NAMES = /crewai|claude[- ]?(?:agents|code)|\.claude\b|agents[-.]md|roboco|chorus|codex/i;

describe('src/core', () => {
  it('holds no module-level state: no top-level let or var, no collection made at module level', () => {
    const found: string[] = [];
    for (const file of coreFiles())
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (MODULE_STATE.test(line)) found.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
        });
    expect(found).toEqual([]);
  });

  it('names no layout, in code or comments', () => {
    const found: string[] = [];
    for (const file of coreFiles())
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (LAYOUT_NAMES.test(line)) found.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
        });
    expect(found).toEqual([]);
  });

  it('the checks see what they look for (a sample of each)', () => {
    expect(MODULE_STATE.test('let current = 0;')).toBe(true);
    expect(MODULE_STATE.test('const memo = new WeakMap<Snapshot, X>();')).toBe(true);
    expect(MODULE_STATE.test('export const cache: Map<string, number> = new Map();')).toBe(true);
    expect(MODULE_STATE.test('  let inside = 0;')).toBe(false);
    expect(LAYOUT_NAMES.test('the CrewAI template')).toBe(true);
    expect(LAYOUT_NAMES.test('nested AGENTS.md files')).toBe(true);
  });
});
