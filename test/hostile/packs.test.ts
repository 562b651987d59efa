import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { stablePackLoader } from '../../src/reload/read.js';
import { loadPack } from '../../src/source/load.js';
import { readRegularFile } from '../../src/source/read-dir.js';
import { cli, codes, EXAMPLES, memPack, okPack, tempDir, writeFiles } from '../helpers.js';

const ROBOCO = join(EXAMPLES, 'roboco');

function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/**
 * Hostile packs, one test per finding, each written from its reproduction: the pack
 * must load into coded diagnostics (never a throw, a hang or a file outside the pack).
 */
describe('hostile packs', () => {
  it('invalid UTF-8 in a role-registry YAML file is INVALID_UTF8, and the other diagnostics are kept', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'roles.yaml': 'roles:\n  a:\n    system_prompt: A\n    extends: nowhere\n',
      'site-roles.yaml': new Uint8Array([...new TextEncoder().encode('roles:\n  x'), 0xff, 0x3a, 0x0a]),
    });
    const result = await loadPack(dir);
    expect(result.snapshot).toBeUndefined();
    expect(codes(result).sort()).toEqual(['INVALID_UTF8', 'UNKNOWN_ROLE']);
  });

  it('a registry glob built to backtrack (*a*a…*ab.yaml) loads at once', () => {
    const glob = `${'*a'.repeat(10)}*ab.yaml`;
    const result = memPack({
      'strata.yaml': `extends: chorus\nregistry:\n  files: [${JSON.stringify(glob)}]\n`,
      [`${'a'.repeat(35)}.yaml`]: 'roles:\n  a:\n    system_prompt: A\n',
    });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect([...result.snapshot!.roles.keys()]).toEqual([]);
  });

  it('a pack whose only entry is ..data -> a folder outside it is PATH_OUTSIDE_PACK for validate and serve alike', async () => {
    const outside = tempDir();
    writeFiles(outside, { 'base.md': 'Secret.\n', 'roles/writer.md': 'Outside.\n' });
    const pack = tempDir();
    symlinkSync(outside, join(pack, '..data'));
    for (const result of [await loadPack(pack), await stablePackLoader({ dir: pack, env: {} })({})]) {
      expect(result.snapshot).toBeUndefined();
      expect(result.diagnostics).toEqual([
        expect.objectContaining({ code: 'PATH_OUTSIDE_PACK', file: '..data', severity: 'error' }),
      ]);
    }
    const validate = await cli(['validate', '--dir', pack]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toMatch(/^error PATH_OUTSIDE_PACK: \.\.data: \.\.data points outside the pack/m);
  });

  it('a ConfigMap volume is read the same by validate and the service (the ..data folder, in the pack)', async () => {
    const pack = tempDir();
    cpSync(ROBOCO, join(pack, '..2026_01_01'), { recursive: true });
    symlinkSync('..2026_01_01', join(pack, '..data'));
    for (const name of ['base.md', 'roles', 'doctrine', 'teams', 'identities', 'fleet.yaml', 'roles.yaml'])
      symlinkSync(`..data/${name}`, join(pack, name));
    const direct = await loadPack(ROBOCO);
    const viaVolume = await loadPack(pack);
    const served = await stablePackLoader({ dir: pack })({});
    expect(viaVolume.snapshot).toBeDefined();
    expect(served.snapshot?.version).toBe(viaVolume.snapshot?.version);
    expect([...viaVolume.snapshot!.files.keys()]).toEqual(
      [...direct.snapshot!.files.keys()].filter((p) => !/^(_generated|tools)\/|^verbs\.yaml$/.test(p)),
    );
  });

  it('a symlink in a ConfigMap folder leading out of the pack is PATH_OUTSIDE_PACK', async () => {
    const outside = tempDir();
    writeFiles(outside, { 'secret.md': 'Secret.\n' });
    const pack = tempDir();
    writeFiles(pack, { '..v1/base.md': 'Base.\n' });
    symlinkSync(join(outside, 'secret.md'), join(pack, '..v1', 'doctrine.md'));
    symlinkSync('..v1', join(pack, '..data'));
    symlinkSync('..data/base.md', join(pack, 'base.md'));
    symlinkSync('..data/doctrine.md', join(pack, 'doctrine.md'));
    const result = await loadPack(pack);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'PATH_OUTSIDE_PACK', file: 'doctrine.md' }),
    ]);
  });

  it('a pack over --max-pack-bytes is PACK_TOO_LARGE, and over --max-files TOO_MANY_FILES (library and CLI)', async () => {
    const dir = tempDir();
    const files: Record<string, string> = { 'base.md': 'Base.\n' };
    for (let i = 0; i < 20; i++) files[`doctrine/${String(i).padStart(2, '0')}.md`] = 'x'.repeat(1000);
    writeFiles(dir, files);
    expect(codes(await loadPack(dir, { maxPackBytes: 10_000 }))).toEqual(['PACK_TOO_LARGE']);
    expect(codes(await loadPack(dir, { maxFiles: 10 }))).toEqual(['TOO_MANY_FILES']);
    expect((await loadPack(dir, { maxPackBytes: 30_000, maxFiles: 30 })).snapshot).toBeDefined();
    const big = await cli(['validate', '--dir', dir, '--max-pack-bytes', '10000']);
    expect(big.code).toBe(1);
    expect(big.stdout).toMatch(/^error PACK_TOO_LARGE: .*--max-pack-bytes/m);
    const many = await cli(['compose', '--dir', dir, '--max-files', '5']);
    expect(many.code).toBe(1);
    expect(many.stderr).toMatch(/^error TOO_MANY_FILES: .*--max-files/m);
    expect((await cli(['validate', '--dir', dir, '--max-files', '0'])).code).toBe(2);
  });

  it('a FIFO or a folder named like a layer file is SPECIAL_FILE', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'roles/writer.md': 'Writer.\n' });
    mkfifo(join(dir, 'base.md'));
    mkdirSync(join(dir, 'doctrine.md'));
    const result = await loadPack(dir);
    expect(result.snapshot).toBeUndefined();
    expect(result.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ['SPECIAL_FILE', 'base.md'],
      ['SPECIAL_FILE', 'doctrine.md'],
    ]);
  });

  it('a FIFO swapped in after the listing is refused at open without blocking', async () => {
    const dir = tempDir();
    mkfifo(join(dir, 'base.md'));
    // What a read finds when base.md became a FIFO between listing and opening it.
    const read = await readRegularFile(join(dir, 'base.md'), 'base.md', 1024);
    expect(read).toEqual({ problem: expect.objectContaining({ code: 'SPECIAL_FILE', file: 'base.md' }) });
  });

  it('a file whose name is not UTF-8 is READ_ERROR saying so, with the name as it reads', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'base.md': 'Base.\n', 'roles/writer.md': 'Writer.\n' });
    writeFileSync(
      Buffer.concat([Buffer.from(join(dir, 'roles/bad')), Buffer.from([0xff]), Buffer.from('.md')]),
      'x',
    );
    const result = await loadPack(dir);
    expect(result.snapshot).toBeUndefined();
    expect(result.diagnostics.map((d) => [d.code, d.file, d.message])).toEqual([
      [
        'READ_ERROR',
        'roles/bad\uFFFD.md',
        'cannot read entry: its name is not valid UTF-8 (strata reads file names as UTF-8): rename it',
      ],
    ]);
  });

  it('a folder whose name is not UTF-8 is said at the folder: an error in a whole pack, left out with a warning where the pack selects its files', async () => {
    const badFolder = (dir: string, under: string) => {
      const path = Buffer.concat([Buffer.from(join(dir, under, 'bad')), Buffer.from([0xff])]);
      mkdirSync(path, { recursive: true });
      writeFileSync(Buffer.concat([path, Buffer.from('/AGENTS.md')]), 'Inner.\n');
      writeFileSync(Buffer.concat([path, Buffer.from('/w2.md')]), 'Inner.\n');
    };
    const said =
      'cannot read folder: its name is not valid UTF-8 (strata reads file names as UTF-8): rename it';
    // A whole pack (no files:): the folder could hold roles.
    const whole = tempDir();
    writeFiles(whole, { 'base.md': 'Base.\n', 'roles/writer.md': 'Writer.\n' });
    badFolder(whole, 'roles');
    const a = await loadPack(whole, { env: {} });
    expect(a.snapshot).toBeUndefined();
    expect(a.diagnostics.map((d) => [d.severity, d.code, d.file, d.message])).toEqual([
      ['error', 'READ_ERROR', 'roles/bad\uFFFD/', said],
    ]);
    // AGENTS.md files (unreadable: skip) and a crew (a data folder beside it): the folder
    // was passed over without a word; it is left out, and said.
    const left = `${said}; the folder is left out: no file in it is read`;
    const tree = tempDir();
    writeFiles(tree, { 'AGENTS.md': 'Root.\n' });
    badFolder(tree, '');
    const b = await loadPack(tree, { env: {} });
    expect(b.snapshot?.preset).toBe('agents-md');
    expect(b.diagnostics.map((d) => [d.severity, d.code, d.file, d.message])).toEqual([
      ['warning', 'READ_ERROR', 'bad\uFFFD/', left],
    ]);
    const crew = tempDir();
    writeFiles(crew, { 'config/agents.yaml': 'r:\n  role: R\n  goal: G\n  backstory: B\n' });
    badFolder(crew, 'data');
    const c = await loadPack(crew, { env: {} });
    expect(c.snapshot?.preset).toBe('crewai');
    expect(c.diagnostics.map((d) => [d.severity, d.code, d.file, d.message])).toEqual([
      ['warning', 'READ_ERROR', 'data/bad\uFFFD/', left],
    ]);
  });

  it.each([
    [
      'a list of ids',
      'roles: [writer, critic]\n',
      'roles.yaml:1:8',
      'roles must be a mapping of role id to record, not a list',
    ],
    [
      'a scalar',
      'roles: writer\n',
      'roles.yaml:1:8',
      'roles must be a mapping of role id to record, not a string',
    ],
  ])(
    'a registry whose roles: is %s is BAD_ROLE where it is written, not a file without roles',
    (_, yaml, where, message) => {
      for (const preset of ['roboco', 'chorus']) {
        const result = memPack({ 'roles.yaml': yaml }, { preset });
        expect(result.snapshot, preset).toBeUndefined();
        expect(
          result.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col} ${d.message}`),
        ).toContain(`BAD_ROLE ${where} ${message}`);
      }
    },
  );

  it.each([
    ['!!binary', 'roles:\n  a:\n    system_prompt: !!binary aGVsbG8=\n'],
    ['!!timestamp', 'roles:\n  a:\n    system_prompt: !!timestamp 2001-12-14\n'],
    ['!!set', 'roles: !!set\n  ? a\n'],
    ['!!omap', 'roles: !!omap\n  - a: {system_prompt: A}\n'],
    ['!prompt', 'roles:\n  a:\n    system_prompt: !prompt Be brief.\n'],
  ])(
    'a YAML %s tag is YAML_SYNTAX where it is written, never a prompt left out or a file read as empty',
    (tag, yaml) => {
      const result = memPack({ 'roles.yaml': yaml }, { preset: 'chorus' });
      expect(result.snapshot).toBeUndefined();
      expect(result.diagnostics).toEqual([
        expect.objectContaining({
          code: 'YAML_SYNTAX',
          file: 'roles.yaml',
          line: expect.any(Number),
          col: expect.any(Number),
          message: expect.stringContaining(`the tag ${tag} is not read`),
        }),
      ]);
    },
  );

  it('a layer id given twice in one manifest is BAD_MANIFEST, not the second entry silently replacing the first', () => {
    const result = memPack({
      'strata.yaml': 'layers:\n  - id: rules\n    file: house.md\n  - id: rules\n    file: team.md\n',
      'house.md': 'House rules.\n',
      'team.md': 'Team rules.\n',
    });
    expect(result.snapshot).toBeUndefined();
    expect(result.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col} ${d.message}`)).toEqual([
      'BAD_MANIFEST strata.yaml:4:9 layer id rules is given twice in this file (first as layers[0]); give each layer its own id',
    ]);
  });

  it('extends naming no preset lists every preset', () => {
    const result = memPack({ 'strata.yaml': 'extends: crew-ai\n' });
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      'extends "crew-ai": no such preset or manifest file (presets: roboco, crewai, agents-md, claude-agents, chorus)',
    ]);
  });

  it('the example packs still load', async () => {
    for (const name of ['roboco', 'chorus'])
      expect((await loadPack(join(EXAMPLES, name))).snapshot).toBeDefined();
  });
});

