import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/cli/atomic-write.js';
import { cli, EXAMPLES, tempDir } from '../helpers.js';

const ROBOCO = join(EXAMPLES, 'roboco');

/** Output paths of the writing commands that are not plain files. */
describe('hostile output paths', () => {
  it('export --out through a symlink (CLAUDE.md → AGENTS.md) writes the file it points to and keeps the link', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'shared'));
    writeFileSync(join(dir, 'shared', 'AGENTS.md'), 'old prompt\n');
    mkdirSync(join(dir, 'out'));
    symlinkSync('../shared/AGENTS.md', join(dir, 'out', 'CLAUDE.md'));
    const run = await cli([
      'export',
      '--dir',
      ROBOCO,
      '--agent',
      'ada',
      '--target',
      'claude',
      '--out',
      join(dir, 'out'),
    ]);
    expect(run.code).toBe(0);
    const composed = await cli(['compose', '--dir', ROBOCO, '--agent', 'ada']);
    expect(lstatSync(join(dir, 'out', 'CLAUDE.md')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'out', 'CLAUDE.md'))).toBe('../shared/AGENTS.md');
    expect(readFileSync(join(dir, 'shared', 'AGENTS.md'), 'utf8')).toBe(composed.stdout);
  });

  it('a dangling link is written where it points; a link loop is ELOOP and nothing is written', async () => {
    const dir = tempDir();
    symlinkSync('target.lock.json', join(dir, 'prompts.lock.json'));
    await writeFileAtomic(join(dir, 'prompts.lock.json'), 'x');
    expect(readFileSync(join(dir, 'target.lock.json'), 'utf8')).toBe('x');
    expect(lstatSync(join(dir, 'prompts.lock.json')).isSymbolicLink()).toBe(true);
    symlinkSync('b', join(dir, 'a'));
    symlinkSync('a', join(dir, 'b'));
    await expect(writeFileAtomic(join(dir, 'a'), 'x')).rejects.toMatchObject({ code: 'ELOOP' });
    const run = await cli(['snapshot', '--dir', ROBOCO, '--out', join(dir, 'a')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('WRITE_ERROR');
    expect(lstatSync(join(dir, 'a')).isSymbolicLink()).toBe(true);
  });

  it('an output path that is no regular file location is WRITE_ERROR naming it, exit 1, and nothing is replaced', async () => {
    const dir = tempDir();
    const exportTo = (out: string, ...more: string[]) =>
      cli(['export', '--dir', ROBOCO, '--agent', 'ada', '--target', 'file', '--out', out, ...more]);
    // /proc takes no new file: the temporary file beside the target cannot be made.
    const proc = await exportTo('/proc/version');
    expect([proc.code, proc.stdout, proc.stderr]).toEqual([
      1,
      '',
      'error WRITE_ERROR: /proc/version: cannot write: the folder /proc takes no new files (the file is written beside its target, then renamed over it) (ENOENT)\n',
    ]);
    const noFolder = await exportTo(join(dir, 'none', 'x.md'));
    expect(noFolder.stderr).toBe(
      `error WRITE_ERROR: ${join(dir, 'none', 'x.md')}: cannot write: the folder ${join(dir, 'none')} does not exist (ENOENT)\n`,
    );
    writeFileSync(join(dir, 'plain'), 'a file');
    const underFile = await exportTo(join(dir, 'plain', 'x.md'));
    expect(underFile.stderr).toMatch(/cannot write: a part of .*plain is not a folder \(ENOTDIR\)\n$/);
    // A FIFO (as a device such as /dev/null) is never opened nor replaced by a file: not by
    // export, --check, snapshot or bundle.
    const fifo = join(dir, 'fifo.md');
    execFileSync('mkfifo', [fifo]);
    const special = `cannot write: it is a FIFO, not a regular file; only a regular file is replaced\n`;
    for (const run of [
      await exportTo(fifo),
      await exportTo(fifo, '--check'),
      await cli(['bundle', '--dir', ROBOCO, '--out', fifo]),
    ])
      expect([run.code, run.stderr]).toEqual([1, `error WRITE_ERROR: ${fifo}: ${special}`]);
    const lock = await cli(['snapshot', '--dir', ROBOCO, '--out', fifo]);
    expect([lock.code, lock.stderr]).toEqual([
      1,
      `error WRITE_ERROR: ${fifo}: ${special.replace('write:', 'write lock file:')}`,
    ]);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    // A device that never ends is not read by --check either.
    const zero = await exportTo('/dev/zero', '--check');
    expect(zero.stderr).toBe(
      'error WRITE_ERROR: /dev/zero: cannot write: it is a character device, not a regular file; only a regular file is replaced\n',
    );
    mkdirSync(join(dir, 'out', 'CLAUDE.md'), { recursive: true });
    const folder = await cli([
      'export',
      '--dir',
      ROBOCO,
      '--agent',
      'ada',
      '--target',
      'claude',
      '--out',
      join(dir, 'out'),
    ]);
    expect([folder.code, folder.stderr]).toEqual([
      1,
      `error WRITE_ERROR: ${join(dir, 'out', 'CLAUDE.md')}: cannot write: it is a folder, not a file (EISDIR)\n`,
    ]);
    await expect(writeFileAtomic(join(dir, 'out', 'CLAUDE.md'), 'x')).rejects.toMatchObject({
      code: 'EISDIR',
    });
    await expect(writeFileAtomic(fifo, 'x')).rejects.toMatchObject({ code: 'ENOTREG' });
  });

  it('generate reads its registry bounded and never opens a fragment that is no regular file', async () => {
    const dir = tempDir();
    const zero = await cli([
      'generate',
      '--registry',
      '/dev/zero',
      '--out',
      join(dir, 'out'),
      '--max-file-bytes',
      '4096',
    ]);
    expect([zero.code, zero.stderr]).toEqual([
      1,
      'error FILE_TOO_LARGE: /dev/zero: file is more than 4096 bytes; the limit is 4096 (--max-file-bytes)\n',
    ]);
    writeFileSync(join(dir, 'verbs.yaml'), 'verbs:\n  - { name: a, description: A, kind: do, roles: [r] }\n');
    mkdirSync(join(dir, 'out'));
    execFileSync('mkfifo', [join(dir, 'out', 'r.md')]);
    const gen = await cli(['generate', '--registry', join(dir, 'verbs.yaml'), '--out', join(dir, 'out')]);
    expect(gen.code).toBe(1);
    expect(gen.stderr).toContain(
      `error WRITE_ERROR: ${join(dir, 'out', 'r.md')}: cannot write: it is a FIFO`,
    );
    expect(lstatSync(join(dir, 'out', 'r.md')).isFIFO()).toBe(true);
  });
});
