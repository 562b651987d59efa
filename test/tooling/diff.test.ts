import { appendFileSync, cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/engine/default-engine.js';
import { readPackAtRevision } from '../../src/source/git.js';
import { diffPacks, promptDiff } from '../../src/tooling/diff/diff.js';
import { cli, EXAMPLES, git, okPack, tempDir, writeFiles } from '../helpers.js';

const AGENTS = ['ada', 'linus', 'frances', 'grace', 'ken', 'margaret', 'barbara', 'edsger'];

/** A copy of the roboco example pack in a temp folder. */
function robocoCopy(): string {
  const dir = join(tempDir(), 'pack');
  cpSync(join(EXAMPLES, 'roboco'), dir, { recursive: true });
  return dir;
}

/** A temp repository with the roboco pack at packs/roboco, committed. */
function repoWithPack(): { repo: string; pack: string } {
  const repo = tempDir('strata-git-');
  git(repo, 'init', '-q', '-b', 'main');
  const pack = join(repo, 'packs', 'roboco');
  mkdirSync(join(repo, 'packs'));
  cpSync(join(EXAMPLES, 'roboco'), pack, { recursive: true });
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'pack');
  return { repo, pack };
}

describe('strata diff', () => {
  it('editing one identity file changes exactly that agent; editing base.md changes every agent (--base-dir)', async () => {
    const head = robocoCopy();
    appendFileSync(join(head, 'identities', 'grace.md'), '\nYou also mentor new QA agents.\n');
    const one = await cli(['diff', '--dir', head, '--base-dir', join(EXAMPLES, 'roboco'), '--json']);
    expect(one.code).toBe(0);
    const report = JSON.parse(one.stdout);
    expect(report.changed.map((c: { agent: string }) => c.agent)).toEqual(['grace']);
    expect(report.unchanged).toHaveLength(7);
    expect(report.changed[0]).toMatchObject({
      agent: 'grace',
      role: 'qa',
      team: 'payments',
      status: 'changed',
      linesAdded: 2,
      linesRemoved: 0,
    });
    expect(report.changed[0].bytesAfter - report.changed[0].bytesBefore).toBe(
      '\n\nYou also mentor new QA agents.'.length,
    );
    expect(report.changed[0].diff).toContain('+You also mentor new QA agents.\n');

    appendFileSync(join(head, 'base.md'), '\n7. Be kind.\n');
    const all = await cli([
      'diff',
      '--dir',
      head,
      '--base-dir',
      join(EXAMPLES, 'roboco'),
      '--json',
      '--exit-code',
    ]);
    expect(all.code).toBe(1);
    expect(JSON.parse(all.stdout).changed.map((c: { agent: string }) => c.agent)).toEqual(AGENTS);
  });

  it('the text report has the diffs and a summary table', async () => {
    const head = robocoCopy();
    appendFileSync(join(head, 'identities', 'ken.md'), '\nOne more line.\n');
    const r = await cli(['diff', '--dir', head, '--base-dir', join(EXAMPLES, 'roboco')]);
    expect(r.stdout).toMatch(/^--- a\/ken\n\+\+\+ b\/ken\n@@ /);
    expect(r.stdout).toMatch(/\nken +architect +platform +changed +8552→8568 +\+16 +\+2 +\+2 -0\n/);
    expect(r.stdout).toMatch(/\n1 of 8 members changed\n$/);
    expect(r.stdout).not.toContain('No newline');
  });

  it('--base-ref reads the pack from git without touching the working tree', async () => {
    const { repo, pack } = repoWithPack();
    appendFileSync(join(pack, 'identities', 'ada.md'), '\nWorking-tree change.\n');
    const r = await cli(['diff', '--dir', pack, '--base-ref', 'HEAD', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).changed.map((c: { agent: string }) => c.agent)).toEqual(['ada']);
    expect(git(repo, 'status', '--porcelain')).toBe(' M packs/roboco/identities/ada.md\n');

    git(repo, 'commit', '-q', '-am', 'ada');
    appendFileSync(join(pack, 'base.md'), '\nNew rule.\n');
    const all = await cli(['diff', '--dir', pack, '--base-ref', 'HEAD~1', '--json']);
    expect(JSON.parse(all.stdout).changed).toHaveLength(8);
    const sinceHead = await cli(['diff', '--dir', pack, '--base-ref', 'main', '--exit-code', '--stat']);
    expect(sinceHead.code).toBe(1);
    expect(sinceHead.stdout).toMatch(/8 of 8 members changed/);
  });

  it('--base-ref: an unknown revision, a pack not in git, a folder missing at the revision are GIT_ERROR', async () => {
    const { repo, pack } = repoWithPack();
    const bad = await cli(['diff', '--dir', pack, '--base-ref', 'no-such-branch']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('error GIT_ERROR: (base) unknown revision "no-such-branch"\n');
    const dash = await cli(['diff', '--dir', pack, '--base-ref', '--output=x']);
    expect(dash.code).toBe(1);
    expect(dash.stderr).toMatch(/GIT_ERROR/);
    const notGit = await cli(['diff', '--dir', robocoCopy(), '--base-ref', 'HEAD']);
    expect(notGit.code).toBe(1);
    expect(notGit.stderr).toMatch(/^error GIT_ERROR: \(base\) cannot read git history/);
    const newPack = join(repo, 'packs', 'new');
    cpSync(join(EXAMPLES, 'chorus'), newPack, { recursive: true });
    const missing = await cli(['diff', '--dir', newPack, '--base-ref', 'HEAD']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'error GIT_ERROR: (base) the pack folder packs/new does not exist at HEAD\n',
    );
  });

  it('reads symlinks from git inside the pack, and refuses ones that leave it', async () => {
    const repo = tempDir('strata-git-');
    git(repo, 'init', '-q');
    writeFiles(repo, {
      '..data/base.md': 'Base from data.',
      'roles/dev.md': 'Dev.',
      'outside.md': 'Secret.',
    });
    symlinkSync('..data/base.md', join(repo, 'base.md'));
    symlinkSync('../outside.md', join(repo, 'roles', 'qa.md'));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'x');
    const read = await readPackAtRevision(join(repo, 'roles'), 'HEAD');
    expect(read.diagnostics.map((d) => [d.code, d.file])).toEqual([['PATH_OUTSIDE_PACK', 'qa.md']]);
    const whole = await readPackAtRevision(repo, 'HEAD');
    expect(whole.diagnostics).toEqual([]);
    expect([...whole.files.keys()].sort()).toEqual(['base.md', 'outside.md', 'roles/dev.md', 'roles/qa.md']);
    expect(new TextDecoder().decode(whole.files.get('base.md'))).toBe('Base from data.');
    expect(new TextDecoder().decode(whole.files.get('roles/qa.md'))).toBe('Secret.');
  });

  it('an AGENTS.md project: a change to a nested file is the change of each working folder it reaches', async () => {
    const base = tempDir();
    const files = {
      'AGENTS.md': 'Root.\n',
      'backend/AGENTS.md': 'Backend.\n',
      'backend/api/AGENTS.override.md': 'API.\n',
      'docs/README.md': 'Not an agents file.\n',
    };
    writeFiles(base, files);
    const now = tempDir();
    writeFiles(now, { ...files, 'backend/AGENTS.md': 'Backend, with tests.\n', 'web/AGENTS.md': 'Web.\n' });
    const r = await cli(['diff', '--dir', now, '--base-dir', base, '--json', '--exit-code']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.changed.map((c: { key: string; status: string }) => `${c.key} ${c.status}`)).toEqual([
      'cwd=backend changed',
      'cwd=backend/api changed',
      'cwd=web added',
    ]);
    expect(out.unchanged.map((c: { key: string }) => c.key)).toEqual(['(default)']);
    expect(out.changed[0].diff).toContain('-Backend.\n+Backend, with tests.\n');
    // A working folder given is the one compared.
    const one = await cli(['diff', '--dir', now, '--base-dir', base, '--var', 'cwd=backend', '--json']);
    expect(JSON.parse(one.stdout).changed.map((c: { key: string }) => c.key)).toEqual(['(default)']);
    // A lock file holds every working folder, so --check finds the change too.
    const lock = join(tempDir(), 'lock.json');
    expect((await cli(['snapshot', '--dir', base, '--out', lock])).code).toBe(0);
    const check = await cli(['snapshot', '--dir', now, '--check', lock]);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('cwd=backend');
  });

  it('--base-set compares settings on the same pack', async () => {
    const r = await cli([
      'diff',
      '--dir',
      join(EXAMPLES, 'roboco'),
      '--base-set',
      'fable_mode_enabled=on',
      '--json',
    ]);
    const report = JSON.parse(r.stdout);
    expect(report.changed).toHaveLength(8);
    expect(
      report.changed.every((c: { bytesAfter: number; bytesBefore: number }) => c.bytesAfter < c.bytesBefore),
    ).toBe(true);
    const same = await cli([
      'diff',
      '--dir',
      join(EXAMPLES, 'roboco'),
      '--base-set',
      'ponytail_intensity=lite',
      '--json',
    ]);
    expect(JSON.parse(same.stdout).changed).toEqual([]);
  });

  it('hostile input: nothing to compare, both bases, a missing base dir, a bad setting', async () => {
    const dir = join(EXAMPLES, 'roboco');
    expect((await cli(['diff', '--dir', dir])).code).toBe(2);
    expect((await cli(['diff', '--dir', dir, '--base-dir', dir, '--base-ref', 'HEAD'])).code).toBe(2);
    expect((await cli(['diff', '--dir', dir, '--base-set', 'nokey'])).code).toBe(2);
    const missing = await cli(['diff', '--dir', dir, '--base-dir', '/nonexistent/base']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error PACK_NOT_FOUND: \(base\) pack directory/);
    const bad = await cli(['diff', '--dir', dir, '--base-set', 'ponytail_intensity=max']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error INVALID_SETTING: base pack: setting ponytail_intensity/);
  });
});