describe('role fields a layer takes as prompt text', () => {
  it.each([
    ['a number', '12', 'a number'],
    ['a list', '[Be brief., Be kind.]', 'a list'],
    ['a mapping', '{text: Be brief.}', 'a mapping'],
    ['a boolean', 'true', 'a boolean'],
  ])(
    'a system_prompt that is %s is BAD_ROLE where it is written, not a layer silently left out',
    (_, value, kind) => {
      const result = memPack({
        'strata.yaml':
          'registry:\n  files: [roles.yaml]\nlayers:\n  - id: rules\n    text: House rules.\n  - id: persona\n    role_field: system_prompt\n',
        'roles.yaml': `roles:\n  writer:\n    system_prompt: ${value}\n  critic:\n    system_prompt: Critic.\n`,
      });
      expect(result.snapshot).toBeUndefined();
      expect(result.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col} ${d.message}`)).toEqual([
        `BAD_ROLE roles.yaml:3:20 role writer: system_prompt is ${kind}, not text; a layer takes it as prompt text (role_field: system_prompt): quote it, or write it as a string`,
      ]);
    },
  );
});

describe('role fields a layer takes, mistyped', () => {
  it.each([
    ['a YAML registry', 'system_promt', 'roles.yaml:3:5'],
    ['a YAML registry, case and one letter', 'System_Promtp', 'roles.yaml:3:5'],
  ])('in %s, %s is UNKNOWN_KEY at the key, with the field it seems meant for', (_, key, at) => {
    const result = memPack({
      'strata.yaml':
        'registry:\n  files: [roles.yaml]\nlayers:\n  - id: rules\n    text: House rules.\n  - id: persona\n    role_field: system_prompt\n',
      'roles.yaml': `roles:\n  writer:\n    ${key}: Write.\n  critic:\n    system_prompt: Critic.\n`,
    });
    expect(result.snapshot).toBeDefined();
    expect(result.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col} ${d.suggestions}`)).toEqual([
      `UNKNOWN_KEY ${at} system_prompt`,
    ]);
    expect(result.diagnostics[0]!.message).toBe(
      `role writer has no system_prompt (a layer takes it: role_field: system_prompt), but has "${key}": did you mean "system_prompt"? The layer is left out for this role`,
    );
  });

  it('an identity file whose frontmatter mistypes team is UNKNOWN_KEY, not an agent silently without its team', () => {
    const result = memPack({
      'strata.yaml':
        'registry:\n  files: [roles.yaml]\nfleet:\n  identities: "identities/{agent}.md"\nlayers:\n  - id: team\n    file: "teams/{team}.md"\n  - id: identity\n    file: "identities/{agent}.md"\n',
      'roles.yaml': 'roles:\n  developer:\n    name: Developer\n',
      'teams/payments.md': 'Payments.',
      'identities/linus.md': '---\nrole: developer\ntaem: payments\n---\nLinus.\n',
    });
    expect(result.snapshot?.fleet.map((a) => [a.id, a.team ?? null])).toEqual([['linus', null]]);
    expect(result.diagnostics.map((d) => `${d.code} ${d.file}:${d.line} ${d.suggestions}`)).toEqual([
      'UNKNOWN_KEY identities/linus.md:3 team',
    ]);
    expect(result.diagnostics[0]!.message).toBe(
      'agent linus: no team in its identity frontmatter, but "taem": did you mean "team"? The agent is read without it',
    );
  });

  it('a key that is a name of its own (a prefix, or far from the field) says nothing', () => {
    const result = memPack({
      'strata.yaml':
        'registry:\n  files: [roles.yaml]\nlayers:\n  - id: persona\n    role_field: system_prompt\n    missing: skip\n  - id: rules\n    text: House rules.\n',
      'roles.yaml': 'roles:\n  writer:\n    system: Write.\n    prompt_notes: x\n',
    });
    expect(result.diagnostics).toEqual([]);
  });
});

