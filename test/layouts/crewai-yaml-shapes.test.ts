import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { memPack } from '../helpers.js';

/**
 * agents.yaml written in the YAML shapes CrewAI projects use. Each expected prompt per agent
 * was made by PyYAML's safe_load, CrewAI's interpolate_only (input topic = "AI") and its
 * role_playing template, right-stripped; strata must give the same bytes.
 */
const CASES: Array<[string, string, Record<string, string>]> = [
  [
    'escapes in double and single quotes',
    'a:\n  role: Writer\n  goal: "Say \\"hi\\" \\u00e9 \\x41 \\/ \\t tab"\n  backstory: \'It\'\'s fine\'\n',
    { a: 'You are Writer. It\'s fine\nYour personal goal is: Say "hi" é A / \t tab' },
  ],
  [
    'folded strip, literal keep, folded with a more-indented line',
    'a:\n  role: >-\n    Senior\n    Writer\n  goal: |+\n    keep\n\n  backstory: >\n    line one\n\n    line two\n      indented more\n    back\n',
    { a: 'You are Senior Writer. line one\nline two\n  indented more\nback\n\nYour personal goal is: keep' },
  ],
  [
    'a comment, trailing spaces, a plain scalar over three lines',
    'a:\n  role: Writer # comment\n  goal: Plain with trailing spaces   \n  backstory: Multi\n    line\n     plain\n',
    { a: 'You are Writer. Multi line plain\nYour personal goal is: Plain with trailing spaces' },
  ],
  [
    'multi-line quoted scalars and an escaped line break',
    'a:\n  role: \'single\n    quoted multi\'\n  goal: "double\n    quoted \\\n    escaped"\n  backstory: "a\\\n    b"\n',
    { a: 'You are single quoted multi. ab\nYour personal goal is: double quoted escaped' },
  ],
  [
    'JSON braces and YAML 1.1 look-alikes in text',
    'a:\n  role: Writer\n  goal: \'Use {"json": true} and {topic}\'\n  backstory: "Value: 12:30, 0x1F, 1_000 text"\n',
    { a: 'You are Writer. Value: 12:30, 0x1F, 1_000 text\nYour personal goal is: Use {"json": true} and AI' },
  ],
  [
    'merge keys: one alias, a list of aliases',
    'defaults: &d\n  role: Base\n  goal: G\na:\n  <<: *d\n  backstory: B\nb:\n  <<: [*d]\n  role: Other\n  backstory: B2\n',
    { a: 'You are Base. B\nYour personal goal is: G', b: 'You are Other. B2\nYour personal goal is: G' },
  ],
  [
    'a literal block with a tab and trailing spaces',
    'a:\n  role: Writer\n  goal: G\n  backstory: |-\n    Tab\tinside\n    Trailing   \n',
    { a: 'You are Writer. Tab\tinside\nTrailing   \nYour personal goal is: G' },
  ],
  [
    'a flow mapping',
    'a: {role: Flow, goal: "G, with comma", backstory: B}\n',
    { a: 'You are Flow. B\nYour personal goal is: G, with comma' },
  ],
  [
    'quoted keys',
    '"a":\n  "role": Quoted key\n  goal: G\n  backstory: B\n',
    { a: 'You are Quoted key. B\nYour personal goal is: G' },
  ],
  [
    // PyYAML merges every `<<` key of a mapping, a later one over an earlier one.
    'two merge keys in one mapping: the later merge key wins, the own keys over both',
    'a: &a\n  role: RA\n  goal: GA\n  backstory: BA\nb: &b\n  role: RB\n  goal: GB\nc:\n  <<: *a\n  <<: *b\n  goal: GC\nd:\n  <<: [*b, *a]\n  <<: *b\n',
    {
      a: 'You are RA. BA\nYour personal goal is: GA',
      c: 'You are RB. BA\nYour personal goal is: GC',
      d: 'You are RB. BA\nYour personal goal is: GB',
    },
  ],
  [
    'an explicit indentation indicator',
    'a:\n  role: Writer\n  goal: G\n  backstory: >2\n     leading space kept\n    normal\n',
    { a: 'You are Writer.  leading space kept\nnormal\n\nYour personal goal is: G' },
  ],
  [
    // Python's rstrip: U+FEFF is no whitespace there, NEL and U+001C to U+001F are.
    'a goal ending in U+FEFF, NEL or U+001F, right-stripped as Python strips it',
    'a:\n  role: R\n  goal: G\uFEFF\n  backstory: B\nb:\n  role: R\n  goal: "G\\ufeff \\N"\n  backstory: B\nc:\n  role: R\n  goal: "G\\x1f\\N\\x1c "\n  backstory: B\n',
    {
      a: 'You are R. B\nYour personal goal is: G\uFEFF',
      b: 'You are R. B\nYour personal goal is: G\uFEFF',
      c: 'You are R. B\nYour personal goal is: G',
    },
  ],
];

