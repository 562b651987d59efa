import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { readPackAtRevision } from '../../src/source/git.js';
import { loadPack } from '../../src/source/load.js';
import { openPack } from '../../src/source/open.js';
import { cli, commitAll, git, memPack, tempDir, writeFiles } from '../helpers.js';
import { appFor } from '../server/helpers.js';
import { codexProjectDocs } from './reference/codex.js';

/**
 * AGENTS.md projects as repositories hold them: `AGENTS.md` a symlink to `CLAUDE.md`, an
 * override left dangling, a link to a file outside the project, a file over the size limit,
 * and Codex's `project_doc_fallback_filenames` (CLAUDE.md where there is no AGENTS.md).
 * Codex reads each folder's first candidate that is a file (following symlinks: a dangling
 * one is no file, so the next candidate is used).
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function project(files: Record<string, string | Uint8Array>): string {
  const root = tempDir('strata-agents-md-rw-');
  roots.push(root);
  writeFiles(root, files);
  return root;
}

async function composeAt(root: string, cwd: string) {
  const { snapshot, diagnostics } = await loadPack(root, { env: {} });
  if (!snapshot) throw new Error(JSON.stringify(diagnostics));
  const outcome = tryCompose(snapshot, { vars: { cwd } });
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
  return {
    text: outcome.result.text,
    parts: outcome.result.layers[0]!.parts!.map((p) => [p.source, p.included]),
    diagnostics: diagnostics.map((d) => [d.severity, d.code, d.file, d.message]),
  };
}

describe('agents-md: files that cannot be read are left out, as Codex leaves them', () => {
  it('AGENTS.md a symlink to CLAUDE.md beside it is read through the link', async () => {
    const root = project({ 'CLAUDE.md': '\uFEFF# Rules\n', 'web/AGENTS.md': '# Web\n' });
    symlinkSync('CLAUDE.md', join(root, 'AGENTS.md'));
    const out = await composeAt(root, 'web');
    // The byte order mark is kept, as Codex keeps it (String::from_utf8_lossy).
    expect(out.text).toBe('\uFEFF# Rules\n\n\n# Web\n');
    expect(out.diagnostics).toEqual([]);
  });

  it('a dangling AGENTS.override.md is no file: the AGENTS.md beside it is read, as in Codex', async () => {
    const root = project({ 'AGENTS.md': '# Root\n', 'web/AGENTS.md': '# Web\n' });
    symlinkSync('../gone.md', join(root, 'web', 'AGENTS.override.md'));
    mkdirSync(join(root, '.git'));
    const out = await composeAt(root, 'web');
    // Codex: the metadata check follows the link and finds nothing, so the next name is taken.
    expect(out.text).toBe('# Root\n\n\n# Web\n');
    expect(out.text).toBe(codexProjectDocs(root, 'web'));
    expect(out.parts).toEqual([
      ['AGENTS.md', true],
      ['web/AGENTS.md', true],
    ]);
    expect(out.diagnostics).toEqual([
      [
        'warning',
        'READ_ERROR',
        'web/AGENTS.override.md',
        'broken symlink: ENOENT; it is left out, as if it were not there',
      ],
    ]);
  });

  it('a dangling AGENTS.override.md in a git revision is no file either', async () => {
    const root = project({ 'AGENTS.md': '# Root\n', 'web/AGENTS.md': '# Web\n' });
    symlinkSync('../gone.md', join(root, 'web', 'AGENTS.override.md'));
    commitAll(root);
    const { snapshot, diagnostics } = await openPack({ kind: 'git', dir: root, rev: 'HEAD' }, { env: {} });
    expect(diagnostics.map((d) => [d.severity, d.code, d.file])).toEqual([
      ['warning', 'READ_ERROR', 'web/AGENTS.override.md'],
    ]);
    const out = tryCompose(snapshot!, { vars: { cwd: 'web' } });
    expect(out.ok && out.result.text).toBe('# Root\n\n\n# Web\n');
  });

  it('an AGENTS.override.md over --max-file-bytes gives no text; the AGENTS.md beside it is not read in its place', async () => {
    const root = project({ 'AGENTS.override.md': `# Big\n${'x'.repeat(300)}\n`, 'AGENTS.md': '# Small\n' });
    const run = await cli(['compose', '--dir', root, '--max-file-bytes', '200']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('warning FILE_TOO_LARGE: AGENTS.override.md: file is 307 bytes');
  });

  it('a folder named AGENTS.override.md is no file: the AGENTS.md beside it is read, as Codex passes over it', async () => {
    const root = project({
      'AGENTS.md': '# Root\n',
      'web/AGENTS.md': '# Web\n',
      'web/AGENTS.override.md/x.txt': 'x',
    });
    const out = await composeAt(root, 'web');
    expect(out.text).toBe('# Root\n\n\n# Web\n');
    expect(out.diagnostics.map((d) => d.slice(0, 3))).toEqual([
      ['warning', 'SPECIAL_FILE', 'web/AGENTS.override.md'],
    ]);
  });

  it('a symlink leaving the project is not followed: left out, with a warning (Codex would read it)', async () => {
    const outside = project({ 'shared.md': '# Shared\n' });
    const root = project({ 'AGENTS.md': '# Root\n' });
    symlinkSync(join(outside, 'shared.md'), join(root, 'api.md'));
    writeFiles(root, { 'api/x.txt': 'x' });
    symlinkSync(join(outside, 'shared.md'), join(root, 'api', 'AGENTS.md'));
    const out = await composeAt(root, 'api');
    expect(out.text).toBe('# Root\n');
    expect(out.diagnostics.map((d) => d.slice(0, 3))).toEqual([
      ['warning', 'PATH_OUTSIDE_PACK', 'api/AGENTS.md'],
    ]);
    expect(out.diagnostics[0]![3]).toMatch(
      /^symlink points outside the pack \(to .*\); the file is left out/,
    );
  });

  it('an AGENTS.md over --max-file-bytes still makes the layout agents-md, and is left out with a warning', async () => {
    const root = project({ 'AGENTS.md': `# Big\n${'x'.repeat(300)}\n`, 'app/AGENTS.md': '# App\n' });
    const run = await cli(['compose', '--dir', root, '--var', 'cwd=app', '--max-file-bytes', '200']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('# App\n');
    expect(run.stderr).toBe(
      'warning FILE_TOO_LARGE: AGENTS.md: file is 307 bytes; the limit is 200; the file is left out: no text of it is composed, nor the next file of a chain in its place (--max-file-bytes raises the limit)\n',
    );
    const { app } = await appFor(root, {});
    const res = await app.request('/api/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ vars: { cwd: 'app' } }),
    });
    expect(res.status).toBe(200);
  });

  it('other layouts still fail on a broken symlink they select (unreadable: error)', async () => {
    const root = project({ 'base.md': 'Base.\n', 'roles/dev.md': 'Dev.\n' });
    symlinkSync('gone.md', join(root, 'roles', 'qa.md'));
    const { snapshot, diagnostics } = await loadPack(root, { env: {} });
    expect(snapshot).toBeUndefined();
    expect(diagnostics.map((d) => [d.severity, d.code, d.file])).toEqual([
      ['error', 'READ_ERROR', 'roles/qa.md'],
    ]);
  });

  it('unreadable: takes error or skip', () => {
    const bad = memPack({ 'strata.yaml': 'extends: agents-md\nunreadable: ignore\n', 'AGENTS.md': '# A\n' });
    expect(bad.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['BAD_MANIFEST', 'unreadable must be error or skip'],
    ]);
  });
});

describe("agents-md: Codex's project_doc_fallback_filenames, written in strata.yaml", () => {
  const files = {
    'AGENTS.md': '# Root\n',
    'api/CLAUDE.md': '# API (Claude)\n',
    'web/AGENTS.md': '# Web\n',
    'web/CLAUDE.md': '# Web (Claude)\n',
    // project_doc_fallback_filenames = ["CLAUDE.md"]
    'strata.yaml': [
      'extends: agents-md',
      'files: ["**/AGENTS.md", "**/AGENTS.override.md", "**/CLAUDE.md"]',
      'raw: ["**/AGENTS.md", "**/AGENTS.override.md", "**/CLAUDE.md"]',
      'layers:',
      '  - id: agents',
      '    chain:',
      '      path: "{cwd}"',
      '      files: [AGENTS.override.md, AGENTS.md, CLAUDE.md]',
      '      join: "\\n\\n"',
      '',
    ].join('\n'),
  };

  it('a folder without AGENTS.md gives its CLAUDE.md; one with both gives AGENTS.md', () => {
    const { snapshot } = memPack(files);
    const at = (cwd: string) => {
      const out = tryCompose(snapshot!, { vars: { cwd } });
      return out.ok ? out.result.text : out.diagnostics.map((d) => d.code).join();
    };
    expect(at('api')).toBe('# Root\n\n\n# API (Claude)\n');
    expect(at('web')).toBe('# Root\n\n\n# Web\n');
  });

  it('the budget and the raw bytes of the preset layer are kept', () => {
    const { snapshot } = memPack(files);
    const out = tryCompose(snapshot!, { vars: { cwd: 'api' }, settings: { project_doc_max_bytes: 10 } });
    // 7 bytes of the root's file, then the 3 left of api/CLAUDE.md, as Codex cuts.
    expect(out.ok && [out.result.text, out.result.diagnostics.map((d) => d.code)]).toEqual([
      '# Root\n\n\n# A',
      ['TRUNCATED'],
    ]);
  });
});