describe('YAML escapes that are no Unicode text', () => {
  it.each([
    [
      'a registry value',
      { 'roles.yaml': 'roles:\n  a:\n    system_prompt: "Be \\ud800 brief."\n' },
      'YAML_SYNTAX',
      'roles.yaml:3:20',
    ],
    [
      'frontmatter',
      {
        'roles.yaml': 'roles:\n  a:\n    system_prompt: A\n',
        'defaults.md': '---\nnote: "\\udc00"\n---\nBody.\n',
      },
      'BAD_FRONTMATTER',
      'defaults.md:2:7',
    ],
  ])(
    'a lone surrogate escape in %s is a coded error where it is written, not U+FFFD in the prompt',
    (_, files, code, where) => {
      const result = memPack(files, { preset: 'chorus' });
      expect(result.snapshot).toBeUndefined();
      expect(result.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col}`)).toEqual([
        `${code} ${where}`,
      ]);
      expect(result.diagnostics[0]!.message).toContain('lone surrogate');
    },
  );

  it('a surrogate pair written as two escapes is the character', () => {
    const result = memPack(
      { 'roles.yaml': 'roles:\n  a:\n    system_prompt: "Smile \\ud83d\\ude00"\n' },
      { preset: 'chorus' },
    );
    expect(result.diagnostics).toEqual([]);
    expect(result.snapshot!.roles.get('a')!.fields.system_prompt).toBe('Smile 😀');
  });
});

describe('file names in diagnostics', () => {
  it('a file named with a newline cannot split a diagnostic line or forge the next one', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'roles.yaml': 'roles:\n  a:\n    system_prompt: A\n',
      'x.md\nerror FAKE: roles.yaml: forged.md': 'Orphan.\n',
    });
    const r = await cli(['validate', '--dir', dir, '--preset', 'chorus']);
    const lines = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l !== '');
    expect(lines.filter((l) => l.includes('FAKE'))).toEqual([
      'warning ORPHAN_FILE: x.md\\nerror FAKE: roles.yaml: forged.md: no layer of the manifest can ever read this file (and it is no role, fleet or verbs file)',
    ]);
  });

  it('a zero-width or direction-changing character in a name is written as an escape: it cannot hide what is wrong, nor turn the line around', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'base.md': 'Base.\n',
      'roles/qa\u200b.md': 'QA.\n',
      'roles/d\u202eev.md': 'Dev.\n',
      'roles.yaml': 'roles:\n  "rev\u2066iewer":\n    name: R\n',
    });
    const r = await cli(['validate', '--dir', dir, '--preset', 'roboco']);
    const lines = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.includes('BAD_ROLE'));
    expect(lines.map((l) => l.split(' is not a valid name')[0])).toEqual([
      'error BAD_ROLE: roles.yaml:2:3: role id "rev\\u2066iewer"',
      'warning BAD_ROLE: roles/d\\u202eev.md: role id "d\\u202eev"',
      'warning BAD_ROLE: roles/qa\\u200b.md: role id "qa\\u200b"',
    ]);
  });

  it('a folder named with a newline cannot split a row of the explain table or forge the next one', async () => {
    const dir = tempDir();
    const folder = 'api\n     ↳     included  forged/AGENTS.md  5  0-5';
    writeFiles(dir, { 'AGENTS.md': 'Root.\n', [`${folder}/AGENTS.md`]: 'Api.\n' });
    const r = await cli(['explain', '--dir', dir, '--var', `cwd=${folder}`]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => l.includes('forged'))).toEqual([
      `inputs cwd=${folder.replace('\n', '\\n')} (request)`,
      expect.stringMatching(
        /^ +↳ +included +api\\n +↳ +included +forged\/AGENTS\.md +5 +0-5\/AGENTS\.md +5 +8-13$/,
      ),
    ]);
  });
});

describe('file names in tables', () => {
  it('a folder named with a direction-changing character is written as an escape in the explain table', async () => {
    const dir = tempDir();
    const folder = 'api\u202eipa';
    writeFiles(dir, { 'AGENTS.md': 'Root.\n', [`${folder}/AGENTS.md`]: 'Api.\n' });
    const r = await cli(['explain', '--dir', dir, '--var', `cwd=${folder}`]);
    expect(r.code).toBe(0);
    const rows = r.stdout.split('\n').filter((l) => l.includes('ipa'));
    expect(rows).toEqual([
      'inputs cwd=api\\u202eipa (request)',
      expect.stringMatching(/^ +↳ +included +api\\u202eipa\/AGENTS\.md +5 +8-13$/),
    ]);
  });
});

describe('role fields a template writes as text', () => {
  it('a list named by {{role.FIELD}} is BAD_ROLE where it is written, not the layer silently left out; a number is written as text', () => {
    const manifest =
      'registry:\n  files: [roles.yaml]\nlayers:\n  - id: rules\n    text: House rules.\n  - id: limits\n    text: "At most {{role.max_tasks}} tasks for {{role.focus}}."\n';
    const bad = memPack({
      'strata.yaml': manifest,
      'roles.yaml': 'roles:\n  writer:\n    max_tasks: 3\n    focus: [prose, poems]\n',
    });
    expect(bad.snapshot).toBeUndefined();
    expect(bad.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col} ${d.message}`)).toEqual([
      'BAD_ROLE roles.yaml:4:12 role writer: focus is a list, which a template cannot write as text ({{role.focus}}): give it as a string',
    ]);
    const good = okPack({
      'strata.yaml': manifest,
      'roles.yaml': 'roles:\n  writer:\n    max_tasks: 3\n    focus: prose\n',
    });
    const composed = tryCompose(good, { role: 'writer' });
    expect(composed.ok && composed.result.text).toBe('House rules.\n\n---\n\nAt most 3 tasks for prose.');
  });
});

