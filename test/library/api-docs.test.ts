import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

// The library's documented API is its exported API: docs/library.md, "Every export",
// lists the values of each entry of the package, and a function the docs call by name
// (`name(…)` in README.md, docs/library.md or docs/tokens.md) is one of them.

const ENTRIES: Record<string, string> = {
  'strata-prompts': 'index',
  'strata-prompts/runtime': 'runtime',
  'strata-prompts/client': 'client',
  'strata-prompts/server': 'server',
  'strata-prompts/mcp': 'mcp',
  'strata-prompts/cli': 'cli',
  'strata-prompts/tooling': 'tooling',
};
const LIBRARY = readFileSync(join(ROOT, 'docs/library.md'), 'utf8');

describe('docs/library.md', () => {
  it('names every entry of the exports map', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const entries = Object.keys(pkg.exports)
      .filter((k) => k !== './package.json')
      .map((k) => (k === '.' ? 'strata-prompts' : `strata-prompts/${k.slice(2)}`));
    expect(entries.sort()).toEqual(Object.keys(ENTRIES).sort());
    expect(Object.keys(documented()).sort()).toEqual(Object.keys(ENTRIES).sort());
  });

  it.each(Object.entries(ENTRIES))('lists exactly the values %s exports', async (entry, file) => {
    const module = (await import(`../../src/${file}.ts`)) as Record<string, unknown>;
    expect(documented()[entry]).toEqual(Object.keys(module).sort());
  });

  it('calls by name only functions the package exports', async () => {
    const exported = new Set<string>();
    for (const file of Object.values(ENTRIES))
      for (const name of Object.keys(await import(`../../src/${file}.ts`))) exported.add(name);
    const called = new Set<string>();
    for (const doc of ['README.md', 'docs/library.md', 'docs/tokens.md'])
      for (const m of readFileSync(join(ROOT, doc), 'utf8').matchAll(/`([a-z][A-Za-z0-9]*)\(/g))
        called.add(m[1]!);
    const unknown = [...called].filter((name) => !exported.has(name) && !GLOBALS.has(name));
    expect(unknown).toEqual([]);
  });
});

// --- internal ---

/** Functions of the platform and methods the docs call that are no export of the package. */
const GLOBALS = new Set(['structuredClone', 'import', 'get', 'fetch']);

/** The names of each entry's table under "Every export", sorted. */
function documented(): Record<string, string[]> {
  const section = LIBRARY.slice(LIBRARY.indexOf('\n## Every export'));
  const out: Record<string, string[]> = {};
  let entry: string | undefined;
  for (const line of section.split('\n')) {
    const heading = /^### `([^`]+)`/.exec(line);
    if (heading) {
      entry = heading[1]!;
      out[entry] = [];
      continue;
    }
    const row = /^\| `([A-Za-z_][A-Za-z0-9_]*)` \|/.exec(line);
    if (row && entry) out[entry]!.push(row[1]!);
  }
  for (const names of Object.values(out)) names.sort();
  return out;
}
