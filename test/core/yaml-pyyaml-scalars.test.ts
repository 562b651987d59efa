import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/core/text/yaml.js';
import { pyyamlPlain, pyyamlReadsOtherwise } from '../../src/core/text/yaml-pyyaml-scalars.js';

// The values PyYAML 6's safe_load gives these plain scalars (checked with it; the slow
// tier's crewai-pyyaml test compares composes with PyYAML itself).
describe('pyyamlPlain', () => {
  it.each<[string, unknown]>([
    ['yes', true],
    ['NO', false],
    ['On', true],
    ['off', false],
    ['oN', 'oN'],
    ['y', 'y'],
    ['True', true],
    ['~', null],
    ['', null],
    ['NULL', null],
    ['nULL', 'nULL'],
    ['1e3', '1e3'],
    ['1.0e3', '1.0e3'],
    ['6.8e+5', 680000],
    ['1.e+5', 100000],
    ['-.5', '-.5'],
    ['.5', 0.5],
    ['1.', 1],
    ['1_0.5', 10.5],
    ['190:20:30.15', 685230.15],
    ['.inf', Number.POSITIVE_INFINITY],
    ['-.Inf', Number.NEGATIVE_INFINITY],
    ['.NaN', Number.NaN],
    ['0o17', '0o17'],
    ['017', 15],
    ['08', '08'],
    ['-0', 0],
    ['+12', 12],
    ['0x1F', 31],
    ['-0b101', -5],
    ['1_000', 1000],
    ['1:30', 90],
    ['-1:30', -90],
    ['1:60', '1:60'],
    ['1.2.3', '1.2.3'],
    ['<<', '<<'],
    ['Writer', 'Writer'],
  ])('%j is %j', (text, value) => {
    expect(pyyamlPlain(text)).toStrictEqual({ value });
  });

  it('reads dates and times as Dates, in UTC', () => {
    const at = (text: string) => {
      const typed = pyyamlPlain(text);
      return 'value' in typed && typed.value instanceof Date ? typed.value.toISOString() : typed;
    };
    expect(at('2024-01-01')).toBe('2024-01-01T00:00:00.000Z');
    expect(at('2001-12-14t21:59:43.10-05:00')).toBe('2001-12-15T02:59:43.100Z');
    expect(at('2001-12-14 21:59:43.10 -5')).toBe('2001-12-15T02:59:43.100Z');
    expect(at('2001-12-14T21:59:43Z')).toBe('2001-12-14T21:59:43.000Z');
    expect(at('2024-1-1')).toEqual({ value: '2024-1-1' });
    expect(at('2024-02-30')).toEqual({
      refused: expect.stringContaining('no date or time PyYAML can build'),
    });
    expect(at('2024-01-01 24:00:00')).toEqual({ refused: expect.stringContaining('no date or time') });
  });

  it('says where PyYAML fails', () => {
    expect(pyyamlPlain('=')).toEqual({ refused: expect.stringContaining('"value" key') });
    expect(pyyamlPlain('0x_')).toEqual({ refused: expect.stringContaining('PyYAML cannot read 0x_') });
    expect(pyyamlPlain('99999999999999999999')).toEqual({ refused: expect.stringContaining('beyond 2^53') });
  });

  it('tells which plain scalars PyYAML types otherwise than the core schema', () => {
    expect(pyyamlReadsOtherwise('Writer', 'Writer')).toBe(false);
    expect(pyyamlReadsOtherwise('12', 12)).toBe(false);
    expect(pyyamlReadsOtherwise('yes', 'yes')).toBe(true);
    expect(pyyamlReadsOtherwise('1e3', 1000)).toBe(true);
    expect(pyyamlReadsOtherwise('017', 17)).toBe(true);
  });
});

describe('parseYaml with scalars: pyyaml', () => {
  it('types plain scalars as PyYAML does and leaves quoted and tagged ones, keys too', () => {
    const text = 'a: yes\nb: "yes"\nc: !!str yes\nd: [on, 1e3]\ne: { f: 1_000 }\n"on": key\n';
    expect(parseYaml(text, { file: 'f.yaml', scalars: 'pyyaml' }).value).toStrictEqual({
      a: true,
      b: 'yes',
      c: 'yes',
      d: [true, '1e3'],
      e: { f: 1000 },
      on: 'key',
    });
    // The core schema reads each as text or a number, and tells that PyYAML would not.
    const core = parseYaml(text, { file: 'f.yaml' });
    expect(core.value).toStrictEqual({
      a: 'yes',
      b: 'yes',
      c: 'yes',
      d: ['on', 1000],
      e: { f: '1_000' },
      on: 'key',
    });
    expect(core.readsAsPyYaml).toBeUndefined();
    expect(parseYaml('a: Writer\nb: 12\n', { file: 'f.yaml' }).readsAsPyYaml).toBe(true);
  });

  it('refuses a plain key PyYAML reads as a bool: no name looks it up', () => {
    const parsed = parseYaml('yes: 1\n', { file: 'f.yaml', scalars: 'pyyaml' });
    expect(parsed.diagnostics.map((d) => [d.code, d.line, d.col])).toEqual([['YAML_SYNTAX', 1, 1]]);
    expect(parseYaml('yes: 1\n', { file: 'f.yaml' }).value).toStrictEqual({ yes: 1 });
  });
});