describe('frontmatter fences', () => {
  it('an opening `--- ` with trailing white space is a BAD_FRONTMATTER warning, not YAML silently served as prompt text', () => {
    const result = memPack(
      {
        'roles.yaml': 'roles:\n  a:\n    system_prompt: A\n',
        'defaults.md': '--- \nowner: ops\n---\nBody.\n',
      },
      { preset: 'chorus' },
    );
    expect(result.diagnostics.map((d) => `${d.severity} ${d.code} ${d.file}:${d.line}:${d.col}`)).toEqual([
      'warning BAD_FRONTMATTER defaults.md:1:4',
    ]);
  });

  it('TOML frontmatter (`+++`) is a BAD_FRONTMATTER warning, not TOML silently served as prompt text', () => {
    const result = memPack({
      'base.md': 'Base.\n',
      'roles/developer.md': '+++\nname = "Developer"\ntags = ["eng"]\n+++\nShip it.\n',
    });
    expect(result.diagnostics.map((d) => `${d.severity} ${d.code} ${d.file}:${d.line}:${d.col}`)).toEqual([
      'warning BAD_FRONTMATTER roles/developer.md:1:1',
    ]);
    expect(result.diagnostics[0]!.message).toMatch(/`\+\+\+` opens TOML frontmatter/);
    // The text is what it was: the file as written.
    expect(result.snapshot!.files.get('roles/developer.md')!.prompt).toMatch(/^\+\+\+\nname/);
  });

  it('frontmatter ended by the YAML end marker `...` is unclosed, and the error says the `...` does not close it', () => {
    const result = memPack({
      'base.md': 'Base.\n',
      'roles/developer.md': '---\nname: Developer\n...\nShip it.\n',
    });
    expect(result.snapshot).toBeUndefined();
    expect(
      result.diagnostics.map((d) => `${d.severity} ${d.code} ${d.file}:${d.line}:${d.col} ${d.message}`),
    ).toEqual([
      'error BAD_FRONTMATTER roles/developer.md:1:1 frontmatter opened on line 1 is never closed by a `---` line (the `...` on line 3 does not close it)',
    ]);
  });
});

