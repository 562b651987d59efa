import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';

// Every example pack validates without an error, and warns exactly as examples/README.md
// says it does (the table "What `strata validate` says about each"): a new warning in an
// example, or a warning the README explains that no longer happens, fails here.

const EXAMPLES = resolve(import.meta.dirname, '../../examples');
const packs = readdirSync(EXAMPLES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

describe('the example packs', () => {
  it('are all in the README table', () => {
    expect(Object.keys(explained()).sort()).toEqual(packs);
  });

  it.each(packs)('%s validates with exactly the warnings its README row names', async (pack) => {
    const r = await cli(['validate', '--dir', join(EXAMPLES, pack), '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      errors: number;
      diagnostics: Array<{ code: string; severity: string }>;
    };
    expect(out.errors).toBe(0);
    const warned = [...new Set(out.diagnostics.filter((d) => d.severity === 'warning').map((d) => d.code))];
    expect(warned.sort()).toEqual(explained()[pack]);
  });
});

// --- internal ---

/** The warning codes each pack's row of the validate table names (its second column). */
function explained(): Record<string, string[]> {
  const text = readFileSync(join(EXAMPLES, 'README.md'), 'utf8');
  const section = text.slice(text.indexOf('## What `strata validate` says'));
  const rows: Record<string, string[]> = {};
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || cells[1] === 'pack' || !/^[a-z][a-z-]*$/.test(cells[1] ?? '')) continue;
    rows[cells[1]!] = [...(cells[2] ?? '').matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!).sort();
  }
  return rows;
}
