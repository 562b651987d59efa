import { describe, expect, it } from 'vitest';
import { compose } from '../../src/core/compose/compose.js';
import { memPack, okPack } from '../helpers.js';

const robocoFiles = {
  'base.md': 'Base rules.',
  'roles/developer.md': 'Developer role.',
  'teams/core.md': 'Core team.',
};

describe('extends', () => {
  it('extends a preset and overrides a default, inserts, replaces and removes layers', () => {
    const pack = okPack({
      ...robocoFiles,
      'notice.md': 'Notice.',
      'strata.yaml': `
extends: roboco
separator: "\\n\\n"
settings:
  ponytail_intensity: { default: lite }
layers:
  - id: notice
    file: notice.md
    before: base
  - id: team
    text: "Inline team text."
  - id: tools
    remove: true
`,
    });
    expect(pack.preset).toBe('roboco');
    expect(pack.manifest.layers.map((l) => l.id)).toEqual([
      'lifecycle',
      'notice',
      'base',
      'fable',
      'ponytail',
      'role',
      'verbs',
      'team',
      'identity',
      'ambient',
    ]);
    expect(pack.settings.values.ponytail_intensity).toBe('lite');
    expect(compose(pack, { role: 'developer', team: 'core' }).text).toBe(
      'Notice.\n\nBase rules.\n\nDeveloper role.\n\nInline team text.',
    );
  });

  it('extends a manifest file relative to the one that names it', () => {
    const pack = okPack({
      'strata.yaml': 'extends: ./shared/base.yaml\nfallback: Custom fallback.\n',
      'shared/base.yaml': 'extends: chorus\nseparator: " | "\n',
      'defaults.md': 'D.',
      'roles.yaml': 'roles:\n  r: { system_prompt: S. }\n',
    });
    expect(pack.manifest.chain).toEqual(['strata.yaml', 'shared/base.yaml', 'preset:chorus']);
    expect(compose(pack, { role: 'r' }).text).toBe('S. | D.');
  });

  it('names the whole chain of an extends cycle', () => {
    const result = memPack({
      'strata.yaml': 'extends: ./a.yaml\n',
      'a.yaml': 'extends: ./b.yaml\n',
      'b.yaml': 'extends: ./a.yaml\n',
    });
    const d = result.diagnostics.find((x) => x.code === 'EXTENDS_CYCLE')!;
    expect(d.message).toContain('strata.yaml -> a.yaml -> b.yaml -> a.yaml');
  });
});

