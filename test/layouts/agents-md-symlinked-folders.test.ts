import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { readPackAtRevision } from '../../src/source/git.js';
import { loadPack } from '../../src/source/load.js';
import { openPack } from '../../src/source/open.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { commitAll, tempDir, writeFiles } from '../helpers.js';

/**
 * A monorepo that links a folder under a second name (`backend -> services/backend`, a
 * `.claude/agents` linked to a shared folder): the OS shows the folder's files under both
 * paths, so Codex run in either folder reads its AGENTS.md. The folder and the git readers
 * show both; a link to a folder on the way down (a loop) is not walked again.
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const root = tempDir('strata-agents-md-links-');
  roots.push(root);
  writeFiles(root, files);
  return root;
}

function commit(root: string): void {
  commitAll(root);
}

function linked(): string {
  const root = project({
    'AGENTS.md': '# Root\n',
    'services/backend/AGENTS.md': '# Backend\n',
    'services/backend/api/AGENTS.md': '# API\n',
  });
  // `backend` sorts before `services`: the link is met first.
  symlinkSync('services/backend', join(root, 'backend'));
  return root;
}

describe('agents-md: a folder linked under a second name', () => {
  it('the real folder keeps its AGENTS.md when a link to it is listed first', async () => {
    const root = linked();
    const { snapshot, diagnostics } = await loadPack(root, { env: {} });
    expect(diagnostics).toEqual([]);
    for (const cwd of ['services/backend/api', 'backend/api']) {
      const outcome = tryCompose(snapshot!, { vars: { cwd } });
      expect(outcome.ok && outcome.result.text).toBe('# Root\n\n\n# Backend\n\n\n# API\n');
    }
  });

  it('a git revision shows the same files as the folder', async () => {
    const root = linked();
    commit(root);
    const disk = await readPackDir(root);
    const atHead = await readPackAtRevision(root, 'HEAD');
    expect(atHead.diagnostics).toEqual([]);
    expect([...atHead.files.keys()].sort()).toEqual([...disk.files.keys()].sort());
    expect([...disk.files.keys()].sort()).toEqual([
      'AGENTS.md',
      'backend/AGENTS.md',
      'backend/api/AGENTS.md',
      'services/backend/AGENTS.md',
      'services/backend/api/AGENTS.md',
    ]);
  });

  it('an absolute link into the pack is followed at a revision as on disk, not refused as leaving it', async () => {
    const root = project({ 'AGENTS.md': '# Root\n', 'services/backend/AGENTS.md': '# Backend\n' });
    symlinkSync(join(root, 'services', 'backend'), join(root, 'backend'));
    symlinkSync(join(root, 'AGENTS.md'), join(root, 'services', 'AGENTS.md'));
    commit(root);
    const disk = await readPackDir(root);
    const atHead = await readPackAtRevision(root, 'HEAD');
    expect(disk.diagnostics).toEqual([]);
    expect(atHead.diagnostics).toEqual([]);
    expect([...atHead.files.keys()].sort()).toEqual([...disk.files.keys()].sort());
    expect(atHead.files.has('backend/AGENTS.md')).toBe(true);
  });

  it('a link to a folder above it (a loop) is not walked again, on disk and at a revision', async () => {
    const root = project({ 'AGENTS.md': '# Root\n', 'app/AGENTS.md': '# App\n' });
    symlinkSync('..', join(root, 'app', 'up'));
    symlinkSync('.', join(root, 'here'));
    commit(root);
    const disk = await readPackDir(root);
    const atHead = await readPackAtRevision(root, 'HEAD');
    for (const read of [disk, atHead]) {
      expect(read.diagnostics).toEqual([]);
      expect([...read.files.keys()].sort()).toEqual(['AGENTS.md', 'app/AGENTS.md']);
    }
    const head = await openPack({ kind: 'git', dir: root, rev: 'HEAD' }, { env: {} });
    const outcome = tryCompose(head.snapshot!, { vars: { cwd: 'app' } });
    expect(outcome.ok && outcome.result.text).toBe('# Root\n\n\n# App\n');
  });

  it('at a revision, a link inside a linked folder to another folder is followed', async () => {
    const root = project({ 'AGENTS.md': '# Root\n', 'pkgs/core/AGENTS.md': '# Core\n' });
    symlinkSync('core', join(root, 'pkgs', 'main'));
    symlinkSync('pkgs', join(root, 'packages'));
    commit(root);
    const disk = await readPackDir(root);
    const atHead = await readPackAtRevision(root, 'HEAD');
    expect(atHead.diagnostics).toEqual([]);
    expect([...atHead.files.keys()].sort()).toEqual([...disk.files.keys()].sort());
    expect(atHead.files.has('packages/main/AGENTS.md')).toBe(true);
  });

  it('at a revision, links that fan out stop at --max-files (TOO_MANY_FILES)', async () => {
    const root = project({ 'd0/AGENTS.md': '# 0\n' });
    for (let i = 1; i <= 12; i++) {
      writeFiles(root, { [`d${i}/x.txt`]: 'x' });
      symlinkSync(`../d${i - 1}`, join(root, `d${i}`, 'a'));
      symlinkSync(`../d${i - 1}`, join(root, `d${i}`, 'b'));
    }
    commit(root);
    const atHead = await readPackAtRevision(root, 'HEAD', { maxFiles: 1000 });
    expect(atHead.diagnostics.map((d) => d.code)).toEqual(['TOO_MANY_FILES']);
    const disk = await readPackDir(root, { maxFiles: 1000 });
    expect(disk.diagnostics.map((d) => d.code)).toEqual(['TOO_MANY_FILES']);
  });
});
