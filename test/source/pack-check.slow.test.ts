import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { PackCheck } from '../../src/source/pack-check.js';
import { readPackDir } from '../../src/source/read-dir.js';
import { FileReuse, SETTLED_MS } from '../../src/source/reuse.js';
import { apply, EDIT, observe, plainPack } from './pack-edits.js';

// The poll's identity check on a pack whose files have settled (their identities pin their
// contents, so nothing is read again on suspicion): after random edits, the paths it finds,
// read hinted, give what a full read gives. Each batch waits for the pack to settle first.

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('the poll on a settled pack', () => {
  it('finds every change of random edit batches, and reads only what it found', async () => {
    const dir = plainPack(made);
    const reuse = new FileReuse();
    const check = new PackCheck(dir, { reuse });
    const batches = fc.sample(fc.array(EDIT, { minLength: 1, maxLength: 4 }), { numRuns: 24, seed: 2930 });
    for (const batch of batches) {
      await new Promise((r) => setTimeout(r, SETTLED_MS + 100));
      await readPackDir(dir, { reuse });
      for (const edit of batch) apply(dir, edit);
      const paths = await check.folders();
      expect(paths).toBeDefined();
      for (;;) {
        const slice = check.sweep(Number.POSITIVE_INFINITY);
        paths!.push(...(slice.changed ?? []));
        if (slice.done) break;
      }
      const full = await readPackDir(dir, { reuse: new FileReuse() });
      const hinted = await readPackDir(dir, { reuse, hints: paths! });
      expect({ batch, same: observe(hinted) }).toEqual({ batch, same: observe(full) });
      // Opened: only files at or under the paths found.
      const under = [...full.files.keys()].filter((f) =>
        paths!.some((p) => f === p || f.startsWith(`${p}/`)),
      );
      expect(hinted.filesRead).toBeLessThanOrEqual(under.length);
    }
  });
});