describe('agents-md: a nested repository starts a walk of its own, as Codex starts at the nearest .git', () => {
  function monorepo(): string {
    const root = project({
      'AGENTS.md': '# Root\n',
      'app/AGENTS.md': '# App\n',
      // A submodule: its .git is a file.
      'vendor/lib/.git': 'gitdir: ../../.git/modules/lib\n',
      'vendor/lib/AGENTS.md': '# Lib\n',
      'vendor/lib/src/AGENTS.md': '# Lib src\n',
      'tools/AGENTS.md': '# Tools\n',
    });
    // A nested repository without AGENTS.md of its own: its .git is a folder.
    mkdirSync(join(root, 'tools', 'scratch', '.git', 'objects'), { recursive: true });
    writeFiles(root, { '.git/HEAD': 'ref: refs/heads/main\n' });
    return root;
  }

  it.each([
    ['vendor/lib/src', '# Lib\n\n\n# Lib src\n'],
    ['vendor/lib', '# Lib\n'],
    ['vendor', '# Root\n'],
    ['app', '# Root\n\n\n# App\n'],
  ])('cwd %s', async (cwd, text) => {
    const out = await composeAt(monorepo(), cwd);
    expect(out.text).toBe(text);
    expect(out.diagnostics).toEqual([]);
  });

  it('a nested repository without AGENTS.md gives no text (the files above it are not its own)', async () => {
    const { snapshot } = await loadPack(monorepo(), { env: {} });
    expect(snapshot!.gitFolders).toEqual(['tools/scratch', 'vendor/lib']);
    const out = tryCompose(snapshot!, { vars: { cwd: 'tools/scratch' } });
    expect(out.ok && [out.result.text, out.result.diagnostics.map((d) => d.code)]).toEqual([
      '',
      ['FALLBACK_USED'],
    ]);
  });

  it('a .git symlink to nothing marks no repository: the walk starts above it, as Codex finds nothing there', async () => {
    const root = monorepo();
    writeFiles(root, { 'web/AGENTS.md': '# Web\n' });
    symlinkSync('../gone/.git', join(root, 'web', '.git'));
    symlinkSync('../.git', join(root, 'app', '.git'));
    const { snapshot } = await loadPack(root, { env: {} });
    // A link to a folder that is there marks one, as a folder would.
    expect(snapshot!.gitFolders).toEqual(['app', 'tools/scratch', 'vendor/lib']);
    const out = tryCompose(snapshot!, { vars: { cwd: 'web' } });
    expect(out.ok && out.result.text).toBe('# Root\n\n\n# Web\n');
    expect(out.ok && out.result.text).toBe(codexProjectDocs(root, 'web'));
  });

  it('explain and the API say where the walk starts', async () => {
    const root = monorepo();
    const run = await cli(['explain', '--dir', root, '--var', 'cwd=vendor/lib/src']);
    expect(run.stdout).toContain('1  agents  included  chain of 2 files from vendor/lib (.git)');
    const { app } = await appFor(root);
    const res = await app.request('/api/compose', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ vars: { cwd: 'vendor/lib/src' } }),
    });
    const body = (await res.json()) as { layers: Array<{ chainRoot?: string; explain: { source: string } }> };
    expect(body.layers[0]!.chainRoot).toBe('vendor/lib');
    expect(body.layers[0]!.explain.source).toBe('chain of 2 files from vendor/lib (.git)');
    const top = await composeAt(root, 'app');
    expect(top.text).toBe('# Root\n\n\n# App\n');
  });

  it('the CLI, the API and a reload agree', async () => {
    const root = monorepo();
    const run = await cli(['compose', '--dir', root, '--var', 'cwd=vendor/lib/src']);
    expect([run.code, run.stdout]).toEqual([0, '# Lib\n\n\n# Lib src\n']);
    const { app, store } = await appFor(root);
    const ask = async () => {
      const res = await app.request('/api/compose', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ vars: { cwd: 'vendor/lib/src' } }),
      });
      return ((await res.json()) as { text: string }).text;
    };
    expect(await ask()).toBe('# Lib\n\n\n# Lib src\n');
    writeFiles(root, { 'vendor/lib/src/AGENTS.md': '# Lib src, changed\n' });
    await store.reload('manual');
    expect(await ask()).toBe('# Lib\n\n\n# Lib src, changed\n');
  });

  it('the version counts the nested repositories; a pack without any keeps its version', async () => {
    const root = monorepo();
    const before = (await loadPack(root, { env: {} })).snapshot!.version;
    rmSync(join(root, 'tools', 'scratch', '.git'), { recursive: true });
    const after = (await loadPack(root, { env: {} })).snapshot!;
    expect(after.gitFolders).toEqual(['vendor/lib']);
    expect(after.version).not.toBe(before);
  });

  it('at a git revision, a submodule (a gitlink) is a nested repository too', async () => {
    const root = project({ 'AGENTS.md': '# Root\n', 'app/AGENTS.md': '# App\n' });
    commitAll(root);
    const head = git(root, 'rev-parse', 'HEAD').trim();
    git(root, 'update-index', '--add', '--cacheinfo', `160000,${head},vendor/lib`);
    git(root, 'commit', '-q', '-m', 'submodule');
    const read = await readPackAtRevision(root, 'HEAD');
    expect(read.gitFolders).toEqual(['vendor/lib']);
    const { snapshot } = await loadPack(root, { env: {} });
    expect(snapshot!.gitFolders).toBeUndefined();
  });

  it('chain start: takes pack_root or git_root', () => {
    const bad = memPack({
      'AGENTS.md': '# A\n',
      'strata.yaml':
        'extends: agents-md\nlayers:\n  - id: agents\n    chain: { path: "{cwd}", files: [AGENTS.md], start: git }\n',
    });
    expect(bad.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['BAD_MANIFEST', 'chain start must be pack_root or git_root'],
    ]);
  });
});
