import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { readPackAtRevision } from '../../src/source/git.js';
import { openPack } from '../../src/source/open.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { cli, tempDir, writeFiles } from '../helpers.js';

/**
 * A repository with a checked-out submodule: the folder read holds the submodule's files,
 * so a revision of the repository holds them too, as the submodule's commit recorded at
 * that revision has them. Otherwise `strata diff --base-ref HEAD` of an unchanged project
 * reports every file of the submodule added.
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    [
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@example.com',
      '-c',
      'commit.gpgsign=false',
      '-c',
      'protocol.file.allow=always',
      ...args,
    ],
    { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

function project(): string {
  const lib = tempDir('strata-submodule-lib-');
  const root = tempDir('strata-submodule-root-');
  roots.push(lib, root);
  writeFiles(lib, { 'AGENTS.md': '# Lib v1\n' });
  git(lib, 'init', '-q', '-b', 'main');
  git(lib, 'add', '.');
  git(lib, 'commit', '-q', '-m', 'lib');
  writeFiles(root, { 'AGENTS.md': '# Root\n' });
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'submodule', '--quiet', 'add', lib, 'vendor/lib');
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'root');
  return root;
}

describe('git revision: a checked-out submodule', () => {
  it('holds the submodule’s files at the commit it records, as the folder does', async () => {
    const root = project();
    const disk = await readPackDir(root);
    const atHead = await readPackAtRevision(root, 'HEAD');
    expect(atHead.diagnostics).toEqual([]);
    expect([...atHead.files.keys()].sort()).toEqual([...disk.files.keys()].sort());
    expect(atHead.files.has('vendor/lib/AGENTS.md')).toBe(true);
    expect(atHead.gitFolders).toEqual(['vendor/lib']);
    expect(disk.gitFolders).toEqual(['vendor/lib']);
    const head = await openPack({ kind: 'git', dir: root, rev: 'HEAD' }, { env: {} });
    const out = tryCompose(head.snapshot!, { vars: { cwd: 'vendor/lib' } });
    expect(out.ok && out.result.text).toBe('# Lib v1\n');
  });

  it('diff --base-ref HEAD of an unchanged project finds no change; a change in the submodule is found', async () => {
    const root = project();
    const same = await cli([
      'diff',
      '--dir',
      root,
      '--base-ref',
      'HEAD',
      '--var',
      'cwd=vendor/lib',
      '--exit-code',
    ]);
    expect(same.code).toBe(0);
    writeFileSync(join(root, 'vendor', 'lib', 'AGENTS.md'), '# Lib v2\n');
    const changed = await cli([
      'diff',
      '--dir',
      root,
      '--base-ref',
      'HEAD',
      '--var',
      'cwd=vendor/lib',
      '--exit-code',
    ]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('# Lib v2');
  });
});
