import fc from 'fast-check';
import { describe, it } from 'vitest';
import { checkPack, examplePacks, manifest, mutations } from './fuzz.js';

// A bounded run of the pack fuzz suite (fixed seeds, so a failure replays); the longer
// run is fuzz.slow.test.ts.
const packs = await examplePacks();
const RUNS = 25;

describe('pack fuzzing', () => {
  it.each(packs)(
    'mutations of the %s example: load never throws, problems coded, bytes attributed, versions stable',
    (_name, files) => {
      fc.assert(
        fc.property(mutations(), (ops) => {
          const copy = new Map(files);
          for (const op of ops) op(copy);
          checkPack(copy);
        }),
        { numRuns: RUNS, seed: 11 },
      );
    },
  );

  it('arbitrary manifests over the example files', () => {
    fc.assert(
      fc.property(fc.constantFrom(...packs), manifest(), ([, files], m) => {
        const copy = new Map(files);
        copy.set('strata.yaml', new TextEncoder().encode(m));
        checkPack(copy);
      }),
      { numRuns: RUNS, seed: 11 },
    );
  });
});