describe('diffPacks', () => {
  it('reports added and removed members across fleets, and roles without a fleet', () => {
    const before = okPack({
      'base.md': 'B',
      'roles/dev.md': 'D',
      'fleet.yaml': 'agents:\n  - { id: a, role: dev }\n  - { id: b, role: dev }\n',
    });
    const after = okPack({
      'base.md': 'B',
      'roles/dev.md': 'D',
      'fleet.yaml': 'agents:\n  - { id: b, role: dev }\n  - { id: c, role: dev }\n',
    });
    const report = diffPacks({ snapshot: before }, { snapshot: after });
    expect(report.changed.map((c) => [c.key, c.status, c.bytesBefore, c.bytesAfter])).toEqual([
      ['c', 'added', 0, 9],
      ['a', 'removed', 9, 0],
    ]);
    expect(report.unchanged.map((u) => u.key)).toEqual(['b']);
    const roles = okPack({ 'base.md': 'B', 'roles/dev.md': 'D', 'roles/qa.md': 'Q' });
    const r2 = diffPacks({ snapshot: roles }, { snapshot: roles, settings: {} });
    expect(r2.unchanged.map((u) => u.key)).toEqual(['role:dev', 'role:qa']);
  });

  it('promptDiff is a unified diff without no-newline markers, with line counts', () => {
    const d = promptDiff('x', 'a\nb\nc', 'a\nB\nc\nd');
    expect(d.diff).toBe('--- a/x\n+++ b/x\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n');
    expect([d.added, d.removed]).toEqual([2, 1]);
    expect(promptDiff('x', 'same', 'same').diff).toBe('');
  });

  it('the pure snapshot builder accepts the files read from git', async () => {
    const { pack } = repoWithPack();
    const read = await readPackAtRevision(pack, 'HEAD');
    const { snapshot, diagnostics } = buildSnapshot({
      files: read.files,
      readDiagnostics: read.diagnostics,
      env: {},
    });
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(snapshot!.fleet.map((a) => a.id)).toEqual(AGENTS);
  });
});
