import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPack } from '../../src/source/load.js';
import { codes, EXAMPLES, memPack, tempDir, writeFiles } from '../helpers.js';

/**
 * Hostile packs, one test per finding, each written from its reproduction: the pack
 * must load into coded diagnostics (never a throw, a hang or a file outside the pack).
 */
describe('hostile packs', () => {
  it('invalid UTF-8 in a role-registry YAML file is INVALID_UTF8, and the other diagnostics are kept', async () => {
    const dir = tempDir();
    writeFiles(dir, {
      'roles.yaml': 'roles:\n  a:\n    system_prompt: A\n    extends: nowhere\n',
      'site-roles.yaml': new Uint8Array([...new TextEncoder().encode('roles:\n  x'), 0xff, 0x3a, 0x0a]),
    });
    const result = await loadPack(dir);
    expect(result.snapshot).toBeUndefined();
    expect(codes(result).sort()).toEqual(['INVALID_UTF8', 'UNKNOWN_ROLE']);
  });

  it('a registry glob built to backtrack (*a*a…*ab.yaml) loads at once', () => {
    const glob = `${'*a'.repeat(30)}*ab.yaml`;
    const result = memPack({
      'strata.yaml': `extends: chorus\nregistry:\n  files: [${JSON.stringify(glob)}]\n`,
      [`${'a'.repeat(35)}.yaml`]: 'roles:\n  a:\n    system_prompt: A\n',
    });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect([...result.snapshot!.roles.keys()]).toEqual([]);
  });

  it('the example packs still load', async () => {
    for (const name of ['roboco', 'chorus'])
      expect((await loadPack(join(EXAMPLES, name))).snapshot).toBeDefined();
  });
});