describe('crewai: YAML shapes read as PyYAML reads them', () => {
  it.each(CASES)('%s', (_, yaml, prompts) => {
    const result = memPack({ 'agents.yaml': yaml }, { preset: 'crewai' });
    expect(result.snapshot).toBeDefined();
    const got: Record<string, string> = {};
    for (const id of result.snapshot!.roles.keys()) {
      const out = tryCompose(result.snapshot!, { role: id, vars: { topic: 'AI' } });
      got[id] = out.ok ? out.result.text : out.diagnostics.map((d) => d.code).join();
    }
    expect(got).toEqual(prompts);
  });
});

describe('crewai: plain words typed as PyYAML types them', () => {
  it('a field PyYAML reads as text composes as written, where YAML 1.2 reads a number', () => {
    const result = memPack({
      'agents.yaml':
        'a:\n  role: 1e3\n  goal: 0o17\n  backstory: -.5\nb:\n  role: "yes"\n  goal: 08\n  backstory: !!str 017\n',
    });
    expect(result.diagnostics).toEqual([]);
    const text = (role: string) => {
      const out = tryCompose(result.snapshot!, { role });
      return out.ok ? out.result.text : out.diagnostics.map((d) => d.code).join();
    };
    expect(text('a')).toBe('You are 1e3. -.5\nYour personal goal is: 0o17');
    expect(text('b')).toBe('You are yes. 017\nYour personal goal is: 08');
  });

  it('a field PyYAML reads as a bool, a number or a date is no agent (CrewAI refuses it), said with BAD_ROLE', () => {
    const result = memPack({
      'agents.yaml':
        'ok:\n  role: R\n  goal: G\n  backstory: B\na:\n  role: yes\n  goal: G\n  backstory: B\nb:\n  role: R\n  goal: 12:30\n  backstory: 2024-01-01\nc:\n  role: Off\n  goal: 1_000\n  backstory: 017\n',
    });
    expect([...result.snapshot!.roles.keys()]).toEqual(['ok']);
    expect(result.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      [
        'BAD_ROLE',
        5,
        "not a role: a's role is the boolean true, not text (the registry requires role, goal, backstory as strings)",
      ],
      [
        'BAD_ROLE',
        9,
        "not a role: b's goal is the number 750, backstory is a date, not text (the registry requires role, goal, backstory as strings)",
      ],
      [
        'BAD_ROLE',
        13,
        "not a role: c's role is the boolean false, goal is the number 1000, backstory is the number 15, not text (the registry requires role, goal, backstory as strings)",
      ],
    ]);
  });

  it('a compose of an entry that is no role says where it is written and why, not only that it is unknown', () => {
    const result = memPack({
      'agents.yaml':
        'ok:\n  role: R\n  goal: G\n  backstory: B\na:\n  role: yes\n  goal: G\n  backstory: B\nanalista_é:\n  role: R\n  goal: G\n  backstory: B\nshared: x\n',
    });
    const said = (role: string) => {
      const out = tryCompose(result.snapshot!, { role });
      return out.ok ? out.result.text : out.diagnostics.map((d) => `${d.code}: ${d.message}`);
    };
    expect(said('a')).toEqual([
      'UNKNOWN_ROLE: unknown role "a" (agents.yaml:5:1 writes it, but BAD_ROLE: not a role: a\'s role is the boolean true, not text (the registry requires role, goal, backstory as strings)); known roles: ok',
    ]);
    expect(said('analista_é')).toEqual([
      'UNKNOWN_ROLE: unknown role "analista_é" (agents.yaml:9:1 writes it, but BAD_ROLE: role id "analista_é" is not a valid name (letters, digits, . _ -, starting with a letter or digit); it is not a role); known roles: ok',
    ]);
    expect(said('shared')).toEqual([
      'UNKNOWN_ROLE: unknown role "shared" (agents.yaml:13:1 writes it, but BAD_ROLE: role shared must be a mapping of fields; it is not a role); known roles: ok',
    ]);
    // A name no file writes is unknown as before.
    expect(said('b')).toEqual(['UNKNOWN_ROLE: unknown role "b"; known roles: ok']);
  });

  it('a plain word PyYAML fails on is YAML_SYNTAX where it is written', () => {
    for (const [value, message] of [
      ['=', 'a plain `=` is YAML 1.1\'s "value" key, which PyYAML\'s safe_load cannot read: quote it'],
      ['2024-02-30', '2024-02-30 is no date or time PyYAML can build (it fails on the file): quote it'],
      ['0b_', 'PyYAML cannot read 0b_ as the integer it looks like: quote it'],
      [
        '12_345_678_901_234_567_890',
        'PyYAML reads 12_345_678_901_234_567_890 as the integer 12345678901234567890, beyond 2^53: strata (as JSON in JavaScript) would read it as 12345678901234567000, another number; quote it to keep it as text',
      ],
    ]) {
      const result = memPack({ 'agents.yaml': `a:\n  role: R\n  goal: ${value}\n  backstory: B\n` });
      expect(result.snapshot).toBeUndefined();
      expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.col, d.message])).toEqual([
        ['YAML_SYNTAX', 'agents.yaml', 3, 9, message],
      ]);
    }
  });

  it('a pack of another layout reads the same words by YAML 1.2 (registry.scalars: core, the default)', () => {
    const result = memPack({
      'strata.yaml': 'registry:\n  files: [roles.yaml]\nlayers:\n  - id: r\n    text: "{{role.name}}"\n',
      'roles.yaml': 'roles:\n  a:\n    name: yes\n',
    });
    const out = tryCompose(result.snapshot!, { role: 'a' });
    expect(out.ok && out.result.text).toBe('yes');
    const py = memPack({
      'strata.yaml':
        'registry:\n  files: [roles.yaml]\n  scalars: pyyaml\nlayers:\n  - id: r\n    text: "{{role.name}}"\n',
      'roles.yaml': 'roles:\n  a:\n    name: 1e3\n  b:\n    name: on\n',
    });
    expect(tryCompose(py.snapshot!, { role: 'a' })).toMatchObject({ ok: true, result: { text: '1e3' } });
    const bad = memPack({
      'strata.yaml': 'registry:\n  files: [roles.yaml]\n  scalars: python\n',
      'roles.yaml': 'roles: {}\n',
    });
    expect(bad.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['BAD_MANIFEST', expect.stringContaining('scalars must be "core" or "pyyaml"')],
    ]);
  });
});

