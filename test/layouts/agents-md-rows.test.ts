import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tryCompose } from '../../src/core/compose/compose.js';
import { loadPack } from '../../src/source/load.js';
import { cli, expectGolden, tempDir, writeFiles } from '../helpers.js';
import { codexProjectDocs } from './reference/codex.js';

// Nested AGENTS.md as Codex reads them: every prompt strata composes here is checked
// against Codex's own rule (reference/codex.ts, from codex-rs agents_md.rs) and against
// a golden file. Each project is a git checkout (a `.git` at its root), as Codex finds
// the project root.

function project(files: Record<string, string>, folders: string[] = []): string {
  const dir = realpathSync(tempDir('strata-agents-md-rows-'));
  writeFiles(dir, files);
  for (const f of ['.git', ...folders]) mkdirSync(join(dir, f), { recursive: true });
  return dir;
}

const MONO = {
  'AGENTS.md': '# Rules\n\nRun the tests.\n',
  'frontend/AGENTS.md': '# Frontend\n\nUse pnpm.\n',
  'frontend/src/AGENTS.md': '# Sources\n\nNo default exports.\n',
};

describe('agents-md: a working directory that is not a folder of the project', () => {
  const dir = project(MONO, ['frontend/src/components']);

  it('a mistyped cwd fails (exit 1) with the folder meant, never a shortened chain', async () => {
    expect(codexProjectDocs(dir, 'frontend/scr')).toBeUndefined();
    const { snapshot } = await loadPack(dir, { env: {} });
    const out = tryCompose(snapshot!, { vars: { cwd: 'frontend/scr' } });
    expect(out.ok ? [] : out.diagnostics.map((d) => [d.code, d.message, d.suggestions])).toEqual([
      [
        'INVALID_INPUT',
        'layer agents: "frontend/scr" (from {cwd}) names the folder "frontend/scr", which the pack\'s folder does not have (an agent cannot work in a missing folder); did you mean "frontend/src"?',
        ['frontend/src'],
      ],
    ]);
    const run = await cli(['compose', '--dir', dir, '--var', 'cwd=frontend/scr']);
    expect([run.code, run.stdout]).toEqual([1, '']);
  });

  it('a folder without an AGENTS.md of its own composes its chain, as Codex does', async () => {
    const { snapshot } = await loadPack(dir, { env: {} });
    const out = tryCompose(snapshot!, { vars: { cwd: 'frontend/src/components' } });
    expect(out.ok && out.result.text).toBe(codexProjectDocs(dir, 'frontend/src/components'));
    expectGolden('layouts/rows/agents-md-components.txt', out.ok ? out.result.text : '');
  });
});

describe('agents-md: an absolute cwd inside the project', () => {
  it('is the folder it names, as Codex works with it', async () => {
    const dir = project(MONO);
    const run = await cli(['compose', '--dir', dir, '--var', `cwd=${join(dir, 'frontend', 'src')}`]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(codexProjectDocs(dir, 'frontend/src'));
    expectGolden('layouts/rows/agents-md-absolute.txt', run.stdout);
  });
});

describe('agents-md: a project whose AGENTS.md files are all in sub-folders', () => {
  it('is detected, and a cwd below composes both files', async () => {
    const files = {
      'svc/AGENTS.md': '# Service\n\nDeploy with make.\n',
      'svc/api/AGENTS.md': '# API\n\nVersion every route.\n',
      'README.md': '# Repo\n',
    };
    const dir = project(files);
    const { snapshot } = await loadPack(dir, { env: {} });
    expect(snapshot!.preset).toBe('agents-md');
    const out = tryCompose(snapshot!, { vars: { cwd: 'svc/api' } });
    expect(out.ok && out.result.text).toBe(codexProjectDocs(dir, 'svc/api'));
    expectGolden('layouts/rows/agents-md-subfolders-only.txt', out.ok ? out.result.text : '');
    const run = await cli(['compose', '--dir', dir, '--var', 'cwd=svc/api']);
    expect([run.code, run.stdout]).toEqual([0, codexProjectDocs(dir, 'svc/api')]);
  });
});

describe('agents-md: text Codex keeps as it decodes it', () => {
  it('a byte order mark is kept, and a file blank only to Rust (a NEL) is left out', async () => {
    // String::from_utf8_lossy keeps U+FEFF, which is no White_Space for str::trim: a file
    // holding only one is kept; U+0085 (NEL) is White_Space there, so a file of it is blank.
    const dir = project({
      'AGENTS.md': '\uFEFF# Rules\n',
      'web/AGENTS.md': '\uFEFF',
      'web/api/AGENTS.md': '\u0085\n',
    });
    const want = '\uFEFF# Rules\n\n\n\uFEFF';
    expect(codexProjectDocs(dir, 'web/api')).toBe(want);
    const run = await cli(['compose', '--dir', dir, '--var', 'cwd=web/api']);
    expect([run.code, run.stdout]).toEqual([0, want]);
  });
});
