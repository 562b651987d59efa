import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { parseYaml } from '../../src/core/text/yaml.js';
import { NOT_SIMPLE, parseSimpleYaml } from '../../src/engine/fast/yaml-simple.js';

// The simple-YAML reader must agree with the `yaml` package wherever it answers: the same
// value (deep, with the same key order), no problem the package would report, and the
// same positions from `locate`.

/** What the full parser makes of a text: its value, or that it reports a problem. */
function reference(text: string): { value?: unknown; problem: boolean } {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, strict: true });
  if (doc.errors.length > 0) return { problem: true };
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }), problem: false };
  } catch {
    return { problem: true };
  }
}

function agrees(text: string): void {
  const simple = parseSimpleYaml(text);
  if (simple === NOT_SIMPLE) return;
  const full = reference(text);
  expect(full.problem, JSON.stringify(text)).toBe(false);
  expect(simple, JSON.stringify(text)).toStrictEqual(full.value);
  expect(JSON.stringify(simple)).toBe(JSON.stringify(full.value));
  // Given the text's bytes (plain ASCII text), values are copied out of them: the same values.
  const bytes = new TextEncoder().encode(text);
  if (bytes.length === text.length)
    expect(parseSimpleYaml(text, bytes), JSON.stringify(text)).toStrictEqual(simple);
}

describe('parseSimpleYaml', () => {
  it.each([
    ['name: Ada\n', { name: 'Ada' }],
    ['', null],
    ['\n# only a comment\n\n', null],
    ['a:\n', { a: null }],
    ['a:  spaced out\nb: x, y and z.\n', { a: 'spaced out', b: 'x, y and z.' }],
    ['tags: [dev, ops team]\nnone: []\n', { tags: ['dev', 'ops team'], none: [] }],
    [
      'n: 3\nf: 0.25\nz: 007\nt: true\nF: FALSE\nu: Null\n',
      { n: 3, f: 0.25, z: 7, t: true, F: false, u: null },
    ],
    [
      '# registry\nroles:\n  dev:\n    name: Dev\n\n    tags: [a]\n  qa:\n    name: QA\nother: x\n',
      { roles: { dev: { name: 'Dev', tags: ['a'] }, qa: { name: 'QA' } }, other: 'x' },
    ],
    ['a:\nb: 1', { a: null, b: 1 }],
    ['desc: Unïcødé — ok\n', { desc: 'Unïcødé — ok' }],
  ])('%j reads as the yaml package does', (text, expected) => {
    expect(parseSimpleYaml(text)).toStrictEqual(expected);
    agrees(text);
  });

  it.each([
    'name: "quoted"\n',
    "name: 'quoted'\n",
    'a: b # trailing comment\n',
    'a: b\na: c\n',
    'a:\tb\n',
    'a: b\r\n',
    'a: b\n  continued\n',
    'a: x: y\n',
    '---\na: b\n',
    '- a\n',
    '  a: b\n',
    'a: [x,y]\n',
    'a: [x, null]\n',
    'a: &anchor b\n',
    'a: -1\n',
    'a: 1e3\n',
    'a: .inf\n',
    'a: |\n  text\n',
    'a: {b: c}\n',
    'a: b \n',
    '__proto__: x\n',
    'null: x\n',
    'a:\n    b: 1\n  c: 2\n',
    // An implicit key longer than YAML allows (1024 characters) is an error there.
    `${'k'.repeat(1100)}: v\n`,
  ])('%j is left to the full parser', (text) => {
    expect(parseSimpleYaml(text)).toBe(NOT_SIMPLE);
  });

  it('keeps the order and values of a mapping with thousands of keys (a registry)', () => {
    const text = `roles:\n${Array.from({ length: 3000 }, (_, i) => `  r${(i * 7919) % 3000}:\n    name: Role ${i}\n    tags: [t${i % 7}]\n`).join('')}`;
    const value = parseSimpleYaml(text) as { roles: Record<string, unknown> };
    expect(value).not.toBe(NOT_SIMPLE);
    agrees(text);
    expect(Object.keys(value.roles).slice(0, 3)).toEqual(['r0', 'r1919', 'r838']);
  });

  it('agrees with the yaml package on generated texts (property)', () => {
    const chars = fc.constantFrom(
      ...'aZq09 _-.,:#[]{}\'"!&*?|>%@`~\t\r\\/()=+;<ü—\u00a0\u0085\u2028\ufeff😀'.split(''),
      ...['😀', 'e', 'x', ' '],
    );
    const word = fc.string({ unit: chars, minLength: 0, maxLength: 12 });
    const key = fc.oneof(
      fc.constantFrom('name', 'description', 'tags', 'model', 'max_tasks', 'a-b', 'null', 'True', 'x'),
      word,
    );
    const scalar = fc.oneof(
      word,
      fc.constantFrom(
        'Role 1',
        'null',
        'NULL',
        'true',
        'False',
        '3',
        '0.5',
        '007',
        '1.',
        '1e3',
        '-1',
        'a: b',
      ),
      fc.array(word, { maxLength: 4 }).map((items) => `[${items.join(', ')}]`),
      fc.array(word, { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
    );
    const line = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.tuple(fc.nat({ max: 6 }), key, scalar).map(([n, k, v]) => `${' '.repeat(n)}${k}: ${v}`),
      },
      { weight: 2, arbitrary: fc.tuple(fc.nat({ max: 6 }), key).map(([n, k]) => `${' '.repeat(n)}${k}:`) },
      { weight: 1, arbitrary: fc.tuple(fc.nat({ max: 4 }), word).map(([n, w]) => `${' '.repeat(n)}#${w}`) },
      { weight: 1, arbitrary: fc.constantFrom('', '  ', '---', '- x') },
    );
    let answered = 0;
    fc.assert(
      fc.property(fc.array(line, { maxLength: 10 }), fc.boolean(), (lines, newline) => {
        const text = lines.join('\n') + (newline ? '\n' : '');
        if (parseSimpleYaml(text) !== NOT_SIMPLE) answered++;
        agrees(text);
      }),
      { numRuns: 3000 },
    );
    // Enough generated texts take the fast path for the comparison to mean something.
    expect(answered).toBeGreaterThan(300);
  });

  it('answers most generated texts without the full parser (the generator reaches the fast path)', () => {
    const texts = fc.sample(
      fc
        .array(
          fc.tuple(fc.constantFrom('name', 'model', 'x'), fc.constantFrom('Ada', 'model-a', '3', '[a, b]')),
          { minLength: 1, maxLength: 5 },
        )
        .map((pairs) => [...new Map(pairs)].map(([k, v]) => `${k}: ${v}`).join('\n')),
      50,
    );
    for (const t of texts) {
      expect(parseSimpleYaml(t)).not.toBe(NOT_SIMPLE);
      agrees(t);
    }
  });
});

