import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { parseYaml } from '../../src/core/text/yaml.js';
import { fastYaml, NOT_SIMPLE, parseSimpleYaml, simpleYamlFails } from '../../src/engine/fast/yaml-simple.js';

// The simple-YAML reader must agree with the `yaml` package wherever it answers: the same
// value (deep, with the same key order), no problem the package would report, and the
// same positions from `locate`.

/**
 * What the full parser makes of a text: its value, or that it reports a problem. The
 * `yaml` package's own reading, and the core's parse without a fast reader (which reads a
 * block scalar that ends the file as PyYAML does, among other things) must both agree.
 */
function reference(text: string): { value?: unknown; problem: boolean } {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, strict: true });
  if (doc.errors.length > 0) return { problem: true };
  const core = parseYaml(text, { file: 'f.yaml' });
  if (core.diagnostics.length > 0) return { problem: true };
  return { value: core.value, problem: false };
}

/** Generated texts the simple reader judged certainly refused (each checked in `agrees`). */
let judgedRefused = 0;

function agrees(text: string): void {
  // Text judged certainly refused is refused by the full parser.
  if (simpleYamlFails(text)) {
    judgedRefused++;
    expect(reference(text).problem, JSON.stringify(text)).toBe(true);
  }
  const simple = parseSimpleYaml(text);
  if (simple === NOT_SIMPLE) return;
  const full = reference(text);
  expect(full.problem, JSON.stringify(text)).toBe(false);
  expect(simple, JSON.stringify(text)).toStrictEqual(full.value);
  expect(JSON.stringify(simple)).toBe(JSON.stringify(full.value));
  // A text read here types no plain word otherwise than PyYAML: the same value read so.
  const py = parseYaml(text, { file: 'f.yaml', scalars: 'pyyaml' });
  expect(py.diagnostics, JSON.stringify(text)).toEqual([]);
  expect(py.value, JSON.stringify(text)).toStrictEqual(simple);
  // Given the text's bytes (plain ASCII text), values are copied out of them: the same values.
  const bytes = new TextEncoder().encode(text);
  if (bytes.length === text.length)
    expect(parseSimpleYaml(text, bytes), JSON.stringify(text)).toStrictEqual(simple);
}

