import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/cli/atomic-write.js';
import { cli, EXAMPLES, tempDir, writeFiles } from '../helpers.js';

const ROBOCO = join(EXAMPLES, 'roboco');

describe('strata export', () => {
  it.each([
    ['claude', 'CLAUDE.md'],
    ['agents', 'AGENTS.md'],
    ['gemini', 'GEMINI.md'],
  ])('--target %s into a folder writes %s with exactly the composed bytes', async (target, name) => {
    const dir = tempDir();
    const r = await cli([
      'export',
      '--dir',
      ROBOCO,
      '--agent',
      'ada',
      '--target',
      target,
      '--out',
      dir,
      '--json',
    ]);
    expect(r.code).toBe(0);
    const compose = await cli(['compose', '--dir', ROBOCO, '--agent', 'ada']);
    expect(readFileSync(join(dir, name), 'utf8')).toBe(compose.stdout);
    expect(JSON.parse(r.stdout)).toMatchObject({
      path: join(dir, name),
      target,
      bytes: Buffer.byteLength(compose.stdout),
      written: true,
    });
    expect(readdirSync(dir)).toEqual([name]);
  });

  it('--target file writes a plain file; unchanged content is not rewritten; --check finds drift', async () => {
    const dir = tempDir();
    const out = join(dir, 'system-prompt.txt');
    const args = [
      'export',
      '--dir',
      join(EXAMPLES, 'chorus'),
      '--role',
      'reviewer',
      '--target',
      'file',
      '--out',
      out,
    ];
    expect((await cli(args)).stdout).toMatch(
      /^wrote .*system-prompt\.txt \(\d+ bytes, sha256 [0-9a-f]{12}, pack [0-9a-f]{16}\)\n$/,
    );
    const again = await cli(args);
    expect(again.stdout).toMatch(/^unchanged /);
    expect((await cli([...args, '--check'])).code).toBe(0);
    writeFileSync(out, 'edited');
    const check = await cli([...args, '--check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^differs /);
    expect(readFileSync(out, 'utf8')).toBe('edited');
    // A file that is not there is said as missing on stdout too, not as one that differs.
    const gone = await cli([...args.slice(0, -1), `${out}.none`, '--check']);
    expect([gone.code, gone.stdout.split(' ')[0], gone.stderr.split('\n').at(-2)]).toEqual([
      1,
      'missing',
      `drift: ${out}.none is missing`,
    ]);
  });

  it("never replaces a file of the pack it composes from (an AGENTS.md project's root file)", async () => {
    const dir = tempDir();
    const root = '# Root\n\nRun the tests.\n';
    const backend = '# Backend\n\nEvery endpoint has a test.\n';
    writeFiles(dir, { 'AGENTS.md': root, 'backend/AGENTS.md': backend, 'notes.txt': 'x' });
    const args = ['export', '--dir', dir, '--var', 'cwd=backend', '--target', 'agents'];
    for (const [out, file] of [
      [dir, 'AGENTS.md'],
      [join(dir, 'backend'), 'backend/AGENTS.md'],
      [join(dir, 'backend/../AGENTS.md'), 'AGENTS.md'],
    ]) {
      const r = await cli([...args, '--out', out!]);
      expect([r.code, r.stdout]).toEqual([1, '']);
      expect(r.stderr).toMatch(
        new RegExp(`^error WRITE_ERROR: .*: is the pack's file ${file}: strata export never writes`),
      );
    }
    expect(readFileSync(join(dir, 'AGENTS.md'), 'utf8')).toBe(root);
    expect(readFileSync(join(dir, 'backend/AGENTS.md'), 'utf8')).toBe(backend);
    // Nor is one made where the chain would read it: the next compose there would hold the prompt.
    mkdirSync(join(dir, 'backend/api'));
    const made = await cli([...args, '--out', join(dir, 'backend/api/')]);
    expect([made.code, made.stdout]).toEqual([1, '']);
    expect(made.stderr).toMatch(
      /: would be the pack's file backend\/api\/AGENTS\.md: strata export never writes/,
    );
    expect(readdirSync(join(dir, 'backend/api'))).toEqual([]);
    // The pack is the folder's real path: a link to it is seen through.
    const link = join(tempDir(), 'pack');
    symlinkSync(dir, link);
    expect((await cli(['export', '--dir', link, '--target', 'agents', '--out', dir])).code).toBe(1);
    // A file the pack does not read, and --check (which writes nothing), are allowed.
    expect((await cli([...args, '--out', join(dir, 'CLAUDE.md')])).code).toBe(0);
    expect((await cli(['export', '--dir', dir, '--target', 'agents', '--out', dir, '--check'])).code).toBe(0);
    expect(readFileSync(join(dir, 'AGENTS.md'), 'utf8')).toBe(root);
  });

  it('keeps the mode of an existing file and leaves no temporary file behind', async () => {
    const dir = tempDir();
    const out = join(dir, 'AGENTS.md');
    writeFileSync(out, 'old');
    chmodSync(out, 0o600);
    await cli(['export', '--dir', ROBOCO, '--agent', 'ken', '--target', 'agents', '--out', out]);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['AGENTS.md']);
  });

  it('hostile input: bad target, no --out, a missing folder, a folder for --target file, a bad request', async () => {
    const dir = tempDir();
    expect(
      (await cli(['export', '--dir', ROBOCO, '--agent', 'ada', '--target', 'vim', '--out', dir])).code,
    ).toBe(2);
    expect((await cli(['export', '--dir', ROBOCO, '--agent', 'ada', '--target', 'claude'])).code).toBe(2);
    expect(
      (await cli(['export', '--dir', ROBOCO, '--agent', 'ada', '--target', 'file', '--out', dir])).code,
    ).toBe(2);
    const missing = await cli([
      'export',
      '--dir',
      ROBOCO,
      '--agent',
      'ada',
      '--target',
      'claude',
      '--out',
      join(dir, 'no', 'CLAUDE.md'),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `error WRITE_ERROR: ${join(dir, 'no', 'CLAUDE.md')}: cannot write: the folder ${join(dir, 'no')} does not exist (ENOENT)\n`,
    );
    const badRole = await cli([
      'export',
      '--dir',
      ROBOCO,
      '--role',
      'ghost',
      '--target',
      'claude',
      '--out',
      dir,
    ]);
    expect(badRole.code).toBe(1);
    expect(badRole.stderr).toMatch(/^error UNKNOWN_ROLE/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('writeFileAtomic', () => {
  it('replaces the file whole and cleans up after a failure', async () => {
    const dir = tempDir();
    const file = join(dir, 'f.txt');
    await writeFileAtomic(file, 'one');
    await writeFileAtomic(file, 'two');
    expect(readFileSync(file, 'utf8')).toBe('two');
    await expect(writeFileAtomic(join(dir, 'f.txt', 'child'), 'x')).rejects.toThrow();
    // Renaming over a folder fails: the temporary file is removed, the folder untouched.
    const folder = join(dir, 'folder');
    await writeFileAtomic(join(dir, 'x'), 'x');
    (await import('node:fs')).mkdirSync(folder);
    await expect(writeFileAtomic(folder, 'data')).rejects.toThrow();
    expect(readdirSync(dir).sort()).toEqual(['f.txt', 'folder', 'x']);
  });
});
