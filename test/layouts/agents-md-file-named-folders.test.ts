import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { loadPack } from '../../src/source/load.js';
import { tempDir, writeFiles } from '../helpers.js';
import { codexProjectDocs } from './reference/codex.js';

/**
 * Folders named like files: a web app's routes (`app/sitemap.md/`, `app/llms.txt/`,
 * `app/feed.json/`) are folders where an agent may work and an AGENTS.md may be, as for
 * Codex, which looks only at the folders on the way.
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('agents-md: a folder named like a file', () => {
  it('is walked: its AGENTS.md is read, and a cwd in it composes, as in Codex', async () => {
    const root = tempDir('strata-agents-md-named-');
    roots.push(root);
    writeFiles(root, {
      'AGENTS.md': '# Root\n',
      'web/AGENTS.md': '# Web\n',
      'web/app/sitemap.md/AGENTS.md': '# Sitemap route\n',
      'web/app/feed.json/route.ts': 'export {};\n',
      // A folder named AGENTS.md is no file of its folder, and a folder all the same.
      'docs/AGENTS.md/AGENTS.md': '# Inside\n',
    });
    mkdirSync(join(root, '.git'));
    mkdirSync(join(root, 'web', 'app', 'llms.txt'));
    const { snapshot, diagnostics } = await loadPack(root, { env: {}, preset: 'agents-md' });
    expect(diagnostics.map((d) => [d.code, d.file])).toEqual([['SPECIAL_FILE', 'docs/AGENTS.md']]);
    const cwds = ['web/app/sitemap.md', 'web/app/llms.txt', 'web/app/feed.json', 'docs', 'docs/AGENTS.md'];
    const out = cwds.map((cwd) => {
      const outcome = tryCompose(snapshot!, { vars: { cwd } });
      return [
        cwd,
        outcome.ok ? outcome.result.text : outcome.diagnostics[0]!.code,
        codexProjectDocs(root, cwd),
      ];
    });
    expect(out).toEqual([
      [
        'web/app/sitemap.md',
        '# Root\n\n\n# Web\n\n\n# Sitemap route\n',
        '# Root\n\n\n# Web\n\n\n# Sitemap route\n',
      ],
      ['web/app/llms.txt', '# Root\n\n\n# Web\n', '# Root\n\n\n# Web\n'],
      ['web/app/feed.json', '# Root\n\n\n# Web\n', '# Root\n\n\n# Web\n'],
      ['docs', '# Root\n', '# Root\n'],
      ['docs/AGENTS.md', '# Root\n\n\n# Inside\n', '# Root\n\n\n# Inside\n'],
    ]);
  });
});
