import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESET_NAMES } from '../../src/layouts/registry.js';
import { cli, tempDir } from '../helpers.js';

// `strata init`: a starter pack per layout that validates without a warning, composes,
// and whose printed next commands run as printed; it never replaces a file.

describe('strata init', () => {
  it.each(PRESET_NAMES)(
    'writes a %s starter that validates clean and whose next commands run',
    async (layout) => {
      const work = tempDir();
      const init = await cli(['init', 'pack', '--layout', layout], {}, work);
      expect(init.code, init.stderr).toBe(0);
      expect(init.stderr).toBe('');
      expect(init.stdout).toMatch(new RegExp(`^Wrote the ${layout} starter pack to pack: \\d+ files`));
      const next = init.stdout
        .split('\n')
        .filter((line) => line.startsWith('  npx strata'))
        .map((line) =>
          line
            .replace(/\s+#.*$/, '')
            .trim()
            .split(/\s+/)
            .slice(2),
        );
      expect(next.map((argv) => argv[0])).toEqual(['validate', 'compose', 'serve']);

      const validate = await cli([...next[0]!, '--format', 'json'], {}, work);
      expect(validate.code, validate.stdout).toBe(0);
      const report = JSON.parse(validate.stdout) as {
        errors: number;
        warnings: number;
        diagnostics: unknown[];
      };
      expect({
        errors: report.errors,
        warnings: report.warnings,
        diagnostics: report.diagnostics,
      }).toMatchObject({
        errors: 0,
        warnings: 0,
      });

      const compose = await cli(next[1]!, {}, work);
      expect(compose.code, compose.stderr).toBe(0);
      expect(compose.stderr).toBe('');
      expect(compose.stdout.length).toBeGreaterThan(100);
      expect(compose.stdout).not.toContain('You are a helpful assistant.');
    },
  );

  it('refuses to replace a file, writing nothing (exit 1, WRITE_ERROR per file)', async () => {
    const work = tempDir();
    expect((await cli(['init', 'p'], {}, work)).code).toBe(0);
    writeFileSync(join(work, 'p', 'base.md'), 'mine\n');
    const again = await cli(['init', 'p', '--layout', 'roboco'], {}, work);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain(
      'error WRITE_ERROR: p/base.md: already exists: strata init never replaces a file; choose an empty folder\n',
    );
    expect(readFileSync(join(work, 'p', 'base.md'), 'utf8')).toBe('mine\n');
    // A starter of another layout whose files do not clash is written beside it.
    expect((await cli(['init', 'p', '--layout', 'claude-agents'], {}, work)).code).toBe(0);
  });

  it('refuses a target that is a file, and an unknown layout (usage, exit 2)', async () => {
    const work = tempDir();
    writeFileSync(join(work, 'f'), '');
    const file = await cli(['init', 'f'], {}, work);
    expect(file.code).toBe(1);
    expect(file.stderr).toContain('error WRITE_ERROR: f: is not a folder');
    const bad = await cli(['init', 'x', '--layout', 'robocop'], {}, work);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'error USAGE: --layout must be one of roboco, crewai, agents-md, claude-agents, chorus',
    );
  });
});
