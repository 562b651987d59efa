import { describe, expect, it, vi } from 'vitest';
import { Parser } from 'yaml';
import { parseYaml } from '../../src/core/text/yaml.js';
import { MAX_YAML_NESTING } from '../../src/core/text/yaml-nesting.js';
import { memPack } from '../helpers.js';

const MESSAGE = 'nested deeper than 100 levels (the most a YAML file may nest)';

/** `n` block mappings, one inside the other: `a:` at indent 0, 1, 2, …, the last holding 1. */
function blockMaps(n: number): string {
  return `${Array.from({ length: n }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1\n`;
}

describe('YAML nesting limit', () => {
  it('is 100 levels', () => {
    expect(MAX_YAML_NESTING).toBe(100);
  });

  it.each([
    ['flow sequences', (n: number) => `${'['.repeat(n)}${']'.repeat(n)}\n`, { line: 1, col: 101 }],
    [
      'flow mappings in a mapping',
      (n: number) => `x: ${'{a: '.repeat(n - 1)}1${'}'.repeat(n - 1)}\n`,
      { line: 1, col: 400 },
    ],
    ['block mappings', blockMaps, { line: 101, col: 101 }],
    [
      'block sequences',
      (n: number) => `${Array.from({ length: n }, (_, i) => `${'  '.repeat(i)}-`).join('\n')} 1\n`,
      { line: 101, col: 201 },
    ],
  ])('%s: 100 levels parse, 101 are YAML_SYNTAX at the first collection past the limit', (_, make, at) => {
    expect(parseYaml(make(100), { file: 'f.yaml' }).diagnostics).toEqual([]);
    expect(parseYaml(make(101), { file: 'f.yaml' }).diagnostics).toEqual([
      { code: 'YAML_SYNTAX', severity: 'error', message: MESSAGE, file: 'f.yaml', ...at },
    ]);
  });

  it('thousands of levels are the same plain error, not a stack overflow', () => {
    for (const text of [`${'['.repeat(10_000)}\n`, blockMaps(1500), `${'- '.repeat(20_000)}1\n`]) {
      const parsed = parseYaml(text, { file: 'f.yaml' });
      expect(parsed.diagnostics.map((d) => [d.code, d.message])).toEqual([['YAML_SYNTAX', MESSAGE]]);
      expect(parsed.value).toBeUndefined();
      expect(parsed.locate(['a'])).toMatchObject({ file: 'f.yaml' });
    }
  });

  it.each([
    ['flow sequences', `x: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`, { line: 1, col: 103 }],
    ['an unclosed flow sequence', `x: ${'['.repeat(100_000)}\n`, { line: 1, col: 103 }],
    ['flow mappings', `x: ${'{a: '.repeat(100_000)}\n`, { line: 1, col: 400 }],
    ['block sequences on one line', `${'- '.repeat(100_000)}1\n`, { line: 1, col: 201 }],
  ])(
    '%s nested far past the limit are read only up to it, not a parser token for every level',
    (_, text, at) => {
      const next = vi.spyOn(Parser.prototype, 'next');
      try {
        const parsed = parseYaml(text, { file: 'f.yaml' });
        expect(parsed.diagnostics).toEqual([
          { code: 'YAML_SYNTAX', severity: 'error', message: MESSAGE, file: 'f.yaml', ...at },
        ]);
        // Each level is a lexeme or two (`[`, or `{`, `a`, `:` and a space): the parse stops
        // at the first past the limit.
        expect(next.mock.calls.length).toBeLessThanOrEqual(5 * (MAX_YAML_NESTING + 1));
      } finally {
        next.mockRestore();
      }
    },
  );

  it('frontmatter nested too deep is BAD_FRONTMATTER with its line in the file', () => {
    const parsed = parseYaml(`k: ${'['.repeat(200)}`, {
      file: 'a.md',
      lineOffset: 1,
      syntaxCode: 'BAD_FRONTMATTER',
    });
    expect(parsed.diagnostics).toEqual([
      { code: 'BAD_FRONTMATTER', severity: 'error', message: MESSAGE, file: 'a.md', line: 2, col: 103 },
    ]);
  });

  it.each([
    [
      'manifest',
      { 'strata.yaml': `extends: chorus\ndescription: ${'['.repeat(5000)}\n` },
      'strata.yaml',
      'YAML_SYNTAX',
    ],
    [
      'role registry',
      { 'base.md': 'Base.\n', 'roles.yaml': `roles:\n  a: ${'['.repeat(5000)}\n` },
      'roles.yaml',
      'YAML_SYNTAX',
    ],
    [
      'fleet',
      { 'base.md': 'Base.\n', 'fleet.yaml': `agents: ${'['.repeat(5000)}\n` },
      'fleet.yaml',
      'YAML_SYNTAX',
    ],
    [
      'frontmatter',
      { 'base.md': 'Base.\n', 'roles/a.md': `---\ntags: ${'['.repeat(5000)}\n---\nBody.\n` },
      'roles/a.md',
      'BAD_FRONTMATTER',
    ],
  ])('a pack whose %s is nested too deep loads into that diagnostic', (_, files, file, code) => {
    const result = memPack(files);
    expect(result.diagnostics).toContainEqual(expect.objectContaining({ code, file, message: MESSAGE }));
    expect(JSON.stringify(result.diagnostics)).not.toContain('call stack');
  });
});
