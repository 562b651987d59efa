import { rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readPackAtRevision } from '../../src/source/git.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { commitAll, tempDir, writeFiles } from '../helpers.js';

/**
 * A file name that is not UTF-8 (a Latin-1 `é` committed from an old system): the folder
 * reader refuses it (READ_ERROR, rename it), and so does a read of a git revision, instead
 * of reading it under a name with U+FFFD that no file has.
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('git revision: names that are not UTF-8', () => {
  it('are READ_ERROR at a revision, as in the folder; the other files are read', async () => {
    const root = tempDir('strata-git-names-');
    roots.push(root);
    writeFiles(root, { 'base.md': 'Base.\n', 'roles/dev.md': 'Dev.\n' });
    writeFileSync(
      Buffer.concat([Buffer.from(`${root}/roles/caf`), Buffer.from([0xe9]), Buffer.from('.md')]),
      'x',
    );
    commitAll(root);
    const disk = await readPackDir(root);
    const atHead = await readPackAtRevision(root, 'HEAD');
    for (const read of [disk, atHead]) {
      expect([...read.files.keys()].sort()).toEqual(['base.md', 'roles/dev.md']);
      expect(read.diagnostics.map((d) => [d.code, d.file])).toEqual([['READ_ERROR', 'roles/caf\uFFFD.md']]);
      expect(read.diagnostics[0]!.message).toContain('not valid UTF-8');
    }
  });
});
