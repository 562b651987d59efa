import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintPack } from '../../src/tooling/lint/lint.js';
import { cli, EXAMPLES, tempDir, writeFiles } from '../helpers.js';

// `strata validate` without the request inputs a pack's members need: every member is
// still checked (with stand-ins for the inputs), and one INPUTS_NEEDED note, no error and
// no failed exit, names what a compose will need. The same for every preset.

const CREWAI = join(EXAMPLES, 'crewai');
const NOTE =
  'info INPUTS_NEEDED: a compose needs the request inputs audience (role report_writer), quarter (role market_analyst), sector (role market_analyst); checked here with stand-ins (give --var NAME=VALUE to check with values; API: vars.NAME)\n';

function files(map: Record<string, string>): Map<string, Uint8Array> {
  return new Map(Object.entries(map).map(([k, v]) => [k, new TextEncoder().encode(v)]));
}

describe('validate and request inputs', () => {
  it('a crewai pack without --var validates (exit 0, --strict too) and notes the inputs a compose needs', async () => {
    for (const extra of [[], ['--strict']]) {
      const run = await cli(['validate', '--dir', CREWAI, ...extra]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(NOTE);
      expect(run.stderr).toMatch(/^0 errors, 0 warnings, 1 note \(/);
    }
  });

  it('the note names only the inputs not given; with all of them there is none', async () => {
    const some = await cli([
      'validate',
      '--dir',
      CREWAI,
      '--var',
      'sector=Energy',
      '--var',
      'audience=the board',
    ]);
    expect(some.code).toBe(0);
    expect(some.stdout).toBe(
      'info INPUTS_NEEDED: a compose needs the request inputs quarter (role market_analyst); checked here with stand-ins (give --var NAME=VALUE to check with values; API: vars.NAME)\n',
    );
    const all = await cli([
      'validate',
      '--dir',
      CREWAI,
      ...['--var', 'sector=Energy', '--var', 'audience=the board', '--var', 'quarter=Q3'],
    ]);
    expect(all.code).toBe(0);
    expect(all.stdout).toBe('');
    expect(all.stderr).toMatch(/^0 errors, 0 warnings \(/);
  });

  it('json counts the note apart; github prints it as a notice', async () => {
    const json = JSON.parse((await cli(['validate', '--dir', CREWAI, '--format', 'json'])).stdout);
    expect(json).toMatchObject({ ok: true, errors: 0, warnings: 0, notes: 1 });
    expect(json.diagnostics.map((d: { code: string; severity: string }) => [d.code, d.severity])).toEqual([
      ['INPUTS_NEEDED', 'info'],
    ]);
    const github = await cli(['validate', '--dir', CREWAI, '--format', 'github']);
    expect(github.code).toBe(0);
    expect(github.stdout).toMatch(
      /^::notice title=INPUTS_NEEDED::a compose needs the request inputs audience/,
    );
  });

  it('every record is still checked: a bad llm beside a missing input is reported', () => {
    const result = lintPack({
      files: files({
        'agents.yaml': [
          'analyst:',
          '  role: "{sector} Analyst"',
          '  goal: Read {sector}',
          '  backstory: Numbers.',
          '  llm: 5',
          'writer:',
          '  role: Writer',
          '  goal: Write for {audience}',
          '  backstory: Words.',
          '',
        ].join('\n'),
      }),
      env: {},
    });
    expect(result.diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ['info', 'INPUTS_NEEDED'],
      ['error', 'BAD_ROLE'],
    ]);
  });

  it.each([
    ['chorus', { 'defaults.md': 'Help with {{product}} at level {{level}} in {{mode}}.\n' }],
    [
      'roboco',
      {
        'base.md': 'Base.\n',
        'roles/dev.md': 'Ship {{product}} at level {{level}} in {{mode}}.\n',
        'roles.yaml': 'roles:\n  dev: {}\n',
      },
    ],
  ])('a %s pack with declared inputs and no --var: the same note, stand-ins of each type', (preset, pack) => {
    const manifest = [
      `extends: ${preset}`,
      'inputs:',
      '  product: { type: string }',
      '  level: { type: integer, min: 2, max: 5 }',
      '  mode: { type: enum, values: [fast, slow] }',
      'layers:',
      '  - id: focus',
      '    text: "Focus: {{product}} {{level}} {{mode}}"',
      '',
    ].join('\n');
    const result = lintPack({ files: files({ 'strata.yaml': manifest, ...pack }), env: {} });
    const notes = result.diagnostics.filter((d) => d.severity !== 'warning');
    expect(notes.map((d) => [d.severity, d.code])).toEqual([['info', 'INPUTS_NEEDED']]);
    expect(notes[0]!.message).toMatch(
      /^a compose needs the request inputs level \(.+\), mode \(.+\), product \(.+\);/,
    );
  });

  it('a required layer that fails for another reason is still an error, saying which inputs stood in', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'strata.yaml': [
        'extends: chorus',
        'inputs:',
        '  product: { type: string }',
        'layers:',
        '  - id: focus',
        '    text: "Work on {{product}}."',
        '  - id: house',
        '    file: house.md',
        '    required: true',
        '',
      ].join('\n'),
      'defaults.md': 'Be kind.\n',
    });
    const run = await cli(['validate', '--dir', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^error COMPOSE_FAILED: \(default\) does not compose \(stand-ins for inputs product\): REQUIRED_MISSING /m,
    );
    expect(run.stdout).toMatch(
      /^info INPUTS_NEEDED: a compose needs the request inputs product \(\(default\)\);/m,
    );
  });

  it('a member list is cut after three names', () => {
    const agents = ['a', 'b', 'c', 'd', 'e']
      .map((id) => `${id}:\n  role: R\n  goal: On {topic}\n  backstory: B.\n`)
      .join('');
    const result = lintPack({ files: files({ 'agents.yaml': agents }), env: {} });
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      'a compose needs the request inputs topic (role a, role b, role c and 2 more); checked here with stand-ins (give --var NAME=VALUE to check with values; API: vars.NAME)',
    ]);
  });
});
