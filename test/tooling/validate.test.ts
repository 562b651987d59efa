import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatAnnotation } from '../../src/cli/commands/validate.js';
import { error, formatDiagnostic } from '../../src/core/text/diagnostics.js';
import { LINT_CHECKS, lintPack } from '../../src/tooling/lint/lint.js';
import { cli, EXAMPLES, FIXTURES, tempDir, writeFiles } from '../helpers.js';

const findings = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      // The one diagnostic line: `severity CODE: path:line:col: message`.
      const m = /^(error|warning) ([A-Z0-9_]+): (?:([^\s:]+(?::\d+){0,2}): )?/.exec(line)!;
      return `${m[3] ?? '-'} ${m[1]} ${m[2]}`;
    });

describe('strata validate', () => {
  it.each(['roboco', 'chorus'])('passes on the %s example pack (exit 0, no error)', async (pack) => {
    const r = await cli(['validate', '--dir', join(EXAMPLES, pack)]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/ error /);
    expect(r.stdout).not.toMatch(/JSON_BLOCK|BAD_UCXL|ORPHAN_FILE|UNREACHABLE_LAYER|COMPOSE_FAILED/);
  });

  it('reports every planted lint problem at its line (tooling-lint)', async () => {
    const r = await cli(['validate', '--dir', join(FIXTURES, 'tooling-lint')]);
    expect(r.code).toBe(1);
    const got = findings(r.stdout);
    expect(got).toEqual(
      expect.arrayContaining([
        'base.md:9:1 error JSON_BLOCK',
        'roles/dev.md:6:51 warning BAD_UCXL',
        'notes/todo.md warning ORPHAN_FILE',
        'strata.yaml:4:5 warning UNREACHABLE_LAYER',
        'fleet.yaml:2:5 error COMPOSE_FAILED',
        'fleet.yaml:6:5 error COMPOSE_FAILED',
        'fleet.yaml:2:5 error BAD_FLEET',
      ]),
    );
    expect(r.stdout).toMatch(/UNREACHABLE_LAYER: layer team: teams\/\{team\}\.md/);
    expect(r.stdout).toMatch(
      /COMPOSE_FAILED: fleet\.yaml:\d+:\d+: alice .*fable_mode_enabled=true.*REQUIRED_MISSING/,
    );
    // The valid json block, the valid address and the README are not findings.
    expect(r.stdout.match(/JSON_BLOCK/g)).toHaveLength(1);
    expect(r.stdout.match(/BAD_UCXL/g)).toHaveLength(1);
    expect(r.stdout).not.toMatch(/README/);
  });

  it('reports core load diagnostics and still checks json blocks when the pack does not load', async () => {
    const r = await cli(['validate', '--dir', join(FIXTURES, 'tooling-load-errors')]);
    expect(r.code).toBe(1);
    expect(findings(r.stdout)).toEqual([
      'base.md:4:7 error JSON_BLOCK',
      'identities/x.md:1:1 error BAD_FRONTMATTER',
      'roles.yaml:4:1 error YAML_SYNTAX',
      'strata.yaml:2:1 error UNKNOWN_KEY',
    ]);
  });

  it('lints only the pack: the other Markdown of an AGENTS.md project is no finding', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'AGENTS.md': '# Root\n\nRun the tests.\n',
      'docs/notes.md': '# Notes\n\n```json\n{"a": 1,}\n```\n\nucxl://any:dev@proj/*^/docs/b.md\n',
    });
    const r = await cli(['validate', '--dir', dir]);
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.stderr).toMatch(/^0 errors, 0 warnings \(1 file, 1 member, version [0-9a-f]{16}\)\n$/);
    // The same block in the AGENTS.md the prompt holds is still found.
    writeFiles(dir, { 'backend/AGENTS.md': '```json\n{"a": 1,}\n```\n' });
    const inPack = await cli(['validate', '--dir', dir]);
    expect([inPack.code, findings(inPack.stdout)]).toEqual([1, ['backend/AGENTS.md:2:9 error JSON_BLOCK']]);
  });

  it('composes each working folder of an AGENTS.md project: a nested file past the budget is said', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'AGENTS.md': 'Root.\n',
      'api/AGENTS.md': 'API.\n',
      'deep/AGENTS.md': `${'x'.repeat(40_000)}\n`,
    });
    const r = await cli(['validate', '--dir', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'warning TRUNCATED: deep/AGENTS.md: layer agents: cut from 40001 to 32762 bytes by its byte budget; the layer keeps 32770 bytes (for cwd=deep)\n',
    );
    expect(r.stderr).toMatch(/^0 errors, 1 warning \(3 files, 3 members, version [0-9a-f]{16}\)\n$/);
    // A working folder given is the one checked.
    const one = await cli(['validate', '--dir', dir, '--var', 'cwd=api']);
    expect([one.code, one.stdout]).toEqual([0, '']);
    expect(one.stderr).toMatch(/\(3 files, 1 member, /);
  });

  it('checks json blocks and UCXL addresses in the files a prompt holds: not a skill beside the agents', async () => {
    const dir = tempDir();
    const block = '```json\n{ "a": 1, // a comment\n}\n```\n';
    writeFiles(dir, {
      'agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews.\n---\nReview the change.\n',
      'skills/plan/SKILL.md': `---\nname: plan\ndescription: A skill.\n---\n${block}`,
      'commands/go.md': `---\nargument-hint: "<x>"\n---\n${block}ucxl://x\n`,
    });
    const clean = await cli(['validate', '--dir', dir, '--preset', 'claude-agents']);
    expect([clean.code, clean.stdout]).toEqual([0, '']);
    writeFiles(dir, { 'agents/reviewer.md': `---\nname: reviewer\ndescription: Reviews.\n---\n${block}` });
    const r = await cli(['validate', '--dir', dir, '--preset', 'claude-agents']);
    expect([r.code, findings(r.stdout)]).toEqual([1, ['agents/reviewer.md:6:11 error JSON_BLOCK']]);
  });

  it('reports encoding, symlink and size problems of the reader', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'base.md': 'Base.', 'roles/dev.md': 'Dev.', 'big.md': 'x'.repeat(2000) });
    writeFileSync(join(dir, 'bad.md'), Uint8Array.from([0x41, 0xff, 0x42]));
    symlinkSync('/etc/hostname', join(dir, 'escape.md'));
    symlinkSync(join(dir, 'nowhere.md'), join(dir, 'broken.md'));
    const r = await cli(['validate', '--dir', dir, '--max-file-bytes', '1000']);
    expect(r.code).toBe(1);
    expect(findings(r.stdout)).toEqual([
      'bad.md:1:2 error INVALID_UTF8',
      'big.md error FILE_TOO_LARGE',
      'broken.md error READ_ERROR',
      'escape.md error PATH_OUTSIDE_PACK',
    ]);
  });

  it('a missing directory is PACK_NOT_FOUND, exit 1; a bad format is a usage error', async () => {
    const missing = await cli(['validate', '--dir', '/nonexistent/pack']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^error PACK_NOT_FOUND: /);
    expect((await cli(['validate', '--dir', EXAMPLES, '--format', 'xml'])).code).toBe(2);
    expect((await cli(['validate'])).code).toBe(2);
  });

  it('--format json with --strict: a warning makes ok false, as it makes the exit status 1', async () => {
    const pack = tempDir();
    writeFiles(pack, { 'base.md': 'Base.\n', 'notes/todo.md': 'Later.\n' });
    for (const [strict, ok, code] of [
      [[], true, 0],
      [['--strict'], false, 1],
    ] as const) {
      const r = await cli(['validate', '--dir', pack, '--format', 'json', ...strict]);
      expect([r.code, JSON.parse(r.stdout)]).toMatchObject([code, { ok, errors: 0, warnings: 1 }]);
    }
  });

  it('--json is --format json, as for every command that gives data; with another format it is a usage error', async () => {
    const pack = join(FIXTURES, 'tooling-load-errors');
    const json = await cli(['validate', '--dir', pack, '--json']);
    const format = await cli(['validate', '--dir', pack, '--format', 'json']);
    expect([json.code, json.stdout]).toEqual([format.code, format.stdout]);
    const both = await cli(['validate', '--dir', pack, '--json', '--format', 'github']);
    expect([both.code, both.stdout]).toEqual([2, '']);
  });

  it('--format json gives counts and diagnostics', async () => {
    const r = await cli(['validate', '--dir', join(FIXTURES, 'tooling-load-errors'), '--format', 'json']);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: false, version: null, errors: 4, warnings: 0 });
    expect(out.diagnostics[0]).toEqual({
      code: 'JSON_BLOCK',
      severity: 'error',
      message: 'json block does not parse: unexpected "t"; expected a value',
      file: 'base.md',
      line: 4,
      col: 7,
    });
  });

  it('--format github prints workflow annotations with paths relative to the working directory', async () => {
    const r = await cli(['validate', '--dir', 'test/fixtures/tooling-load-errors', '--format', 'github']);
    expect(r.stdout.split('\n')[0]).toBe(
      '::error file=test/fixtures/tooling-load-errors/base.md,line=4,col=7,title=JSON_BLOCK::json block does not parse: unexpected "t"; expected a value',
    );
  });

  it('--strict fails on warnings', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'roles.yaml': 'roles:\n  a: { system_prompt: A }\n',
      'defaults.md': 'D.',
      'stray.md': 'Stray.',
    });
    expect((await cli(['validate', '--dir', dir])).code).toBe(0);
    const strict = await cli(['validate', '--dir', dir, '--strict']);
    expect(strict.code).toBe(1);
    expect(findings(strict.stdout)).toEqual(['stray.md warning ORPHAN_FILE']);
  });

  it('formats findings as every command prints diagnostics, and escapes annotation properties', () => {
    const d = error('JSON_BLOCK', 'bad, very: bad\n100%', { file: 'a,b.md', line: 3, col: 4 });
    expect(formatDiagnostic(d)).toBe('error JSON_BLOCK: a,b.md:3:4: bad, very: bad\n100%');
    expect(formatAnnotation(d, 'a,b.md')).toBe(
      '::error file=a%2Cb.md,line=3,col=4,title=JSON_BLOCK::bad, very: bad%0A100%25',
    );
    expect(formatAnnotation(error('BAD_NAME', 'x'))).toBe('::error title=BAD_NAME::x');
  });
});

