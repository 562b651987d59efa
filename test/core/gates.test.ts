import { describe, expect, it } from 'vitest';
import { compose } from '../../src/core/compose/compose.js';
import { describeGate, evaluateGate, type Gate, type GateContext } from '../../src/core/pack/gates.js';
import { okPack } from '../helpers.js';

const ctx: GateContext = {
  settings: { on: true, off: false, mode: 'b', n: 0 },
  role: 'dev',
  team: 't1',
  agent: 'ada',
};

describe('evaluateGate', () => {
  it.each<[Gate, boolean]>([
    [{ setting: 'on' }, true],
    [{ setting: 'off' }, false],
    [{ setting: 'n' }, false],
    [{ setting: 'mode', equals: 'b' }, true],
    [{ setting: 'mode', equals: 'a' }, false],
    [{ setting: 'mode', equals: ['a', 'b'] }, true],
    [{ setting: 'off', equals: false }, true],
    [{ role: ['dev', 'qa'] }, true],
    [{ role: ['qa'] }, false],
    [{ team: ['t1'] }, true],
    [{ agent: ['bob'] }, false],
    [{ all: [{ setting: 'on' }, { role: ['dev'] }] }, true],
    [{ all: [{ setting: 'on' }, { role: ['qa'] }] }, false],
    [{ any: [{ setting: 'off' }, { team: ['t1'] }] }, true],
    [{ any: [] }, false],
    [{ all: [] }, true],
    [{ not: { setting: 'off' } }, true],
    [{ not: { any: [{ role: ['dev'] }] } }, false],
  ])('%j → %s', (gate, expected) => {
    expect(evaluateGate(gate, ctx)).toBe(expected);
  });

  it('role, team and agent gates are false when the request has no value', () => {
    expect(evaluateGate({ role: ['dev'] }, { settings: {} })).toBe(false);
    expect(evaluateGate({ not: { team: ['t1'] } }, { settings: {} })).toBe(true);
  });

  it.each<[Gate, string]>([
    [{ setting: 'on' }, 'on'],
    [{ setting: 'mode', equals: 'a' }, 'mode == a'],
    [
      { all: [{ role: ['dev'] }, { not: { agent: ['x', 'y'] } }] },
      'all(role in [dev], not(agent in [x, y]))',
    ],
  ])('describes %j as %s', (gate, text) => {
    expect(describeGate(gate)).toBe(text);
  });
});

describe('gates and variants in a manifest', () => {
  const pack = okPack({
    'strata.yaml': `
settings:
  mode: { type: enum, values: [a, b], default: a }
  extra: { type: boolean, default: false }
separator: "\\n--\\n"
layers:
  - id: intro
    text: Intro.
  - id: only-extra
    when: extra
    text: Extra on.
  - id: by-mode
    variants:
      - when: { setting: mode, equals: b }
        text: Mode B.
      - when: { role: [dev] }
        text: Dev in mode A.
  - id: not-dev
    when: { not: { role: [dev] } }
    text: Not a developer.
    append: "Mode is {{mode}}."
`,
  });
  it.each([
    [{}, 'Intro.\n--\nNot a developer.\n\nMode is a.', { 'only-extra': 'gated', 'by-mode': 'gated' }],
    [{ role: 'dev' }, 'Intro.\n--\nDev in mode A.', { 'by-mode': 'included', 'not-dev': 'gated' }],
    [{ role: 'dev', settings: { mode: 'b', extra: 'yes' } }, 'Intro.\n--\nExtra on.\n--\nMode B.', {}],
  ])('request %j', (request, text, statuses) => {
    const result = compose(pack, request);
    expect(result.text).toBe(text);
    for (const [id, status] of Object.entries(statuses)) {
      const l = result.layers.find((x) => x.id === id)!;
      expect(l.included ? 'included' : l.reason).toBe(status);
    }
  });

  it('names the gate of a gated layer and the variant taken', () => {
    const result = compose(pack, { role: 'dev' });
    expect(result.layers.find((l) => l.id === 'only-extra')).toMatchObject({
      reason: 'gated',
      gate: 'extra',
    });
    expect(result.layers.find((l) => l.id === 'by-mode')).toMatchObject({ included: true, variant: 1 });
    expect(result.layers.find((l) => l.id === 'not-dev')).toMatchObject({
      reason: 'gated',
      gate: 'not(role in [dev])',
    });
  });
});
