import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/core/diagnostics.js';
import { parseYaml } from '../../src/core/yaml.js';
import { memPack } from '../helpers.js';

const NULL_KEY =
  'a mapping key that is null (`null`, `~` or left empty) is no name (a JavaScript reader makes it "", a Python one None); quote it ("null") to mean the word';

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
