import { describe, expect, it } from 'vitest';
import { compose } from '../../src/core/compose/compose.js';
import { cli, memPack, tempDir, writeFiles } from '../helpers.js';

const NFD = 'cafe\u0301';
const PACK = {
  'AGENTS.md': 'Root.\n',
  'backend/AGENTS.md': 'Backend.\n',
  'backend/api/AGENTS.md': 'Api.\n',
  [`${NFD}/AGENTS.md`]: 'Cafe.\n',
};

/**
 * A working directory written with another letter case, Unicode normalisation or Windows
 * separators than the folder it means names a folder the pack does not have: its
 * AGENTS.md files are not read (as Codex on Linux, which would not find the folder), and
 * that is said, with the folder meant, never a shorter prompt without a word.
 */
describe('agents-md: a cwd a spelling away from a folder of the pack', () => {
  it.each([
    ['a letter case', 'Backend/api', 'Backend', 'backend', 'Root.\n'],
    ['a letter case deeper down', 'backend/API', 'backend/API', 'backend/api', 'Root.\n\n\nBackend.\n'],
    ['Windows separators', 'backend\\api', 'backend\\api', 'backend/api', 'Root.\n'],
    ['NFC where the folder is NFD', 'caf\u00e9', 'caf\u00e9', NFD, 'Root.\n'],
  ])('%s is a LAYER_MISSING warning naming the folder meant', (_, cwd, given, meant, text) => {
    const snapshot = memPack(PACK).snapshot!;
    const out = compose(snapshot, { vars: { cwd } });
    expect(out.text).toBe(text);
    expect(out.diagnostics).toEqual([
      expect.objectContaining({
        code: 'LAYER_MISSING',
        severity: 'warning',
        suggestions: [meant],
        message: expect.stringContaining(
          `names the folder ${JSON.stringify(given)}, in which the pack has no file; did you mean ${JSON.stringify(meant)}?`,
        ),
      }),
    ]);
  });

  it('the two spellings of an NFC/NFD pair are told apart in code points', () => {
    const out = compose(memPack(PACK).snapshot!, { vars: { cwd: 'caf\u00e9' } });
    expect(out.diagnostics[0]!.message).toContain('(caf\\u00e9 is written cafe\\u0301 in the pack)');
  });

  it.each([
    ['a folder of the pack', 'backend/api'],
    ['a folder without files of its own below one', 'backend/api/handlers'],
    ['a folder no file is near', 'frontend/web'],
    ['the root', '.'],
  ])('%s says nothing', (_, cwd) => {
    expect(compose(memPack(PACK).snapshot!, { vars: { cwd } }).diagnostics).toEqual([]);
  });

  it('strata compose --strict refuses it (exit 1)', async () => {
    const dir = tempDir('strata-agents-md-spelling-');
    writeFiles(dir, PACK);
    const r = await cli(['compose', '--dir', dir, '--var', 'cwd=Backend', '--strict']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error LAYER_MISSING: layer agents: "Backend" (from {cwd}) names the folder');
  });
});
