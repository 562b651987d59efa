import { describe, expect, it, vi } from 'vitest';
import { formatDiagnostic } from '../../src/core/text/diagnostics.js';
import { parseYaml } from '../../src/core/text/yaml.js';
import { memPack } from '../helpers.js';

const NULL_KEY =
  'a mapping key that is null (`null`, `~` or left empty) is no name (a JavaScript reader makes it "", a Python one None); quote it ("null") to mean the word';

const COLLECTION_KEY =
  'a list or mapping used as a mapping key is no name (a JavaScript reader makes it a text no one wrote); a key is a string, number or boolean';

const problems = (text: string) => parseYaml(text, { file: 'x.yaml' }).diagnostics.map(formatDiagnostic);

describe('a YAML mapping key that is no name', () => {
  it.each([
    ['roles:\n  dev:\n    name: D\n  null:\n    name: X\n', '4:3'],
    ['roles:\n  dev:\n    name: D\n  ~: {name: X}\n', '4:3'],
    ['roles:\n  dev: {name: D}\n  Null: {name: X}\n', '3:3'],
    ['roles: {dev: {name: D}, ~: {name: X}}\n', '1:25'],
  ])('a null key in the role registry is a YAML_SYNTAX error at the key, not role id "" (%j)', (text, at) => {
    const r = memPack({ 'base.md': 'B', 'roles.yaml': text }, { preset: 'roboco' });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([
      `error YAML_SYNTAX: roles.yaml:${at}: ${NULL_KEY}`,
    ]);
  });

  it('a quoted "null" is a key like any other', () => {
    expect(problems('"null": 1\n')).toEqual([]);
    expect(parseYaml('"null": 1\n', { file: 'x.yaml' }).value).toEqual({ null: 1 });
  });

  it('a null value is still read', () => {
    expect(problems('a: null\nb: ~\n')).toEqual([]);
  });
});

describe('a YAML list or mapping used as a mapping key', () => {
  it.each([
    ['roles:\n  dev:\n    name: D\n  ? [a, b]\n  : {name: X}\n', '4:5'],
    ['roles: {dev: {name: D}, [a]: 1}\n', '1:25'],
    ['roles: {dev: {name: D}, {a: 1}: 1}\n', '1:25'],
    ['x: &a [1]\nroles:\n  ? *a\n  : 1\n', '3:5'],
  ])('is a YAML_SYNTAX error at the key, with no process warning (%j)', (text, at) => {
    const warn = vi.spyOn(process, 'emitWarning');
    const log = vi.spyOn(console, 'warn');
    try {
      const r = memPack({ 'base.md': 'B', 'roles.yaml': text }, { preset: 'roboco' });
      expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([
        `error YAML_SYNTAX: roles.yaml:${at}: ${COLLECTION_KEY}`,
      ]);
      expect(warn).not.toHaveBeenCalled();
      expect(log).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      log.mockRestore();
    }
  });

  it("in frontmatter it is BAD_FRONTMATTER at the file's own line", () => {
    const warn = vi.spyOn(process, 'emitWarning');
    try {
      const r = memPack(
        { 'base.md': 'B', 'identities/ada.md': '---\nrole: dev\n? [a]\n: 1\n---\nAda.\n' },
        { preset: 'roboco' },
      );
      expect(r.diagnostics.map(formatDiagnostic)).toContain(
        `error BAD_FRONTMATTER: identities/ada.md:3:3: ${COLLECTION_KEY}`,
      );
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
});

describe('a YAML mapping key that a number or boolean renames', () => {
  it.each([
    ['007', 'number 7', '"7"'],
    ['0x1F', 'number 31', '"31"'],
    ['1.50', 'number 1.5', '"1.5"'],
    ['1_000', 'number 1000', '"1000"'],
    ['True', 'boolean true', '"true"'],
    ['yes', 'boolean true', '"true"'],
  ])(
    'an agent key %s is a YAML_SYNTAX error at the key, not an agent silently named otherwise',
    (key, read, name) => {
      const r = memPack(
        { 'agents.yaml': `${key}:\n  role: R\n  goal: G\n  backstory: B\n` },
        { preset: 'crewai' },
      );
      expect(r.snapshot).toBeUndefined();
      expect(r.diagnostics.map(formatDiagnostic)).toEqual([
        `error YAML_SYNTAX: agents.yaml:1:1: the mapping key ${key} is read as the ${read}, so its name would be ${name}, not what is written; quote it (${JSON.stringify(key)}) to mean the text`,
      ]);
    },
  );

  it('a key PyYAML reads as text (1e3, 0o17) is the agent of that name in agents.yaml, a number elsewhere', () => {
    const r = memPack(
      { 'agents.yaml': '1e3:\n  role: R\n  goal: G\n  backstory: B\n' },
      { preset: 'crewai' },
    );
    expect([...r.snapshot!.roles.keys()]).toEqual(['1e3']);
    expect(problems('1e3: a\n')).toEqual([expect.stringContaining('error YAML_SYNTAX: x.yaml:1:1')]);
  });

  it('a key whose text is its name (1, true, -1) and a quoted one are read as ever', () => {
    expect(problems('1: a\ntrue: b\n-1: c\n"007": d\n')).toEqual([]);
    expect(parseYaml('"007": d\n', { file: 'x.yaml' }).value).toEqual({ '007': 'd' });
  });

  it('in frontmatter it is BAD_FRONTMATTER', () => {
    const r = memPack({ 'base.md': 'B', 'roles/dev.md': '---\n0x10: x\n---\nDev.\n' }, { preset: 'roboco' });
    expect(r.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col}`)).toEqual([
      'BAD_FRONTMATTER roles/dev.md:2:1',
    ]);
  });
});