describe('layer sources', () => {
  it('composes with provenance for each kind', () => {
    const withRoles = okPack({
      'strata.yaml': `
registry: { files: [roles.yaml] }
settings:
  tone: { type: string, default: calm }
layers:
  - id: persona
    role_field: system_prompt
  - id: inline
    text: "Tone: {{tone}}."
  - id: ambient
    input: ambient
  - id: d
    file: [defaults.md, defaults.txt]
`,
      'defaults.txt': '  Defaults from txt.  \n',
      'roles.yaml':
        'roles:\n  base: { system_prompt: "  Base persona.  " }\n  child: { extends: base, name: Child }\n',
      'fleet.yaml': 'agents:\n  - { id: ada, role: child }\n',
    });
    const result = compose(withRoles, { agent: 'ada', ambient: ' Now. ', settings: { tone: 'dry' } });
    expect(result.role).toBe('child');
    expect(result.text).toBe(
      'Base persona.\n\n---\n\nTone: dry.\n\n---\n\nNow.\n\n---\n\nDefaults from txt.',
    );
    expect(result.layers.map((l) => [l.id, l.kind, l.source ?? null, l.start, l.end])).toEqual([
      ['persona', 'role_field', 'roles.yaml', 0, 13],
      ['inline', 'text', null, 20, 30],
      ['ambient', 'input', null, 37, 41],
      ['d', 'file', 'defaults.txt', 48, 66],
    ]);
    expect(withRoles.roles.get('child')!.fields.system_prompt).toBe('  Base persona.  ');
  });

  it('skips with the right reasons', () => {
    const pack = okPack({
      'strata.yaml':
        'layers:\n  - { id: persona, role_field: system_prompt }\n  - { id: inline, text: T }\n  - { id: ambient, input: ambient }\n  - { id: d, file: [defaults.md, defaults.txt] }\n',
      'defaults.txt': 'D',
    });
    const result = compose(pack, {});
    expect(result.layers.map((l) => [l.id, l.included ? 'included' : l.reason])).toEqual([
      ['persona', 'no-value'],
      ['inline', 'included'],
      ['ambient', 'no-value'],
      ['d', 'included'],
    ]);
  });

  // A source written but refused was said twice, the first time wrongly: "layer x has no
  // source: give file, …" over a layer that gives file.
  it.each([
    ['file: 123', ['BAD_MANIFEST strata.yaml:3:11 layers[0].file must be a string or a list of strings']],
    ['input: foo', ['BAD_MANIFEST strata.yaml:3:12 input must be "ambient"']],
    ['role_field: 5', ['BAD_MANIFEST strata.yaml:3:17 layers[0].role_field must be a string']],
    ['file: a.md\n    text: hi', ['BAD_MANIFEST strata.yaml:2:5 give one source, not file and text']],
    [
      'variants:\n      - { when: { team: [a] } }',
      ['BAD_MANIFEST strata.yaml:4:9 a variant needs a source: file, input, role_field, text or chain'],
    ],
    // Nothing written: that is the problem, said once.
    [
      'description: d',
      [
        'BAD_MANIFEST strata.yaml:2:5 layer x has no source: give file, input, role_field, text, chain or variants',
      ],
    ],
  ])('a layer with %s is said to have what is wrong with its source, not to have none', (source, said) => {
    const result = memPack({ 'strata.yaml': `layers:\n  - id: x\n    ${source}\n` });
    expect(result.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col} ${d.message}`)).toEqual(
      said,
    );
  });

  it('uses the manifest fallback text', () => {
    const empty = okPack({
      'strata.yaml': 'fallback: Nothing to say.\nlayers:\n  - { id: a, file: a.md }\n',
    });
    const result = compose(empty, {});
    expect(result.text).toBe('Nothing to say.');
    expect(result.layers).toEqual([
      { id: 'a', included: false, reason: 'missing', kind: 'file', source: 'a.md' },
    ]);
  });
});

describe('preset detection', () => {
  it.each([
    [{ 'base.md': 'B' }, 'roboco'],
    [{ 'roles/x.md': 'X' }, 'roboco'],
    [{ 'defaults.md': 'D' }, 'chorus'],
    [{ 'defaults.txt': 'D' }, 'chorus'],
    [{ 'team.yaml': 'roles:\n  a: { system_prompt: A }\n' }, 'chorus'],
    [{}, 'chorus'],
  ])('%j is %s', (files, preset) => {
    expect(okPack(files).preset).toBe(preset);
  });

  it('a chorus pack: YAML files without a roles: mapping are not role files', () => {
    const pack = okPack({
      'other.yaml': 'agents: []\n',
      'roles.yaml': 'roles:\n  a: { system_prompt: A }\n',
    });
    expect([...pack.roles.keys()]).toEqual(['a']);
  });

  it('a roboco pack: roles come from roles/*.md and roles.yaml; an aliased file is not a role', () => {
    const pack = okPack({
      'roles/dev.md': '---\nname: Developer\n---\nDev.',
      'roles/board.md': 'Board.',
      'roles.yaml': 'roles:\n  chair: { file: board, name: Chair }\n',
    });
    expect([...pack.roles.keys()]).toEqual(['chair', 'dev']);
    expect(compose(pack, { role: 'chair' }).text).toBe('Board.');
    expect(pack.roles.get('dev')!.name).toBe('Developer');
  });
});

describe('append', () => {
  it('fills the template per request, on the same snapshot', () => {
    const pack = okPack({
      'strata.yaml': `
settings:
  level: { type: enum, values: [lite, full], default: full }
layers:
  - { id: doc, file: doc.md, append: "Level: {{level}}." }
  - { id: amb, input: ambient, append: "(ambient, {{level}})" }
`,
      'doc.md': '---\nv: 1\n---\nDoc.\n',
    });
    for (let i = 0; i < 2; i++) {
      expect(compose(pack, { settings: { level: 'lite' }, ambient: 'A' }).text).toBe(
        'Doc.\n\nLevel: lite.\n\n---\n\nA\n\n(ambient, lite)',
      );
      expect(compose(pack, { ambient: 'B' }).text).toBe(
        'Doc.\n\nLevel: full.\n\n---\n\nB\n\n(ambient, full)',
      );
    }
    const layer = compose(pack, {}).layers[0]!;
    expect(layer).toMatchObject({ id: 'doc', included: true, appended: true, start: 0, end: 18, bytes: 18 });
  });
});

describe('an unknown manifest key a typo away from a known one', () => {
  it.each([
    ['extend: roboco\n', 'strata.yaml:1:1', 'extend', ['extends']],
    ['extends: roboco\nlayers:\n  - id: x\n    txt: hi\n', 'strata.yaml:4:5', 'txt', ['text']],
  ])('%j is UNKNOWN_KEY naming the key meant', (manifest, at, key, suggestions) => {
    const result = memPack({ 'strata.yaml': manifest, 'base.md': 'Base.\n' });
    const d = result.diagnostics.find((x) => x.code === 'UNKNOWN_KEY')!;
    expect(`${d.file}:${d.line}:${d.col}`).toBe(at);
    expect(d.suggestions).toEqual(suggestions);
    expect(d.message).toContain(`unknown key "${key}"`);
    expect(d.message).toContain(`did you mean "${suggestions[0]}"?`);
  });
});
