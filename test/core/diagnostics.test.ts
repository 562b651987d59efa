import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { codes, memPack, okPack } from '../helpers.js';

/** One row per load-time diagnostic code: a pack that plants it, and where it must point. */
describe('load diagnostics', () => {
  it.each([
    ['YAML_SYNTAX', { 'strata.yaml': 'layers:\n  - id: a\n    text: [unclosed\n' }, 'strata.yaml', 4],
    [
      'UNKNOWN_KEY',
      { 'strata.yaml': 'layers:\n  - id: a\n    text: A\n    colour: red\n' },
      'strata.yaml',
      4,
      5,
    ],
    ['UNKNOWN_KEY', { 'strata.yaml': 'separatr: x\n' }, 'strata.yaml', 1, 1],
    ['BAD_MANIFEST', { 'strata.yaml': 'layers:\n  - id: a\n' }, 'strata.yaml', 2],
    [
      'BAD_MANIFEST',
      { 'strata.yaml': 'layers:\n  - id: a\n    text: A\n    required: maybe\n' },
      'strata.yaml',
      4,
    ],
    [
      'BAD_MANIFEST',
      { 'strata.yaml': 'settings:\n  lvl: { type: enum, values: [a, b], default: c }\nlayers: []\n' },
      'strata.yaml',
      2,
      47,
    ],
    ['UNKNOWN_PRESET', { 'strata.yaml': 'extends: robocop\n' }, 'strata.yaml', 1, 10],
    [
      'EXTENDS_CYCLE',
      { 'strata.yaml': 'extends: ./a.yaml\n', 'a.yaml': 'extends: ./strata.yaml\n' },
      'a.yaml',
      1,
    ],
    [
      'UNKNOWN_PLACEHOLDER',
      { 'strata.yaml': 'layers:\n  - id: a\n    file: "x/{rol}.md"\n' },
      'strata.yaml',
      3,
      14,
    ],
    [
      'UNKNOWN_PLACEHOLDER',
      { 'strata.yaml': 'layers:\n  - id: a\n    text: A\n    append: "{{nope}}"\n' },
      'strata.yaml',
      4,
      14,
    ],
    [
      'UNKNOWN_SETTING',
      { 'strata.yaml': 'layers:\n  - id: a\n    text: A\n    when: nope\n' },
      'strata.yaml',
      4,
      11,
    ],
    ['BAD_FRONTMATTER', { 'base.md': '---\ntitle: x\n' }, 'base.md', 1, 1],
    ['BAD_FRONTMATTER', { 'base.md': '---\nname: ok\nbad: [\n---\nBody\n' }, 'base.md', 4],
    ['BAD_ROLE', { 'roles.yaml': 'roles:\n  "../x": { system_prompt: hi }\n' }, 'roles.yaml', 2, 3],
    [
      'ROLE_EXTENDS_CYCLE',
      { 'roles.yaml': 'roles:\n  a: { extends: b }\n  b: { extends: a }\n' },
      'roles.yaml',
      2,
    ],
    ['UNKNOWN_ROLE', { 'roles.yaml': 'roles:\n  a: { extends: ghost }\n' }, 'roles.yaml', 2, 17],
    ['BAD_FLEET', { 'base.md': 'B', 'fleet.yaml': 'agents: { ada: developer }\n' }, 'fleet.yaml', 1],
    [
      'DUPLICATE_AGENT',
      { 'base.md': 'B', 'fleet.yaml': 'agents:\n  - { id: ada }\n  - { id: ada }\n' },
      'fleet.yaml',
      3,
      5,
    ],
    ['BAD_NAME', { 'base.md': 'B', 'fleet.yaml': 'agents:\n  - { id: ada, team: ../x }\n' }, 'fleet.yaml', 2],
    [
      'UNKNOWN_ROLE',
      { 'roles/dev.md': 'D', 'fleet.yaml': 'agents:\n  - { id: ada, role: qa }\n' },
      'fleet.yaml',
      2,
    ],
    ['INVALID_UTF8', { 'base.md': new Uint8Array([0x48, 0x69, 0xff, 0x0a]) }, 'base.md'],
  ] as Array<[string, Record<string, string | Uint8Array>, string, number?, number?]>)(
    '%s in %j',
    (code, files, file, line, col) => {
      const result = memPack(files);
      expect(result.snapshot).toBeUndefined();
      const d = result.diagnostics.find((x) => x.code === code);
      expect(d, JSON.stringify(result.diagnostics)).toBeDefined();
      expect(d!.severity).toBe('error');
      expect(d!.file).toBe(file);
      if (line !== undefined) expect(d!.line).toBe(line);
      if (col !== undefined) expect(d!.col).toBe(col);
    },
  );

  it('a problem with a layer value is said where the value (or the placeholder in it) is written', () => {
    const result = memPack({
      'strata.yaml': [
        'extends: ./base.yaml',
        'settings:',
        '  n: { type: string }',
        'layers:',
        '  - id: a',
        '    text: |',
        '      Hello.',
        '      Say {{ nope }} now.',
        '    max_bytes: n',
        '  - id: b',
        '    file: [a.md, "x/{rol}.md"]',
        '    path_setting: n2',
        '  - id: c',
        '    variants:',
        '      - when: { role: [x] }',
        '        text: A',
        '      - when: { all: [ghost] }',
        '        text: B {{ghost2}}',
        '  - id: d',
        '    append: "x {{gone}}"',
        'fallback: "Hi {{who}}"',
        '',
      ].join('\n'),
      'base.yaml': 'layers:\n  - id: d\n    text: "{{other}}"\n',
    });
    expect(result.snapshot).toBeUndefined();
    expect(result.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col}`)).toEqual([
      'UNKNOWN_PLACEHOLDER base.yaml:3:12',
      'UNKNOWN_PLACEHOLDER strata.yaml:8:11',
      'UNKNOWN_SETTING strata.yaml:9:16',
      'UNKNOWN_PLACEHOLDER strata.yaml:11:21',
      'UNKNOWN_SETTING strata.yaml:12:19',
      'UNKNOWN_SETTING strata.yaml:17:15',
      'UNKNOWN_PLACEHOLDER strata.yaml:18:17',
      'UNKNOWN_PLACEHOLDER strata.yaml:20:16',
      'UNKNOWN_PLACEHOLDER strata.yaml:21:15',
    ]);
  });

  it('an invalid env value fails at load, naming the env var', () => {
    const result = memPack({ 'base.md': 'B' }, { env: { ROBOCO_PONYTAIL_INTENSITY: 'max' } });
    expect(codes(result)).toEqual(['INVALID_SETTING']);
    expect(result.diagnostics[0]!.message).toContain('ROBOCO_PONYTAIL_INTENSITY');
  });

  it('collects every problem instead of stopping at the first', () => {
    const result = memPack({
      'strata.yaml': 'layers:\n  - id: a\n    text: A\n    colour: red\n  - id: b\n    file: "{nope}.md"\n',
    });
    expect(codes(result).sort()).toEqual(['UNKNOWN_KEY', 'UNKNOWN_PLACEHOLDER']);
  });

  it('warns DUPLICATE_ROLE naming both files; the later file wins whole', () => {
    const result = memPack({
      'a.yaml': 'roles:\n  r: { system_prompt: first, name: First }\n',
      'b.yaml': 'roles:\n  r: { system_prompt: second }\n',
    });
    expect(codes(result)).toEqual(['DUPLICATE_ROLE']);
    expect(result.diagnostics[0]).toMatchObject({ severity: 'warning', file: 'b.yaml', line: 2, col: 3 });
    expect(result.diagnostics[0]!.message).toContain('a.yaml');
    expect(result.snapshot!.roles.get('r')!.fields).toEqual({ system_prompt: 'second' });
  });

  it('warns FLEET_CONFLICT when an identity disagrees with fleet.yaml, which wins', () => {
    const result = memPack({
      'roles/dev.md': 'D',
      'roles/qa.md': 'Q',
      'fleet.yaml': 'agents:\n  - { id: ada, role: dev }\n',
      'identities/ada.md': '---\nrole: qa\n---\nAda.\n',
    });
    expect(codes(result)).toEqual(['FLEET_CONFLICT']);
    expect(result.diagnostics[0]).toMatchObject({ file: 'identities/ada.md', line: 2, col: 7 });
    expect(result.snapshot!.fleet[0]).toMatchObject({ id: 'ada', role: 'dev' });
  });
});

describe('positions in identity files', () => {
  it('an agent an identity declares is placed at its role, in the errors and in the fleet', () => {
    const files = {
      'roles/dev.md': 'D',
      'identities/ada.md': '---\nteam: blue\nrole: designer\n---\nAda.\n',
      'identities/bob.md': '---\nrole: dev\n---\nBob.\n',
    };
    const result = memPack(files);
    expect(codes(result)).toEqual(['UNKNOWN_ROLE']);
    expect(result.diagnostics[0]).toMatchObject({ file: 'identities/ada.md', line: 3, col: 7 });
    const fleet = memPack({ ...files, 'identities/ada.md': '---\nteam: blue\nrole: dev\n---\nAda.\n' })
      .snapshot!.fleet;
    expect(fleet.map((a) => ({ id: a.id, ...a.at }))).toEqual([
      { id: 'ada', file: 'identities/ada.md', line: 3, col: 7 },
      { id: 'bob', file: 'identities/bob.md', line: 2, col: 7 },
    ]);
  });
});

describe('compose diagnostics', () => {
  const pack = okPack({
    'strata.yaml':
      'settings:\n  on: { type: boolean }\nlayers:\n  - id: must\n    file: "req/{role}.md"\n    required: true\n',
    'req/a.md': 'A',
  });

  it.each([
    [{ role: '../../etc/passwd' }, 'BAD_NAME'],
    [{ agent: 'x/y' }, 'BAD_NAME'],
    [{ team: '.hidden' }, 'BAD_NAME'],
    [{ role: 'a'.repeat(129) }, 'BAD_NAME'],
    [{ role: 'b' }, 'UNKNOWN_ROLE', 'REQUIRED_MISSING'],
    [{ role: 'a', settings: { on: 'perhaps' } }, 'INVALID_SETTING'],
    [{ role: 'a', settings: { off: '1' } }, 'UNKNOWN_SETTING'],
  ])('%j → %s', (request, ...codes) => {
    const outcome = tryCompose(pack, request);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.diagnostics.map((d) => d.code)).toEqual(codes);
  });

  it('FALLBACK_USED when no layer is included', () => {
    const outcome = tryCompose(okPack({}, { preset: 'chorus' }), { role: 'anyone' });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result.text).toBe('You are a helpful assistant.');
    expect(outcome.result.fallback).toBe(true);
    expect(outcome.result.diagnostics.map((d) => d.code)).toEqual(['UNKNOWN_ROLE', 'FALLBACK_USED']);
  });
});

describe('YAML duplicate keys', () => {
  it.each([
    [
      'roles.yaml',
      'roles:\n  a: { system_prompt: A }\n  b: { system_prompt: B }\n  a: { system_prompt: C }\n',
      4,
      3,
    ],
    ['strata.yaml', 'separator: x\nfallback: y\nseparator: z\n', 3, 1],
    ['identities/ada.md', '---\nrole: dev\nrole: qa\n---\nAda.\n', 3, 1],
  ])('%s: a repeated key is refused where it repeats', (file, text, line, col) => {
    const result = memPack({ 'base.md': 'B', [file]: text });
    const d = result.diagnostics.find((x) => x.file === file)!;
    expect(d).toMatchObject({ severity: 'error', file, line, col });
    expect(['YAML_SYNTAX', 'BAD_FRONTMATTER']).toContain(d.code);
  });
});
