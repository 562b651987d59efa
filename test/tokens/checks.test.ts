import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/core/text/diagnostics.js';
import { loadPackStrict } from '../../src/source/load.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { checkBudgets, checkCacheOrder } from '../../src/tokens/checks.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { lintPack } from '../../src/tooling/lint/lint.js';
import { EXAMPLES, FIXTURES, okPack } from '../helpers.js';

const FLEET = join(FIXTURES, 'tokens-fleet');

function rows(diagnostics: Diagnostic[]) {
  return diagnostics.map((d) => [
    d.code,
    d.severity,
    [d.file, d.line, d.col].filter((x) => x !== undefined).join(':'),
  ]);
}

describe('budget check', () => {
  it('reports members over (error) and near (warning) their budget, and layers near theirs', async () => {
    const snapshot = await loadPackStrict(FLEET);
    const diagnostics = checkBudgets(snapshot);
    expect(rows(diagnostics)).toEqual([
      ['NEAR_BUDGET', 'warning', 'strata.yaml:11:15'],
      ['NEAR_BUDGET', 'warning', 'strata.yaml:11:15'],
      ['OVER_BUDGET', 'error', 'strata.yaml:14:13'],
      ['NEAR_BUDGET', 'warning', 'base.md'],
    ]);
    // The messages name the member, the count, the budget and the costliest layers first.
    expect(diagnostics[2]!.message).toMatch(
      /^cy \(editor\): 72 tokens, over its budget of 50 \(o200k_base\); costliest layers: role 38, base 17, preamble 9$/,
    );
    expect(diagnostics[3]!.message).toMatch(/in the prompts of ada, bob, cy$/);
  });

  it('counts with the tokenizer it is given, and says when it is an estimate', async () => {
    const snapshot = await loadPackStrict(FLEET);
    const diagnostics = checkBudgets(snapshot, getTokenizer('claude'));
    expect(diagnostics[2]!.message).toContain('(o200k_base, an estimate for claude)');
  });

  it('is silent without budgets', async () => {
    expect(checkBudgets(await loadPackStrict(join(EXAMPLES, 'roboco')))).toEqual([]);
  });

  it('refuses budgets that name unknown layers or roles, at their keys', () => {
    const snapshot = okPack({
      'strata.yaml': `registry: { files: [roles.yaml], key: roles }
layers:
  - id: base
    file: base.md
budgets:
  roles: { writer: 10, ghost: 10 }
  layers:
    bass: 5
`,
      'roles.yaml': 'roles:\n  writer: { name: Writer }\n',
      'base.md': 'hello world',
    });
    expect(rows(checkBudgets(snapshot))).toEqual([
      ['BAD_MANIFEST', 'error', 'strata.yaml:8:5'],
      ['UNKNOWN_ROLE', 'error', 'strata.yaml:6:24'],
    ]);
  });

  it('checks per-layer budgets once per layer text', () => {
    const snapshot = okPack({
      'strata.yaml': `registry: { discover: "roles/{role}.md" }
layers:
  - id: base
    file: base.md
  - id: role
    file: "roles/{role}.md"
budgets:
  layers: { role: 3 }
`,
      'base.md': 'hello world',
      'roles/a.md': 'one two three four five',
      'roles/b.md': 'one two three four five',
      'roles/c.md': 'one two',
    });
    const diagnostics = checkBudgets(snapshot);
    expect(rows(diagnostics)).toEqual([['OVER_BUDGET', 'error', 'roles/a.md']]);
    expect(diagnostics[0]!.message).toMatch(
      /^layer role \(roles\/a.md\): 5 tokens, over its budget of 3 .*in the prompts of role a, role b$/,
    );
  });
});

describe('cache-order check', () => {
  it('warns when a varying layer stands before stable ones, naming the better order', async () => {
    const snapshot = await loadPackStrict(join(EXAMPLES, 'roboco'));
    const diagnostics = checkCacheOrder(snapshot, undefined, { settings: { fable_mode_enabled: 'on' } });
    expect(rows(diagnostics)).toEqual([['CACHE_ORDER', 'warning', '']]);
    expect(diagnostics[0]!.message).toContain(
      'better order: base, fable, tools, lifecycle, ponytail, role, verbs, team, identity, ambient; shared prefix 0 tokens now, 2380 with the better order',
    );
  });

  it('points at the layer in the pack manifest', () => {
    const snapshot = okPack({
      'strata.yaml':
        'registry: { discover: "roles/{role}.md" }\nlayers:\n  - id: role\n    file: "roles/{role}.md"\n  - id: base\n    file: base.md\n',
      'base.md': 'hello world',
      'roles/a.md': 'A',
      'roles/b.md': 'B',
    });
    expect(rows(checkCacheOrder(snapshot))).toEqual([['CACHE_ORDER', 'warning', 'strata.yaml:3:5']]);
  });

  it('is silent when the stable layers come first, or with one member', async () => {
    expect(checkCacheOrder(await loadPackStrict(FLEET))).toEqual([]);
    const one = okPack({
      'strata.yaml':
        'registry: { discover: "roles/{role}.md" }\nlayers:\n  - id: role\n    file: "roles/{role}.md"\n  - id: base\n    file: base.md\n',
      'base.md': 'x',
      'roles/a.md': 'A',
    });
    expect(checkCacheOrder(one)).toEqual([]);
  });
});

describe('strata validate', () => {
  it('runs both checks', async () => {
    const read = await readPackDir(FLEET);
    const { diagnostics } = lintPack({ files: read.files, readDiagnostics: read.diagnostics });
    // BAD_ROLE: the fixture's manifest names a roles.yaml it does not hold (its roles are discovered).
    expect(diagnostics.map((d) => d.code).sort()).toEqual([
      'BAD_ROLE',
      'NEAR_BUDGET',
      'NEAR_BUDGET',
      'NEAR_BUDGET',
      'OVER_BUDGET',
    ]);
    const roboco = await readPackDir(join(EXAMPLES, 'roboco'));
    expect(lintPack({ files: roboco.files }).diagnostics.map((d) => d.code)).toContain('CACHE_ORDER');
  });
});