describe('crewai: agents.yaml files PyYAML refuses', () => {
  it('two YAML documents in one file are YAML_SYNTAX where the second starts, said in words', () => {
    const yaml =
      'a:\n  role: R\n  goal: G\n  backstory: B\n---\nb:\n  role: R2\n  goal: G2\n  backstory: B2\n';
    for (const preset of ['crewai', undefined]) {
      const result = memPack({ 'agents.yaml': yaml }, preset ? { preset } : {});
      expect(result.snapshot).toBeUndefined();
      expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.col, d.message])).toEqual([
        [
          'YAML_SYNTAX',
          'agents.yaml',
          5,
          1,
          'a second YAML document starts here (after a `---` or `...` line): a pack’s YAML file holds one document',
        ],
      ]);
    }
  });

  it('a NEL, U+2028 or U+2029 written as a character is YAML_SYNTAX there, not another value', () => {
    // PyYAML reads "R<NEL>X" as "R X", 'R<LS> X' as "R<LS>X"; YAML 1.2 keeps both as written.
    for (const [value, col] of [
      ['"R\u0085X"', 11],
      ["'R\u2028 X'", 11],
      ['R # a\u2029comment', 14],
    ] as const) {
      const result = memPack({ 'agents.yaml': `a:\n  role: ${value}\n  goal: G\n  backstory: B\n` });
      expect(result.snapshot).toBeUndefined();
      expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.col])).toEqual([
        ['YAML_SYNTAX', 'agents.yaml', 2, col],
      ]);
    }
    // Escaped, they are the same to both.
    const escaped = memPack({ 'agents.yaml': 'a:\n  role: "R\\N\\L\\PX"\n  goal: G\n  backstory: B\n' });
    const out = tryCompose(escaped.snapshot!, { role: 'a' });
    expect(out.ok && out.result.text).toBe('You are R\u0085\u2028\u2029X. B\nYour personal goal is: G');
  });

  it('a document start and end marker around one document are read', () => {
    const result = memPack({
      'agents.yaml': '\uFEFF---\r\na:\r\n  role: R\r\n  goal: G\r\n  backstory: B\r\n...\r\n',
    });
    const out = tryCompose(result.snapshot!, { role: 'a' });
    expect(out.ok && out.result.text).toBe('You are R. B\nYour personal goal is: G');
  });
});
