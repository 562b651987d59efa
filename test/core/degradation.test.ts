import { describe, expect, it } from 'vitest';
import { degradation, degradationDiagnostics } from '../../src/core/compose/degradation.js';
import { okPack } from '../helpers.js';

const PACK = {
  'base.md': 'Base.',
  'roles/writer.md': 'Writer.',
  'roles/critic.md': 'Critic.',
  'teams/blue.md': 'Blue.',
  'identities/w1.md': 'I am w1.',
  'fleet.yaml': 'agents:\n  - { id: w1, role: writer, team: blue }\n  - { id: c1, role: critic }\n',
};

function without(...paths: string[]): Record<string, string> {
  const out: Record<string, string> = { ...PACK };
  for (const p of paths) delete out[p];
  return out;
}

describe('degradation (served version → new version)', () => {
  it('is empty for text edits, new members and new layers', () => {
    const before = okPack(PACK);
    const after = okPack({
      ...PACK,
      'base.md': 'Base, reworded.',
      'teams/red.md': 'Red.',
      'identities/c1.md': 'I am c1.',
      'fleet.yaml': `${PACK['fleet.yaml']}  - { id: r1, role: writer, team: red }\n`,
    });
    expect(degradation(before, after)).toEqual({ degraded: false, members: [], layers: [] });
  });

  it('names every member that loses a layer, the file it came from and the file now missing', () => {
    const report = degradation(okPack(PACK), okPack(without('base.md', 'teams/blue.md')));
    expect(report.degraded).toBe(true);
    expect(report.layers).toEqual(['base', 'team']);
    expect(report.members).toEqual([
      {
        member: 'w1',
        label: 'w1',
        agent: 'w1',
        role: 'writer',
        removed: false,
        fallback: false,
        lost: [
          { layer: 'base', was: 'base.md', reason: 'missing', looked: 'base.md' },
          { layer: 'team', was: 'teams/blue.md', reason: 'missing', looked: 'teams/blue.md' },
        ],
      },
      {
        member: 'c1',
        label: 'c1',
        agent: 'c1',
        role: 'critic',
        removed: false,
        fallback: false,
        lost: [{ layer: 'base', was: 'base.md', reason: 'missing', looked: 'base.md' }],
      },
    ]);
    expect(degradationDiagnostics(report).map((d) => [d.code, d.severity])).toEqual([
      ['LAYER_LOST', 'warning'],
      ['LAYER_LOST', 'warning'],
    ]);
  });

  it('counts a file emptied as a lost layer', () => {
    const report = degradation(okPack(PACK), okPack({ ...PACK, 'identities/w1.md': '   \n' }));
    expect(report.members.map((m) => [m.member, m.lost])).toEqual([
      ['w1', [{ layer: 'identity', was: 'identities/w1.md', reason: 'empty' }]],
    ]);
  });

  it('reports the fallback text and removed members (a pack emptied)', () => {
    const report = degradation(okPack(PACK), okPack({}));
    expect(report.members.map((m) => [m.member, m.removed, m.fallback])).toEqual([
      ['w1', true, true],
      ['c1', true, true],
    ]);
    expect(degradationDiagnostics(report).map((d) => d.code)).toEqual(['MEMBER_REMOVED', 'MEMBER_REMOVED']);
  });

  it('reports a manifest whose layers compose nothing as the fallback for everyone', () => {
    // (A manifest with no layers at all does not load: NO_LAYERS.)
    const nothing = 'layers:\n  - id: notes\n    file: notes.md\n';
    const report = degradation(okPack(PACK), okPack({ ...PACK, 'strata.yaml': nothing }));
    expect(
      report.members.map((m) => [m.member, m.fallback, m.lost.map((l) => `${l.layer}:${l.reason}`)]),
    ).toEqual([
      ['w1', true, ['base:removed', 'role:removed', 'team:removed', 'identity:removed']],
      ['c1', true, ['base:removed', 'role:removed']],
    ]);
    expect(degradationDiagnostics(report).map((d) => d.code)).toEqual(['MEMBER_FALLBACK', 'MEMBER_FALLBACK']);
  });

  it('reports a member that would fail to compose', () => {
    const required = {
      ...PACK,
      'strata.yaml': 'extends: roboco\nlayers:\n  - id: team\n    required: true\n',
    };
    const { 'teams/blue.md': _gone, ...broken } = required;
    const report = degradation(okPack(required), okPack(broken));
    expect(report.members.map((m) => [m.member, m.failing])).toEqual([['w1', ['REQUIRED_MISSING']]]);
    expect(degradationDiagnostics(report).map((d) => d.code)).toEqual(['MEMBER_FAILS']);
  });

  it('compares roles when the pack has no fleet, and a fleet added later removes none', () => {
    const roles = without('fleet.yaml', 'identities/w1.md');
    const withFleet = { ...roles, 'fleet.yaml': 'agents:\n  - { id: w1, role: writer }\n' };
    expect(degradation(okPack(roles), okPack(withFleet)).degraded).toBe(false);
    const report = degradation(
      okPack(roles),
      okPack(without('fleet.yaml', 'identities/w1.md', 'roles/critic.md')),
    );
    expect(report.members.map((m) => [m.member, m.label, m.removed])).toEqual([
      ['role:critic', 'role critic', true],
    ]);
  });
});