describe('parseSimpleYaml', () => {
  it.each([
    'role: yes\n',
    'role: Off\n',
    'on: x\n',
    'tags: [a, NO]\n',
    'c: { t: ON }\n',
    'n: 017\n',
    'n: 08\n',
    '- yes\n',
  ])('leaves %j to the full parser: PyYAML types a word in it otherwise', (text) => {
    expect(parseSimpleYaml(text)).toBe(NOT_SIMPLE);
  });

  it.each([
    ['name: Ada\n', { name: 'Ada' }],
    ['', null],
    ['\n# only a comment\n\n', null],
    ['a:\n', { a: null }],
    ['a:  spaced out\nb: x, y and z.\n', { a: 'spaced out', b: 'x, y and z.' }],
    ['tags: [dev, ops team]\nnone: []\n', { tags: ['dev', 'ops team'], none: [] }],
    [
      'n: 3\nf: 0.25\nz: 7.50\nt: true\nF: FALSE\nu: Null\n',
      { n: 3, f: 0.25, z: 7.5, t: true, F: false, u: null },
    ],
    [
      '# registry\nroles:\n  dev:\n    name: Dev\n\n    tags: [a]\n  qa:\n    name: QA\nother: x\n',
      { roles: { dev: { name: 'Dev', tags: ['a'] }, qa: { name: 'QA' } }, other: 'x' },
    ],
    ['a:\nb: 1', { a: null, b: 1 }],
    ['desc: Unïcødé — ok\n', { desc: 'Unïcødé — ok' }],
    ['a: {b: c}\n', { a: { b: 'c' } }],
    [
      'config: { temperature: 0.2, max_tasks: 2, fast: true, none: null }\n',
      {
        config: { temperature: 0.2, max_tasks: 2, fast: true, none: null },
      },
    ],
    ['e: {}\n', { e: {} }],
    [
      'agents:\n  - id: ada\n    role: developer\n\n  # a comment\n  - id: grace\n    config: { temperature: 0 }\nn: 1\n',
      {
        agents: [
          { id: 'ada', role: 'developer' },
          { id: 'grace', config: { temperature: 0 } },
        ],
        n: 1,
      },
    ],
    [
      'agents:\n- id: ada\n- plain\n- [a, b]\n- 3\nnext: x\n',
      { agents: [{ id: 'ada' }, 'plain', ['a', 'b'], 3], next: 'x' },
    ],
    ['a:\n- b:\n  - c\n  - d\n- e: f\n', { a: [{ b: ['c', 'd'] }, { e: 'f' }] }],
    ['a:\n  -   id: x\n      role: y\n', { a: [{ id: 'x', role: 'y' }] }],
    [
      'a: >\n  {topic} Analyst \n  and more\n\n  next: line\nb: |\n  x # c\n\n  y\n\n',
      { a: '{topic} Analyst  and more\nnext: line\n', b: 'x # c\n\ny\n' },
    ],
    [
      'version: 0.18.0\nv: 1.2.3.4\nw: 01.02.030\nx: { v: 2.0.1 }\n',
      { version: '0.18.0', v: '1.2.3.4', w: '01.02.030', x: { v: '2.0.1' } },
    ],
  ])('%j reads as the yaml package does', (text, expected) => {
    expect(parseSimpleYaml(text)).toStrictEqual(expected);
    agrees(text);
  });

  it.each([
    'name: "quoted\\n"\n',
    "name: 'quoted'\n",
    'a: b # trailing comment\n',
    'a: b\na: c\n',
    'a:\tb\n',
    'a: b\r\n',
    'a: b\n  continued\n',
    'a: x: y\n',
    '---\na: b\n',
    '- a\n',
    'a:\n-\n  b: c\n',
    'a:\n- b\n  c\n',
    'a:\n  - b\n  c: d\n',
    'a:\n- b: 1\n   c: 2\n',
    'a:\n- - b\n',
    'a: {b: {c: d}}\n',
    'a: {b: c,d: e}\n',
    'a: {b: c, b: d}\n',
    'a: {b:c}\n',
    '  a: b\n',
    'a: [x,y]\n',
    'a: [x, null]\n',
    'a: &anchor b\n',
    'a: -1\n',
    'a: 1e3\n',
    'a: 1.2.\n',
    'a: 1..2\n',
    'a: 1.2.3e4\n',
    'a: 1.2.3 # a version\n',
    'a: .inf\n',
    'a: |-\n  text\n',
    'a: >\n  text\n    deeper\n',
    'a: |\n\n  text after a blank line\n',
    'a: b \n',
    '__proto__: x\n',
    'null: x\n',
    'a:\n    b: 1\n  c: 2\n',
    // An implicit key longer than YAML allows (1024 characters) is an error there.
    `${'k'.repeat(1100)}: v\n`,
  ])('%j is left to the full parser', (text) => {
    expect(parseSimpleYaml(text)).toBe(NOT_SIMPLE);
  });

  it('reads a one-line double-quoted value whose only escapes are \\\\ and \\" (a lenient frontmatter quoted)', () => {
    const text = 'name: a\ndescription: "Use for task 6: reviews \\"and\\" C:\\\\ reports."\n';
    expect(parseSimpleYaml(text)).toStrictEqual({
      name: 'a',
      description: 'Use for task 6: reviews "and" C:\\ reports.',
    });
    agrees(text);
    for (const other of ['a: "x\\ty"\n', 'a: "x" \n', 'a: "x\n', 'a: "caf\u00e9"\n', 'a: "x\\"\n'])
      expect(parseSimpleYaml(other), other).toBe(NOT_SIMPLE);
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
        '0.18.0',
        '1.2.3.4',
        '1.2.x',
        '-1',
        'a: b',
        '"Use for task 6: reviews."',
        '""',
        '"a \\\\ b \\" c"',
        '"a \\n b"',
        '"a" # c',
        '"a"b"',
        '"ü"',
      ),
      word.map((w) => `"${w}"`),
      fc.array(word, { maxLength: 4 }).map((items) => `[${items.join(', ')}]`),
      fc.array(word, { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
      fc
        .array(
          fc.tuple(
            fc.oneof(fc.constantFrom('t', 'model', 'max_tasks'), key),
            fc.oneof(fc.constantFrom('0.2', '3', 'true', 'null', '{}', 'fast', 'a b'), word),
          ),
          { maxLength: 3 },
        )
        .map((pairs) => `{${pairs.map(([k, v]) => ` ${k}: ${v}`).join(',')} }`),
    );
    const line = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.tuple(fc.nat({ max: 6 }), key, scalar).map(([n, k, v]) => `${' '.repeat(n)}${k}: ${v}`),
      },
      { weight: 2, arbitrary: fc.tuple(fc.nat({ max: 6 }), key).map(([n, k]) => `${' '.repeat(n)}${k}:`) },
      { weight: 1, arbitrary: fc.tuple(fc.nat({ max: 4 }), word).map(([n, w]) => `${' '.repeat(n)}#${w}`) },
      { weight: 1, arbitrary: fc.constantFrom('', '  ', '---', '- x') },
      {
        weight: 3,
        arbitrary: fc
          .tuple(fc.nat({ max: 6 }), fc.nat({ max: 2 }), key, scalar)
          .map(([n, s, k, v]) => `${' '.repeat(n)}-${' '.repeat(s)} ${k}: ${v}`),
      },
      {
        weight: 2,
        arbitrary: fc.tuple(fc.nat({ max: 6 }), scalar).map(([n, v]) => `${' '.repeat(n)}- ${v}`),
      },
      { weight: 1, arbitrary: fc.tuple(fc.nat({ max: 6 }), key).map(([n, k]) => `${' '.repeat(n)}- ${k}:`) },
      { weight: 1, arbitrary: fc.nat({ max: 6 }).map((n) => `${' '.repeat(n)}-`) },
      // Block scalars: a header (with or without indicators), then lines of any depth.
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.nat({ max: 6 }), key, fc.constantFrom('>', '|', '>-', '|+', '> ', '>2', '| # c'))
          .map(([n, k, h]) => `${' '.repeat(n)}${k}: ${h}`),
      },
      { weight: 3, arbitrary: fc.tuple(fc.nat({ max: 8 }), word).map(([n, w]) => `${' '.repeat(n)}${w}`) },
    );
    let answered = 0;
    fc.assert(
      fc.property(fc.array(line, { maxLength: 10 }), fc.boolean(), (lines, newline) => {
        const text = lines.join('\n') + (newline ? '\n' : '');
        const value = parseSimpleYaml(text);
        if (value !== NOT_SIMPLE) {
          answered++;
        }
        agrees(text);
      }),
      { numRuns: 4000 },
    );
    // Enough generated texts take the fast path for the comparison to mean something.
    expect(answered).toBeGreaterThan(300);
  });

  it('agrees with the yaml package on generated CrewAI-like records of block scalars (property)', () => {
    const word = fc.constantFrom(
      '{topic} Analyst',
      'Find what matters: {topic}.',
      'plain words ',
      '# not a comment',
      'a\tb',
      '- not an item',
      'key: value',
      '',
      ' ',
      '   ',
      'ü — ok',
    );
    const block = fc
      .tuple(
        fc.constantFrom('>', '|'),
        fc.array(fc.tuple(fc.constantFrom(0, 0, 0, 1, -1, -2), word), { minLength: 0, maxLength: 4 }),
      )
      .map(
        ([h, lines]) =>
          (n: number) =>
            `${h}\n${lines.map(([skew, w]) => `${' '.repeat(Math.max(0, n + 2 + skew))}${w}`).join('\n')}`,
      );
    const value = fc.oneof(
      block,
      fc.constantFrom('x', 'openai/gpt-4o-mini', '[search, reader]').map((v) => () => v),
    );
    const record = fc.array(fc.tuple(fc.constantFrom('role', 'goal', 'backstory', 'llm'), value), {
      minLength: 1,
      maxLength: 3,
    });
    let answered = 0;
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 3 }), fc.boolean(), (records, newline) => {
        const text =
          records
            .map((fields, r) => `agent_${r}:\n${fields.map(([k, v]) => `  ${k}: ${v(2)}`).join('\n')}`)
            .join('\n') + (newline ? '\n' : '');
        if (parseSimpleYaml(text) !== NOT_SIMPLE) answered++;
        agrees(text);
      }),
      { numRuns: 1500 },
    );
    expect(answered).toBeGreaterThan(100);
  });

  it('agrees with the yaml package on generated flow mappings (property)', () => {
    const chars = fc.constantFrom(...'aZ09 _-.,:#[]{}\'"!&*?|>%@`~\\/ü'.split(''));
    const word = fc.oneof(
      fc.constantFrom('0.2', '3', '007', '0.18.0', 'true', 'Null', 'fast', 'a b', 'a:b', '', ' '),
      fc.string({ unit: chars, maxLength: 6 }),
    );
    const key = fc.oneof(fc.constantFrom('t', 'model', 'max_tasks', 'null', 'a-b'), word);
    let answered = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(key, fc.constantFrom(': ', ':', ':  ', ' : '), word), { maxLength: 4 }),
        fc.constantFrom(', ', ',', ' , '),
        fc.constantFrom(['{', '}'], ['{ ', ' }'], ['{  ', '}']),
        (pairs, comma, [open, close]) => {
          const text = `config: ${open}${pairs.map(([k, colon, v]) => `${k}${colon}${v}`).join(comma)}${close}\n`;
          if (parseSimpleYaml(text) !== NOT_SIMPLE) answered++;
          agrees(text);
        },
      ),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(300);
  });

  it('agrees with the yaml package on generated block sequences (property)', () => {
    const word = fc.constantFrom(
      'ada',
      'Role 1',
      'x: y',
      'a:b',
      '3',
      '0.5',
      'true',
      'null',
      '[a, b]',
      '{ t: 1 }',
      '',
      ' ',
    );
    const key = fc.constantFrom('id', 'role', 'team', 'config', 'null', 'a-b');
    const pairs = fc.array(fc.tuple(key, word), { minLength: 1, maxLength: 3 });
    // An item: `- k: v` with more keys aligned (or, now and then, misaligned) below, or `- v`.
    const item = fc.oneof(
      fc
        .tuple(fc.nat({ max: 2 }), pairs, fc.constantFrom(0, 0, 0, 1, -1))
        .map(([gap, kvs, skew]) => (n: number) => {
          const m = n + 2 + gap;
          return kvs
            .map(
              ([k, v], i) =>
                `${i === 0 ? `${' '.repeat(n)}-${' '.repeat(1 + gap)}` : ' '.repeat(Math.max(0, m + skew))}${k}:${v === '' ? '' : ` ${v}`}`,
            )
            .join('\n');
        }),
      word.map((v) => (n: number) => `${' '.repeat(n)}-${v === '' ? '' : ` ${v}`}`),
      fc.constant((n: number) => `${' '.repeat(n)}# between items`),
      fc.constant((n: number) => `${' '.repeat(n + 2)}continued`),
    );
    let sequences = 0;
    fc.assert(
      fc.property(
        fc.nat({ max: 3 }),
        fc.array(item, { minLength: 1, maxLength: 5 }),
        fc.constantFrom('', 'next: x\n', '  deeper: x\n', '- more\n'),
        (n, items, after) => {
          const text = `list:\n${items.map((f) => f(n)).join('\n')}\n${after}`;
          if (parseSimpleYaml(text) !== NOT_SIMPLE) sequences++;
          agrees(text);
        },
      ),
      { numRuns: 3000 },
    );
    expect(sequences).toBeGreaterThan(300);
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

describe('simpleYamlFails', () => {
  it.each([
    ['description: Use for task 6: reviews and reports.\n', true],
    ['name: a\nmeta:\n  note: see: below\n', true],
    ['agents:\n  - id: ada\n    role: dev: lead\n', true],
    ['k: München: x\n', true],
    ['description: Use for task 6, reviews.\n', false],
    ['k: a:b\n', false],
    ['k: a #c: d\n', false],
    ['k: "a: b"\n', false],
    ['list:\n  - Hello world: x\n', false],
    ['k: a:\n', false],
    ['k: a: b\nk: c\n', false],
    ['k: a: b\n  more\n', false],
  ])('%j: %s', (text, fails) => {
    expect(simpleYamlFails(text)).toBe(fails);
    if (fails) expect(reference(text).problem).toBe(true);
    // The judge reads in the same pass what the fast reader reads.
    const judged = fastYaml.judge!(text);
    if (fails) expect(judged).toBe('refused');
    else
      expect(judged === undefined ? undefined : (judged as { value: unknown }).value).toStrictEqual(
        fastYaml(text)?.value,
      );
  });

  it('judges only texts the full parser refuses (property, on agent-file-like frontmatter)', () => {
    const value = fc.constantFrom(
      'Ada',
      'Use for task 6: reviews.',
      'a: b: c',
      'x:y',
      'München: x',
      'Examples: <example>Context: a</example>',
      'see: [a]',
      'a: "b"',
      "it's: fine",
      'a :b',
      '[a, b]',
      '{ t: 1 }',
      '3',
      'true',
    );
    const key = fc.constantFrom('name', 'description', 'tools', 'model', 'color');
    const line = fc.oneof(
      fc.tuple(fc.constantFrom('', '', '  ', '- '), key, value).map(([lead, k, v]) => `${lead}${k}: ${v}`),
      key.map((k) => `${k}:`),
      fc.constantFrom('# note: x', '', '  more: text', '- item: a: b'),
    );
    const before = judgedRefused;
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), (lines) => agrees(`${lines.join('\n')}\n`)),
      { numRuns: 1500 },
    );
    // Enough of them are judged for the property to mean something.
    expect(judgedRefused - before).toBeGreaterThan(80);
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
