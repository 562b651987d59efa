import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, EXAMPLES, expectGolden, ROOT, tempDir, writeFiles } from '../helpers.js';

const roboco = join(EXAMPLES, 'roboco');
const chorus = join(EXAMPLES, 'chorus');
const golden = (name: string) => readFileSync(join(ROOT, 'test', 'golden', name), 'utf8');

describe('strata compose', () => {
  it('prints exactly the prompt bytes, no trailing newline', async () => {
    const r = await cli(['compose', '--dir', roboco, '--agent', 'ada']);
    expect(r).toEqual({ code: 0, stdout: golden('roboco/ada.txt'), stderr: '' });
  });

  it('takes --set and --ambient-file', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'ambient.txt': 'Architectural conventions: services talk over the event bus only.\n' });
    const r = await cli([
      'compose',
      '--dir',
      roboco,
      '--agent',
      'margaret',
      '--ambient-file',
      join(dir, 'ambient.txt'),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(golden('roboco/margaret-ambient.txt'));
    const s = await cli([
      'compose',
      '--dir',
      roboco,
      '--agent',
      'ada',
      '--set',
      'fable_mode_enabled=on',
      '--set',
      'ponytail_intensity=lite',
    ]);
    expect(s.stdout).toBe(golden('roboco/ada-fable-lite.txt'));
  });

  it('finds the pack from $STRATA_PROMPTS_DIR, and chorus from $CHORUS_PROMPTS_DIR and $CHORUS_ROLE', async () => {
    expect((await cli(['compose', '--agent', 'ada'], { STRATA_PROMPTS_DIR: roboco })).stdout).toBe(
      golden('roboco/ada.txt'),
    );
    const r = await cli(['compose'], { CHORUS_PROMPTS_DIR: chorus, CHORUS_ROLE: 'arbiter' });
    expect(r.stdout).toBe(golden('chorus/arbiter.txt'));
    expect(r.stderr).toMatch(/^warning DUPLICATE_ROLE: site-roles\.yaml:\d+:\d+: /);
  });

  it('--preset chorus with nothing mounted gives the fallback', async () => {
    const r = await cli(['compose', '--preset', 'chorus'], { CHORUS_ROLE: 'arbiter' });
    expect(r).toEqual({
      code: 0,
      stdout: 'You are a helpful assistant.',
      stderr:
        'warning UNKNOWN_ROLE: role "arbiter" is unknown: the pack declares no roles (its registry is empty and no role file names it)\n' +
        'warning FALLBACK_USED: no layer was included; the fallback text is the prompt\n',
    });
  });

  it('--json prints the result with provenance', async () => {
    const r = await cli(['compose', '--dir', roboco, '--agent', 'ada', '--json']);
    const result = JSON.parse(r.stdout);
    expect(result.text).toBe(golden('roboco/ada.txt'));
    expect(result.layers).toHaveLength(10);
    expect(result.layers[0]).toMatchObject({
      id: 'tools',
      included: true,
      source: 'tools/developer.md',
      start: 0,
    });
  });

  it.each([
    [['compose', '--dir', roboco, '--agent', '../../etc/passwd'], 1, /^error BAD_NAME: /],
    [
      ['compose', '--dir', roboco, '--role', 'janitor'],
      1,
      /^error UNKNOWN_ROLE: .*known roles: architect, board-chair/,
    ],
    [
      ['compose', '--dir', roboco, '--role', 'qa', '--set', 'ponytail_intensity=max'],
      1,
      /^error INVALID_SETTING: .*lite\|full\|ultra/,
    ],
    [
      ['compose', '--dir', roboco, '--set', 'nope=1'],
      1,
      /^error UNKNOWN_SETTING: .*fable_mode_enabled, ponytail_intensity/,
    ],
    [['compose', '--dir', '/nonexistent/pack'], 1, /^error PACK_NOT_FOUND: /],
    [['compose', '--dir', roboco, '--set', 'novalue'], 2, /^error USAGE: --set needs KEY=VALUE/],
    [['compose', '--dir', roboco, '--ambient', 'a', '--ambient-file', 'b'], 2, /^error USAGE: /],
    [['compose', '--preset', 'nope', '--dir', roboco], 2, /^error USAGE: --preset/],
    [['compose'], 2, /^error USAGE: no pack directory/],
    [['compose', '--bogus'], 2, /unknown option/],
    [['frobnicate'], 2, /unknown command/],
  ])('%j exits %i', async (argv, code, stderr) => {
    const r = await cli(argv as string[]);
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(stderr);
  });

  it('an invalid env value fails with exit 1 naming the env var', async () => {
    const r = await cli(['compose', '--dir', roboco, '--role', 'qa'], { ROBOCO_PONYTAIL_INTENSITY: 'max' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error INVALID_SETTING: setting ponytail_intensity: env ROBOCO_PONYTAIL_INTENSITY="max" is invalid',
    );
  });

  it('reports pack errors with path:line:col', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'base.md': 'B', 'identities/x.md': '---\nrole: [\n---\nX\n' });
    const r = await cli(['compose', '--dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error BAD_FRONTMATTER: identities\/x\.md:3:1: /);
  });
});

describe('strata explain, roles, fleet', () => {
  it('explain shows every layer, included or why not', async () => {
    const r = await cli(['explain', '--dir', roboco, '--agent', 'grace', '--set', 'fable_mode_enabled=on']);
    expect(r.code).toBe(0);
    expectGolden('cli/explain-grace.txt', r.stdout);
  });

  it('explain --json is the compose result', async () => {
    const a = JSON.parse((await cli(['explain', '--dir', roboco, '--agent', 'edsger', '--json'])).stdout);
    expect(a.layers.find((l: { id: string }) => l.id === 'tools')).toMatchObject({
      included: false,
      reason: 'missing',
      source: 'tools/board-tech.md',
    });
  });

  it('roles lists ids one a line; --json gives records', async () => {
    const r = await cli(['roles', '--dir', chorus]);
    expect(r.stdout).toBe('arbiter\nimplementer\nmaintainer\nresearcher\nreviewer\n');
    const j = JSON.parse((await cli(['roles', '--dir', chorus, '--json'])).stdout);
    expect(j.roles.find((x: { id: string }) => x.id === 'arbiter').source).toBe('site-roles.yaml');
  });

  it('roles of a pack without roles: nothing on stdout, and on stderr what it composes from', async () => {
    const r = await cli(['roles', '--dir', join(EXAMPLES, 'agents-md')]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      '(no roles: the pack declares none and composes without --role; its request inputs: cwd (--var NAME=VALUE))\n',
    ]);
  });

  it('fleet lists agents with role and team', async () => {
    const r = await cli(['fleet', '--dir', roboco]);
    expectGolden('cli/fleet-roboco.txt', r.stdout);
    const j = JSON.parse((await cli(['fleet', '--dir', roboco, '--json'])).stdout);
    expect(j.agents).toHaveLength(8);
    expect(j.agents[0]).toMatchObject({ id: 'ada', role: 'developer', team: 'platform' });
  });

  it('--help exits 0 and documents exit statuses', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Exit status: 0 success');
  });
});

describe('every command documents its exit statuses', () => {
  it.each([
    'compose',
    'explain',
    'roles',
    'fleet',
    'validate',
    'diff',
    'snapshot',
    'generate',
    'config',
    'export',
    'serve',
  ])('%s --help', async (command) => {
    const r = await cli([command, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Exit status: 0 .*1 .*2 a usage error\./);
  });
});

describe('strata --version', () => {
  it("prints package.json's version (the one source)", async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await cli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });
});
