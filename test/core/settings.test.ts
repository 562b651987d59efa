import { describe, expect, it } from 'vitest';
import {
  applyOverrides,
  parseSettingValue,
  resolveEnvSettings,
  type SettingDef,
} from '../../src/core/pack/settings.js';

const flag: SettingDef = { name: 'flag', type: 'boolean', default: false, env: 'FLAG' };
const level: SettingDef = {
  name: 'level',
  type: 'enum',
  values: ['lite', 'full', 'ultra'],
  default: 'full',
  env: 'LEVEL',
};
const count: SettingDef = { name: 'count', type: 'integer', default: 3, min: 1, max: 10 };
const label: SettingDef = { name: 'label', type: 'string', default: 'x' };

describe('parseSettingValue', () => {
  it.each([
    [flag, 'true', true],
    [flag, 'TRUE', true],
    [flag, '1', true],
    [flag, 'yes', true],
    [flag, 'On', true],
    [flag, 'false', false],
    [flag, '0', false],
    [flag, 'No', false],
    [flag, 'OFF', false],
    [flag, true, true],
    [flag, 0, false],
    [level, 'lite', 'lite'],
    [level, 'ultra', 'ultra'],
    [count, '7', 7],
    [count, 10, 10],
    [label, 'hello', 'hello'],
    [label, 5, '5'],
  ] as const)('%o accepts %o as %o', (def, raw, value) => {
    expect(parseSettingValue(def, raw)).toEqual({ value });
  });

  it.each([
    [flag, 'maybe'],
    [flag, ''],
    [flag, 2],
    [level, 'FULL'],
    [level, 'Lite'],
    [level, ''],
    [count, '7.5'],
    [count, 'seven'],
    [count, '0'],
    [count, '11'],
    [label, { a: 1 }],
  ] as const)('%o refuses %o', (def, raw) => {
    expect(parseSettingValue(def, raw)).toHaveProperty('problem');
  });
});

describe('precedence: request over env over default', () => {
  const defs = [flag, level];
  it.each([
    [{}, undefined, { flag: false, level: 'full' }, { flag: 'default', level: 'default' }],
    [{ FLAG: 'yes' }, undefined, { flag: true, level: 'full' }, { flag: 'env', level: 'default' }],
    [
      { FLAG: 'yes', LEVEL: 'lite' },
      { flag: 'off' },
      { flag: false, level: 'lite' },
      { flag: 'request', level: 'env' },
    ],
    [{}, { level: 'ultra' }, { flag: false, level: 'ultra' }, { flag: 'default', level: 'request' }],
  ])('env %o, request %o', (env, overrides, values, sources) => {
    const fromEnv = resolveEnvSettings(defs, env);
    expect(fromEnv.diagnostics).toEqual([]);
    const { settings, diagnostics } = applyOverrides(defs, fromEnv.settings, overrides);
    expect(diagnostics).toEqual([]);
    expect(settings.values).toEqual(values);
    expect(settings.sources).toEqual(sources);
  });

  it('an invalid env value is an error naming the setting, env var, value and accepted values', () => {
    const { diagnostics } = resolveEnvSettings(defs, { LEVEL: 'max' });
    expect(diagnostics.map((d) => d.code)).toEqual(['INVALID_SETTING']);
    const message = diagnostics[0]!.message;
    for (const part of ['level', 'LEVEL', '"max"', 'lite|full|ultra']) expect(message).toContain(part);
  });

  it('an unknown override is an error listing the known settings', () => {
    const { diagnostics } = applyOverrides(defs, resolveEnvSettings(defs, {}).settings, { nope: '1' });
    expect(diagnostics.map((d) => d.code)).toEqual(['UNKNOWN_SETTING']);
    expect(diagnostics[0]!.message).toContain('flag, level');
  });
});
