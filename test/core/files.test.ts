import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compose } from '../../src/core/compose/compose.js';
import { loadPack } from '../../src/source/load.js';
import { codes, tempDir, writeFiles } from '../helpers.js';

describe('reading files from disk', () => {
  it('drops a BOM and normalises CRLF and CR to LF', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'base.md': '\uFEFFLine one\r\nLine two\r\n',
      'roles/dev.md': '\uFEFF---\r\nname: Dev\r\n---\r\nOld Mac\rline\r\n',
    });
    const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
    expect(diagnostics).toEqual([]);
    const result = compose(snapshot!, { role: 'dev' });
    expect(result.text).toBe('Line one\nLine two\n\n---\n\nOld Mac\nline');
    expect(snapshot!.roles.get('dev')!.name).toBe('Dev');
  });

  it('reports frontmatter errors with the file own line numbers', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'base.md': '---\nname: ok\ntags: [a, b\nmore: x\n---\nBody\n' });
    const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
    expect(snapshot).toBeUndefined();
    expect(diagnostics[0]).toMatchObject({ code: 'BAD_FRONTMATTER', file: 'base.md', line: 4 });
  });

  it('refuses a symlink that leaves the pack, and follows one that stays inside', async () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.md'), 'top secret');
    const dir = tempDir();
    writeFiles(dir, { 'base.md': 'Base', 'real/team.md': 'Team' });
    mkdirSync(join(dir, 'teams'));
    symlinkSync(join(outside, 'secret.md'), join(dir, 'teams', 'evil.md'));
    symlinkSync(join(dir, 'real', 'team.md'), join(dir, 'teams', 'good.md'));
    const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
    expect(snapshot).toBeUndefined();
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: 'PATH_OUTSIDE_PACK', file: 'teams/evil.md' }),
    ]);
  });

  it('follows Kubernetes ConfigMap ..data symlinks', async () => {
    const dir = tempDir();
    writeFiles(dir, { '..2026_11_01/base.md': 'From the ConfigMap.' });
    symlinkSync('..2026_11_01', join(dir, '..data'));
    symlinkSync('..data/base.md', join(dir, 'base.md'));
    const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
    expect(diagnostics).toEqual([]);
    expect([...snapshot!.files.keys()]).toEqual(['base.md']);
    expect(compose(snapshot!, {}).text).toBe('From the ConfigMap.');
  });

  it('refuses a file over the size limit, without reading it', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'base.md': 'x'.repeat(2 * 1024 * 1024) });
    const { snapshot, diagnostics } = await loadPack(dir, { env: {} });
    expect(snapshot).toBeUndefined();
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'FILE_TOO_LARGE', file: 'base.md' })]);
    const small = await loadPack(dir, { env: {}, maxFileBytes: 3 * 1024 * 1024 });
    expect(small.diagnostics).toEqual([]);
  });

  it('refuses a file too large to read at all by its size alone', async () => {
    // A sparse 5 GiB file: reading it would fail (READ_ERROR) or never end.
    const dir = tempDir();
    writeFiles(dir, { 'base.md': 'Base.', 'huge.md': '' });
    truncateSync(join(dir, 'huge.md'), 5 * 1024 ** 3);
    const { diagnostics } = await loadPack(dir, { env: {} });
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'FILE_TOO_LARGE', file: 'huge.md' })]);
  });

  it('refuses a YAML alias bomb', async () => {
    const dir = tempDir();
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 0; i < 8; i++) {
      const prev = String.fromCharCode(97 + i);
      const next = String.fromCharCode(98 + i);
      lines.push(`${next}: &${next} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    lines.push('roles:\n  boom: { system_prompt: *i }');
    writeFiles(dir, { 'roles.yaml': `${lines.join('\n')}\n` });
    const result = await loadPack(dir, { env: {}, preset: 'chorus' });
    expect(codes(result)).toEqual(['YAML_ALIASES']);
    expect(result.diagnostics[0]!.file).toBe('roles.yaml');
  });

  it('reports a missing pack directory', async () => {
    const result = await loadPack('/nonexistent/strata-pack', { env: {} });
    expect(codes(result)).toEqual(['PACK_NOT_FOUND']);
  });

  it('gives the same version for the same files on every load, and a new one after an edit', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'base.md': 'One' });
    const a = await loadPack(dir, { env: {} });
    const b = await loadPack(dir, { env: {} });
    expect(a.snapshot!.version).toBe(b.snapshot!.version);
    writeFiles(dir, { 'base.md': 'Two' });
    const c = await loadPack(dir, { env: {} });
    expect(c.snapshot!.version).not.toBe(a.snapshot!.version);
  });
});
