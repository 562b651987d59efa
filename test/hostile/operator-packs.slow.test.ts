import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir, writeFiles } from '../helpers.js';

// Packs an operator writes that are large in one dimension: a separator of a megabyte, a
// manifest of 10,000 inline layers. Loading one is linear in its size (a check used to
// read the whole manifest again for the line of every layer it located).

describe('operator packs at scale', () => {
  it('a manifest of 10,000 inline layers validates clean and composes every layer, in order', async () => {
    const dir = tempDir();
    let yaml = 'layers:\n';
    for (let i = 0; i < 10_000; i++) yaml += `  - id: l${i}\n    text: "Layer ${i}."\n`;
    writeFiles(dir, { 'strata.yaml': yaml });
    const validate = await cli(['validate', '--dir', dir]);
    expect(validate.code).toBe(0);
    expect(validate.stderr).toMatch(/^0 errors, 0 warnings \(1 file, 1 member, version [0-9a-f]{16}\)\n$/);
    const compose = await cli(['compose', '--dir', dir]);
    expect(compose.code).toBe(0);
    const layers = compose.stdout.split('\n\n---\n\n');
    expect(layers).toHaveLength(10_000);
    expect(layers[0]).toBe('Layer 0.');
    expect(layers.at(-1)).toBe('Layer 9999.');
  });

  it('a separator of a megabyte validates, and composes within --max-prompt-bytes or fails with its code', async () => {
    const dir = tempDir();
    const separator = '-'.repeat(1024 * 1024);
    writeFiles(dir, {
      'strata.yaml': `extends: roboco\nseparator: "${separator}"\n`,
      'base.md': 'Base.',
      'roles/dev.md': 'Dev.',
    });
    const limits = ['--max-file-bytes', '2000000'];
    const validate = await cli(['validate', '--dir', dir, ...limits]);
    expect(validate.code).toBe(0);
    expect(validate.stderr).toMatch(/^0 errors, \d+ warnings/m);
    const composed = await cli(['compose', '--dir', dir, '--role', 'dev', ...limits]);
    expect(composed.code).toBe(0);
    expect(composed.stdout).toBe(`Base.${separator}Dev.`);
    const bounded = await cli([
      'compose',
      '--dir',
      join(dir),
      '--role',
      'dev',
      ...limits,
      '--max-prompt-bytes',
      '1000',
    ]);
    expect(bounded.code).toBe(1);
    expect(bounded.stderr).toMatch(
      /^error PROMPT_TOO_LARGE: the prompt, at layer role, would be more than 1000 bytes/m,
    );
  });
});