describe('numbers YAML writes and JSON cannot', () => {
  it.each([
    [
      'a string setting',
      'settings:\n  motto: { type: string, default: .nan }\n',
      'setting motto: default .nan',
      35,
    ],
    [
      'a string input',
      'inputs:\n  motto: { type: string, default: -.inf }\n',
      'input motto: default -.inf',
      35,
    ],
    [
      'an integer setting',
      'settings:\n  motto: { type: integer, default: .inf }\n',
      'setting motto: default .inf',
      36,
    ],
  ])(
    '%s defaulting to .inf or .nan is BAD_MANIFEST where the default is written, shown as written, never the text "NaN"',
    (_, yaml, said, col) => {
      const result = memPack({
        'strata.yaml': `extends: roboco\n${yaml}layers:\n  - id: motto\n    text: "{{motto}}"\n`,
        'base.md': 'Base.\n',
      });
      expect(result.snapshot).toBeUndefined();
      const bad = result.diagnostics.filter((d) => d.code === 'BAD_MANIFEST');
      expect(bad.map((d) => `${d.file}:${d.line}:${d.col} ${d.message.split(' is invalid')[0]}`)).toEqual([
        `strata.yaml:3:${col} ${said}`,
      ]);
    },
  );

  it('a request giving a string setting NaN (library) is INVALID_SETTING, not the text "NaN"', () => {
    const snapshot = okPack({
      'strata.yaml':
        'extends: roboco\nsettings:\n  motto: { type: string, default: x }\nlayers:\n  - id: motto\n    text: "{{motto}}"\n',
      'base.md': 'Base.\n',
    });
    const out = tryCompose(snapshot, { settings: { motto: Number.NaN } });
    expect(out.ok).toBe(false);
    expect((out.ok ? [] : out.diagnostics).map((d) => `${d.code} ${d.message}`)).toEqual([
      'INVALID_SETTING setting motto: value .nan is invalid; accepted values: a string (quote it to mean the text)',
    ]);
  });
});