describe('parseYaml', () => {
  it('gives the same value, diagnostics and positions on the fast path as the full parser', () => {
    const text = '# c\nroles:\n  dev:\n    name: Dev\n    tags: [a, b]\n  qa:\n    name: QA\n';
    const fast = parseYaml(text, { file: 'roles.yaml', lineOffset: 1 });
    const full = parseYaml(`${text}x: "quoted"\n`, { file: 'roles.yaml', lineOffset: 1 });
    expect(fast.diagnostics).toEqual([]);
    expect(fast.value).toStrictEqual({
      roles: { dev: { name: 'Dev', tags: ['a', 'b'] }, qa: { name: 'QA' } },
    });
    for (const [path, key] of [
      [['roles', 'qa'], true],
      [['roles', 'dev', 'tags', 1], false],
      [['roles', 'missing'], false],
      [[], false],
    ] as const) {
      expect(fast.locate(path, key)).toEqual(full.locate(path, key));
    }
    expect(fast.locate(['roles', 'qa'], true)).toEqual({ file: 'roles.yaml', line: 7, col: 3 });
  });

  it('still reports duplicate keys and syntax errors with their positions', () => {
    const dup = parseYaml('a: 1\nb: 2\na: 3\n', { file: 'f.yaml' });
    expect(dup.diagnostics.map((d) => [d.code, d.line, d.col])).toEqual([['YAML_SYNTAX', 3, 1]]);
    const bad = parseYaml('a: [1\n', { file: 'f.md', lineOffset: 1, syntaxCode: 'BAD_FRONTMATTER' });
    expect(bad.diagnostics[0]?.code).toBe('BAD_FRONTMATTER');
  });
});
