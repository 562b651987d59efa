import { describe, expect, it } from 'vitest';
import { compose } from '../../src/core/compose/compose.js';
import { cli, memPack, okPack, tempDir, writeFiles } from '../helpers.js';

// A manifest saved as strata.yml (or Strata.yaml) was passed over without a word: the pack
// was built from the layout its other files look like (base.md: roboco), not from the
// layers written in it.

const MANIFEST = 'name: t\nlayers:\n  - id: rules\n    file: rules.md\n';

describe('a manifest under another spelling', () => {
  it.each(['strata.yml', 'Strata.yaml', 'STRATA.YML'])(
    '%s is BAD_MANIFEST at the file, saying its name',
    (name) => {
      const result = memPack({ [name]: MANIFEST, 'base.md': 'Base.', 'rules.md': 'Rules.' });
      expect(result.snapshot).toBeUndefined();
      expect(result.diagnostics).toEqual([
        {
          code: 'BAD_MANIFEST',
          severity: 'error',
          message: `${name} holds a manifest (layers) under a name strata does not read: the pack's manifest is strata.yaml; rename it to strata.yaml`,
          file: name,
          line: 1,
          col: 1,
        },
      ]);
    },
  );

  it('is no manifest when strata.yaml is there, when it holds only roles (a chorus role file), or when it does not parse', () => {
    const both = okPack({ 'strata.yaml': MANIFEST, 'strata.yml': MANIFEST, 'rules.md': 'Rules.' });
    expect(compose(both, {}).text).toBe('Rules.');
    const chorus = okPack({ 'strata.yml': 'roles:\n  extra:\n    system_prompt: Be extra.\n' });
    expect(compose(chorus, { role: 'extra' }).text).toBe('Be extra.');
    const broken = okPack({ 'strata.yml': 'layers: [\n', 'base.md': 'Base.' });
    expect(compose(broken, {}).text).toBe('Base.');
  });

  it('fails the CLI: exit 1 with the error', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'strata.yml': MANIFEST, 'base.md': 'Base.', 'rules.md': 'Rules.' });
    const r = await cli(['compose', '--dir', dir]);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toContain('error BAD_MANIFEST: strata.yml:1:1: strata.yml holds a manifest (layers)');
  });
});