describe('fleet names YAML reads as numbers', () => {
  it.each([
    [
      'an id 007',
      'agents:\n  - id: 007\n    role: dev\n',
      'fleet.yaml:2:9 agent id is the number 7, not a name',
    ],
    [
      'a team 1.0',
      'agents:\n  - id: ada\n    role: dev\n    team: 1.0\n',
      'fleet.yaml:4:11 agent team is the number 1, not a name',
    ],
    [
      'a role true',
      'agents:\n  - id: ada\n    role: true\n',
      'fleet.yaml:3:11 agent role is the boolean true, not a name',
    ],
  ])(
    '%s is BAD_NAME at the value, saying it is a number (not "7 is not a valid name", which a quoted "7" is)',
    (_, fleet, said) => {
      const result = memPack({ 'base.md': 'Base.\n', 'roles/dev.md': 'Dev.\n', 'fleet.yaml': fleet });
      expect(result.snapshot).toBeUndefined();
      expect(
        result.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col} ${d.message.split(':')[0]}`),
      ).toEqual([`BAD_NAME ${said}`]);
    },
  );

  // A name that is text but no name was said at the agent's first line (its id), not at
  // the value: `team: ../x` three lines down, or an identity file's team at its role.
  it.each([
    [
      'a team ../x',
      'agents:\n  - id: ada\n    role: dev\n    team: ../x\n',
      'fleet.yaml:4:11 agent team "../x" is not a valid name',
    ],
    [
      'a role written as a list',
      'agents:\n  - id: ada\n    role: [dev]\n',
      'fleet.yaml:3:11 agent role ["dev"] is not a valid name',
    ],
    [
      'a config that is no mapping',
      'agents:\n  - id: ada\n    role: dev\n    config: fast\n',
      'fleet.yaml:4:13 agent ada',
    ],
  ])('%s is said at the value', (_, fleet, said) => {
    const result = memPack({ 'base.md': 'Base.\n', 'roles/dev.md': 'Dev.\n', 'fleet.yaml': fleet });
    expect(result.snapshot).toBeUndefined();
    expect(
      result.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.message.split(/(?<=name)|:/)[0]}`),
    ).toEqual([said]);
  });

  it('an identity frontmatter team that is no name is said at its line, not at the role', () => {
    const result = memPack({
      'base.md': 'Base.\n',
      'roles/dev.md': 'Dev.\n',
      'identities/ada.md': '---\nrole: dev\nteam: ../x\n---\nAda.\n',
    });
    expect(result.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col}`)).toEqual([
      'BAD_NAME identities/ada.md:3:7',
    ]);
  });

  it('an identity frontmatter team: 2024 is said at its line', () => {
    const result = memPack({
      'base.md': 'Base.\n',
      'roles/dev.md': 'Dev.\n',
      'identities/ada.md': '---\nrole: dev\nteam: 2024\n---\nAda.\n',
    });
    expect(result.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col}`)).toEqual([
      'BAD_NAME identities/ada.md:3:7',
    ]);
  });
});

