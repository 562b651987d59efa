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
});
