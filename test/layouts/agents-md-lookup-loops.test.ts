import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { loadPack } from '../../src/source/load.js';
import { tempDir, writeFiles } from '../helpers.js';
import { codexProjectDocs } from './reference/codex.js';

/**
 * A path whose lookup fails for another reason than a missing entry (a symlink loop).
 * Codex looks at `.git` in each folder from the working directory up until it finds one,
 * then at each folder's candidates from there down; such a failure on the way fails the
 * whole read, and the agent gets no AGENTS.md text. Elsewhere in the project it changes
 * nothing.
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const root = tempDir('strata-agents-md-loops-');
  roots.push(root);
  writeFiles(root, files);
  mkdirSync(join(root, '.git'));
  return root;
}

async function composeEach(root: string, cwds: string[]) {
  const { snapshot, diagnostics } = await loadPack(root, { env: {}, preset: 'agents-md' });
  if (!snapshot) throw new Error(JSON.stringify(diagnostics));
  return cwds.map((cwd) => {
    const outcome = tryCompose(snapshot, { vars: { cwd } });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
    const said = outcome.result.diagnostics.filter((d) => d.code === 'READ_ERROR').map((d) => d.file);
    return { cwd, text: outcome.result.text, said, codex: codexProjectDocs(root, cwd) };
  });
}

describe('agents-md: a .git whose symlinks loop', () => {
  it('loads; a walk that looks at it reads no file, as Codex, whose read fails there', async () => {
    const root = project({
      'AGENTS.md': '# Root\n',
      'svc/AGENTS.md': '# Svc\n',
      'svc/api/nested/AGENTS.md': '# Nested\n',
      'web/AGENTS.md': '# Web\n',
    });
    symlinkSync('.git', join(root, 'svc', '.git'));
    mkdirSync(join(root, 'svc', 'api', 'nested', '.git'));
    const out = await composeEach(root, ['.', 'web', 'svc', 'svc/api', 'svc/api/nested']);
    expect(out).toEqual([
      { cwd: '.', text: '# Root\n', said: [], codex: '# Root\n' },
      { cwd: 'web', text: '# Root\n\n\n# Web\n', said: [], codex: '# Root\n\n\n# Web\n' },
      { cwd: 'svc', text: '', said: ['svc/.git'], codex: '' },
      { cwd: 'svc/api', text: '', said: ['svc/.git'], codex: '' },
      // A nested repository below it is found first, on the way up.
      { cwd: 'svc/api/nested', text: '# Nested\n', said: [], codex: '# Nested\n' },
    ]);
  });

  it('at the root: every walk that reaches the root reads no file', async () => {
    const root = project({ 'AGENTS.md': '# Root\n', 'lib/AGENTS.md': '# Lib\n', 'lib/.git/HEAD': 'x\n' });
    rmSync(join(root, '.git'), { recursive: true });
    symlinkSync('.git', join(root, '.git'));
    const out = await composeEach(root, ['.', 'lib']);
    expect(out.map((o) => [o.text, o.said])).toEqual([
      ['', ['.git']],
      ['# Lib\n', []],
    ]);
    expect(out[0]!.codex).toBe('');
  });
});

describe('agents-md: an AGENTS.md whose symlinks loop', () => {
  it('stops every walk through its folder (looked at before the file taken), as Codex, whose read fails there', async () => {
    const root = project({
      'AGENTS.md': '# Root\n',
      'a/AGENTS.md': '# A\n',
      'b/AGENTS.override.md': '# B override\n',
      'c/AGENTS.md': '# C\n',
    });
    // AGENTS.md -> CLAUDE.md -> AGENTS.md: two tools each made the other's link.
    symlinkSync('CLAUDE.md', join(root, 'a', 'AGENTS.override.md'));
    symlinkSync('AGENTS.override.md', join(root, 'a', 'CLAUDE.md'));
    // Looked at only when there is no AGENTS.override.md: here there is one.
    symlinkSync('AGENTS.md', join(root, 'b', 'AGENTS.md'));
    mkdirSync(join(root, 'a', 'deep'));
    const { snapshot, diagnostics } = await loadPack(root, { env: {}, preset: 'agents-md' });
    expect(diagnostics.map((d) => [d.code, d.file, d.message])).toEqual([
      [
        'READ_ERROR',
        'a/AGENTS.override.md',
        'symlink loop (its links lead back to themselves): ELOOP; the file is left out: a chain whose walk meets it reads no file',
      ],
      [
        'READ_ERROR',
        'b/AGENTS.md',
        'symlink loop (its links lead back to themselves): ELOOP; the file is left out: a chain whose walk meets it reads no file',
      ],
    ]);
    expect(snapshot).toBeDefined();
    const out = await composeEach(root, ['.', 'a', 'a/deep', 'b', 'c']);
    expect(out).toEqual([
      { cwd: '.', text: '# Root\n', said: [], codex: '# Root\n' },
      { cwd: 'a', text: '', said: ['a/AGENTS.override.md'], codex: '' },
      { cwd: 'a/deep', text: '', said: ['a/AGENTS.override.md'], codex: '' },
      { cwd: 'b', text: '# Root\n\n\n# B override\n', said: [], codex: '# Root\n\n\n# B override\n' },
      { cwd: 'c', text: '# Root\n\n\n# C\n', said: [], codex: '# Root\n\n\n# C\n' },
    ]);
  });
});