describe('integers past 2^53', () => {
  it.each([
    ['12345678901234567890', '12345678901234567000'],
    ['9007199254740993', '9007199254740992'],
    ['0x20000000000001', '9007199254740992'],
  ])('a config value %s is YAML_SYNTAX where it is written, not silently %s', (written, read) => {
    const result = memPack({
      'base.md': 'Base.\n',
      'roles/dev.md': 'Dev.\n',
      'fleet.yaml': `agents:\n  - id: ada\n    role: dev\n    config: { seed: ${written} }\n`,
    });
    expect(result.snapshot).toBeUndefined();
    expect(result.diagnostics.map((d) => `${d.code} ${d.file}:${d.line}:${d.col} ${d.message}`)).toEqual([
      `YAML_SYNTAX fleet.yaml:4:21 the integer ${written} is beyond 2^53: strata (as JSON in JavaScript) would read it as ${read}, another number; quote it to keep its digits as text`,
    ]);
  });

  it('2^53 itself, a quoted one and a float are read as ever', () => {
    const snapshot = okPack({
      'base.md': 'Base.\n',
      'roles/dev.md': 'Dev.\n',
      'fleet.yaml':
        'agents:\n  - id: ada\n    role: dev\n    config: { a: 9007199254740992, b: "12345678901234567890", c: 1.0e30 }\n',
    });
    expect(snapshot.fleet[0]!.config).toEqual({ a: 2 ** 53, b: '12345678901234567890', c: 1e30 });
  });
});

