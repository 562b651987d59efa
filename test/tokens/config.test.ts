import { describe, expect, it } from 'vitest';
import {
  budgetFor,
  budgetStatus,
  configFromManifest,
  nearFrom,
  tokenConfig,
} from '../../src/tokens/config.js';
import { memPack, okPack } from '../helpers.js';

const LAYERS = 'layers:\n  - id: base\n    file: base.md\n';

function where(files: Record<string, string>) {
  return memPack(files).diagnostics.map((d) => [d.code, d.severity, `${d.file}:${d.line}:${d.col}`]);
}

describe('manifest token sections', () => {
  it('fails the load on a malformed budgets or tokenizer section, with line:col', () => {
    const manifest = `${LAYERS}tokenizer: gpt2
budgets:
  max_tokens: -5
  warn_at: 1.5
  colour: red
  roles: [a]
  layers:
    base: many
`;
    expect(memPack({ 'strata.yaml': manifest, 'base.md': 'x' }).snapshot).toBeUndefined();
    expect(where({ 'strata.yaml': manifest, 'base.md': 'x' })).toEqual([
      ['BAD_MANIFEST', 'error', 'strata.yaml:4:12'],
      ['BAD_MANIFEST', 'error', 'strata.yaml:6:15'],
      ['BAD_MANIFEST', 'error', 'strata.yaml:7:12'],
      ['UNKNOWN_KEY', 'error', 'strata.yaml:8:3'],
      ['BAD_MANIFEST', 'error', 'strata.yaml:9:10'],
      ['BAD_MANIFEST', 'error', 'strata.yaml:11:11'],
    ]);
  });

  it('refuses a budgets section that is not a mapping', () => {
    expect(where({ 'strata.yaml': `${LAYERS}budgets: 5000\n`, 'base.md': 'x' })).toEqual([
      ['BAD_MANIFEST', 'error', 'strata.yaml:4:10'],
    ]);
  });

  it('reads a valid section', () => {
    const snapshot = okPack({
      'strata.yaml': `${LAYERS}tokenizer: cl100k_base
budgets:
  max_tokens: 8000
  warn_at: "85%"
  roles: { architect: 12000 }
  layers: { base: 1500 }
`,
      'base.md': 'x',
    });
    expect(tokenConfig(snapshot)).toEqual({
      tokenizer: 'cl100k_base',
      budgets: { maxTokens: 8000, warnAt: 0.85, roles: { architect: 12000 }, layers: { base: 1500 } },
    });
    expect(tokenConfig(snapshot)).toBe(tokenConfig(snapshot));
  });

  it('defaults: o200k_base, no budgets; warn_at 0.9 when budgets are given', () => {
    expect(tokenConfig(okPack({ 'strata.yaml': LAYERS, 'base.md': 'x' }))).toEqual({
      tokenizer: 'o200k_base',
    });
    const snapshot = okPack({ 'strata.yaml': `${LAYERS}budgets: { max_tokens: 100 }\n`, 'base.md': 'x' });
    expect(tokenConfig(snapshot).budgets?.warnAt).toBe(0.9);
  });

  it('inherits the sections through extends', () => {
    const snapshot = okPack({
      'strata.yaml': 'extends: base.yaml\n',
      'base.yaml': `${LAYERS}tokenizer: claude\nbudgets: { max_tokens: 100 }\n`,
      'base.md': 'x',
    });
    expect(configFromManifest(snapshot.manifest)).toEqual({
      tokenizer: 'claude',
      budgets: { maxTokens: 100, warnAt: 0.9, roles: {}, layers: {} },
    });
  });
});

describe('budget arithmetic', () => {
  const budgets = { maxTokens: 100, warnAt: 0.9, roles: { architect: 200 }, layers: {} };

  it.each([
    ['architect', 200],
    ['developer', 100],
    [undefined, 100],
  ] as const)('role %s has the maximum %i', (role, max) => {
    expect(budgetFor(budgets, role)).toBe(max);
  });

  it('has no maximum without budgets', () => {
    expect(budgetFor(undefined, 'architect')).toBeUndefined();
    expect(budgetFor({ warnAt: 0.9, roles: {}, layers: {} }, 'x')).toBeUndefined();
  });

  it.each([
    [0, 'ok'],
    [89, 'ok'],
    [90, 'near'],
    [100, 'near'],
    [101, 'over'],
  ] as const)('%i tokens of 100 at 0.9 is %s', (tokens, status) => {
    expect(budgetStatus(tokens, 100, 0.9)).toBe(status);
  });

  it('rounds the near threshold up', () => {
    expect(nearFrom(55, 0.8)).toBe(44);
    expect(nearFrom(7, 0.5)).toBe(4);
  });

  // 0.55 × 100 is 55.00000000000001 in binary floating point: a prompt at exactly 55% of
  // its maximum was ok, not near, and the threshold said 56.
  it.each([
    [100, 0.55, 55],
    [200, 0.55, 110],
    [100, 0.07, 7],
    [200, 0.14, 28],
    [100, 0.28, 28],
    [1_000_000, 0.9, 900_000],
  ] as const)(
    '%i at %d is near from %i: a share that is a whole count is not rounded up past it',
    (max, warnAt, from) => {
      expect(nearFrom(max, warnAt)).toBe(from);
      expect(budgetStatus(from, max, warnAt)).toBe('near');
      expect(budgetStatus(from - 1, max, warnAt)).toBe('ok');
    },
  );
});