describe('lintPack', () => {
  it('runs an appended check with the context of the pack', () => {
    const files = new Map([['base.md', new TextEncoder().encode('Base.')]]);
    const seen: string[] = [];
    const { diagnostics } = lintPack({ files, preset: 'roboco' }, [
      ...LINT_CHECKS,
      (ctx) => {
        seen.push(...ctx.texts.keys(), String(ctx.members.length), ctx.snapshot?.preset ?? '-');
        return [error('OVER_BUDGET', 'planted')];
      },
    ]);
    expect(seen).toEqual(['base.md', '1', 'roboco']);
    expect(diagnostics.map((d) => d.code)).toContain('OVER_BUDGET');
  });

  it('finds orphans but not role, fleet, verbs, manifest or README files', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    const files = new Map<string, Uint8Array>([
      ['base.md', enc('Base.')],
      ['roles/dev.md', enc('Dev.')],
      ['roles.yaml', enc('roles:\n  dev: { name: Dev }\n')],
      ['verbs.yaml', enc('verbs: []\n')],
      ['other.yaml', enc('stuff: 1\n')],
      ['fleet.yaml', enc('agents:\n  - { id: a, role: dev }\n')],
      ['README.md', enc('# Readme')],
      ['docs/notes.txt', enc('notes')],
      ['roles/sub/deep.md', enc('deep')],
    ]);
    const { diagnostics } = lintPack({ files });
    expect(diagnostics.filter((d) => d.code === 'ORPHAN_FILE').map((d) => d.file)).toEqual([
      'docs/notes.txt',
      'other.yaml',
      'roles/sub/deep.md',
    ]);
  });

  it('crewai: a crew whose agents.yaml is empty or only comments is no orphan (it was, failing validate --strict)', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'lessons/poem_crew/config/agents.yaml': 'poet:\n  role: Poet\n  goal: Write\n  backstory: You rhyme.\n',
      'lessons/empty_crew/config/agents.yaml': '',
      'lessons/draft_crew/config/agents.yaml': '# agents to come\n',
    });
    const strict = await cli(['validate', '--dir', dir, '--strict']);
    expect([strict.code, findings(strict.stdout)]).toEqual([0, []]);
  });

  it('chorus: yaml files without roles: are orphans; the named defaults path is not', () => {
    mkdirSync(join(tempDir(), 'x'), { recursive: true });
    const enc = (s: string) => new TextEncoder().encode(s);
    const files = new Map<string, Uint8Array>([
      ['roles.yaml', enc('roles:\n  a: { system_prompt: A }\n')],
      ['notes.yaml', enc('hello: 1\n')],
      ['custom/d.md', enc('D.')],
    ]);
    const { diagnostics } = lintPack({ files, env: { CHORUS_DEFAULT_INSTRUCTIONS_PATH: 'custom/d.md' } });
    expect(diagnostics.filter((d) => d.code === 'ORPHAN_FILE').map((d) => d.file)).toEqual(['notes.yaml']);
  });
});