describe('a registry file named by its path that holds no roles: mapping', () => {
  it.each([
    [
      'a list at its top',
      '- id: developer\n  model: big\n',
      'error BAD_ROLE roles.yaml:1:1',
      /must be a mapping with a roles: key .* not a list$/,
    ],
    [
      'a typo of roles:',
      'rolse:\n  developer:\n    model: big\n',
      'warning BAD_ROLE roles.yaml:1:1',
      /has no roles: key; it has "rolse": did you mean "roles"\?/,
    ],
    [
      'other keys only',
      'owner: ops\n',
      'warning BAD_ROLE roles.yaml:1:1',
      /has no roles: key; no role is read from it$/,
    ],
  ])('%s is said, not a file silently without roles', (_, yaml, at, message) => {
    const result = memPack({ 'base.md': 'Base.\n', 'roles/developer.md': 'Dev.\n', 'roles.yaml': yaml });
    const bad = result.diagnostics.filter((d) => d.code === 'BAD_ROLE');
    expect(bad.map((d) => `${d.severity} ${d.code} ${d.file}:${d.line}:${d.col}`)).toEqual([at]);
    expect(bad[0]!.message).toMatch(message);
  });

  it('an empty roles: and a file matched by a wildcard glob (chorus *.yaml) say nothing', () => {
    expect(memPack({ 'base.md': 'Base.\n', 'roles.yaml': 'roles:\n' }).diagnostics).toEqual([]);
    const chorus = memPack(
      { 'roles.yaml': 'roles:\n  a:\n    system_prompt: A\n', 'data.yaml': '- 1\n- 2\n' },
      { preset: 'chorus' },
    );
    expect(chorus.diagnostics).toEqual([]);
  });
});

describe('folders leading out of the pack', () => {
  const outside = () => {
    const dir = tempDir('strata-outside-');
    writeFiles(dir, {
      'agents/o.md': '---\nname: outsider\ndescription: O\n---\nFrom outside.\n',
      'AGENTS.md': 'Outside rules.\n',
    });
    return dir;
  };

  it('a folder a pack with files: may select files in is PATH_OUTSIDE_PACK at the folder, not passed over without a word', async () => {
    const away = outside();
    const claude = tempDir('strata-claude-out-');
    writeFiles(claude, { '.claude/agents/a.md': '---\nname: a\ndescription: A\n---\nA body.\n' });
    symlinkSync(join(away, 'agents'), join(claude, '.claude', 'agents', 'shared'));
    const agents = tempDir('strata-agents-md-out-');
    writeFiles(agents, { 'AGENTS.md': 'Root rules.\n', 'api/AGENTS.md': 'API rules.\n' });
    symlinkSync(away, join(agents, 'api', 'vendor'));
    for (const [dir, folder] of [
      [claude, '.claude/agents/shared/'],
      [agents, 'api/vendor/'],
    ] as const) {
      const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
      expect(diagnostics.map((d) => [d.severity, d.code, d.file])).toEqual([
        ['warning', 'PATH_OUTSIDE_PACK', folder],
      ]);
      expect(diagnostics[0]!.message).toMatch(/; the folder is left out: no file in it is read$/);
      expect([...snapshot!.files.keys()].some((p) => p.startsWith(folder))).toBe(false);
    }
  });

  it('a pack without files: refuses it (at the folder), and one that cannot select a file in it says nothing', async () => {
    const away = outside();
    const roboco = tempDir('strata-roboco-out-');
    writeFiles(roboco, { 'base.md': 'Base.\n' });
    symlinkSync(away, join(roboco, 'teams'));
    expect(codesAt(await loadPack(roboco, { env: {} }))).toEqual([['error', 'PATH_OUTSIDE_PACK', 'teams/']]);
    const scoped = tempDir('strata-scoped-out-');
    writeFiles(scoped, {
      'strata.yaml': 'extends: roboco\nfiles: [base.md, "roles/*.md"]\n',
      'base.md': 'Base.\n',
      'roles/a.md': 'A.\n',
    });
    symlinkSync(away, join(scoped, 'notes'));
    symlinkSync(away, join(scoped, 'roles', 'more'));
    expect(codesAt(await loadPack(scoped, { env: {} }))).toEqual([]);
  });
});

function codesAt(result: {
  diagnostics: Array<{ severity: string; code: string; file?: string }>;
}): string[][] {
  return result.diagnostics.map((d) => [d.severity, d.code, d.file ?? '']);
}