describe('degradation of a chain of AGENTS.md files (each working folder a member)', () => {
  const PROJECT = {
    'AGENTS.md': 'Root rules.',
    'api/AGENTS.md': 'API rules.',
    'api/v2/AGENTS.md': 'V2 rules.',
    'web/AGENTS.md': 'Web rules.',
  };
  const pack = (files: Record<string, string>) => okPack(files, { preset: 'agents-md' });
  const lostOf = (files: Record<string, string>) =>
    degradation(pack(PROJECT), pack(files)).members.map((m) => [m.member, m.fallback, m.lost]);

  it('a nested file deleted or emptied is lost for every folder whose prompt held it; the root member never held it', () => {
    const { 'api/AGENTS.md': _, ...deleted } = PROJECT;
    expect(lostOf(deleted)).toEqual([
      [
        'cwd=api',
        false,
        [{ layer: 'agents', was: 'api/AGENTS.md', reason: 'missing', looked: 'api/AGENTS.md' }],
      ],
      [
        'cwd=api/v2',
        false,
        [{ layer: 'agents', was: 'api/AGENTS.md', reason: 'missing', looked: 'api/AGENTS.md' }],
      ],
    ]);
    expect(lostOf({ ...PROJECT, 'api/v2/AGENTS.md': ' \n' })).toEqual([
      ['cwd=api/v2', false, [{ layer: 'agents', was: 'api/v2/AGENTS.md', reason: 'empty' }]],
    ]);
    const report = degradation(pack(PROJECT), pack(deleted));
    expect(degradationDiagnostics(report).map((d) => [d.code, d.message])).toEqual([
      ['LAYER_LOST', 'cwd=api would lose layer agents from api/AGENTS.md (api/AGENTS.md is missing)'],
      ['LAYER_LOST', 'cwd=api/v2 would lose layer agents from api/AGENTS.md (api/AGENTS.md is missing)'],
    ]);
  });

  it('the root file deleted: the root member falls back, every folder loses it', () => {
    const { 'AGENTS.md': _, ...deleted } = PROJECT;
    expect(
      lostOf(deleted).map(([member, fallback, lost]) => [member, fallback, (lost as unknown[]).length]),
    ).toEqual([
      ['(default)', true, 1],
      ['cwd=api', false, 1],
      ['cwd=api/v2', false, 1],
      ['cwd=web', false, 1],
    ]);
  });

  it('text edits, a new file, and an override beside a file (a change of text) degrade nothing', () => {
    for (const files of [
      { ...PROJECT, 'api/AGENTS.md': 'API rules, reworded.' },
      { ...PROJECT, 'web/app/AGENTS.md': 'App rules.' },
      { ...PROJECT, 'api/AGENTS.override.md': 'API override.' },
    ])
      expect(degradation(pack(PROJECT), pack(files))).toEqual({ degraded: false, members: [], layers: [] });
  });
});
