import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, commitAll, tempDir, writeFiles } from '../helpers.js';

/**
 * A manifest's `hidden:` opts a hidden folder into the pack (an AGENTS.md chain reaching
 * into `.github`). A bundle made by `strata bundle` holds that folder's files, and a git
 * revision holds them too: both are read with the manifest's `hidden:`, as the folder is,
 * so the same pack gives the same prompt from all three, and `strata diff --base-ref`
 * sees no change where there is none.
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function pack(): string {
  const root = tempDir('strata-hidden-opt-in-');
  roots.push(root);
  writeFiles(root, {
    'strata.yaml': 'extends: agents-md\nhidden: [.github]\n',
    'AGENTS.md': '# Root\n',
    '.github/AGENTS.md': '# Workflows\n',
  });
  commitAll(root);
  return root;
}

describe('a manifest’s hidden: folders, from every source', () => {
  it('a bundle of the pack composes what the folder does', async () => {
    const root = pack();
    const file = join(tempDir('strata-hidden-bundle-'), 'pack.tgz');
    roots.push(join(file, '..'));
    expect((await cli(['bundle', '--dir', root, '--out', file])).code).toBe(0);
    const fromDir = await cli(['compose', '--dir', root, '--var', 'cwd=.github']);
    const fromBundle = await cli(['compose', '--dir', file, '--var', 'cwd=.github']);
    expect(fromDir).toEqual({ code: 0, stdout: '# Root\n\n\n# Workflows\n', stderr: '' });
    expect(fromBundle).toEqual(fromDir);
  });

  it('a git revision holds the opted-in folder: diff against HEAD finds no change', async () => {
    const root = pack();
    const diff = await cli(['diff', '--dir', root, '--base-ref', 'HEAD', '--var', 'cwd=.github']);
    expect(diff.code).toBe(0);
    expect(diff.stdout).not.toContain('Workflows');
  });
});
