import fc from 'fast-check';
import { describe, it } from 'vitest';
import { checkPack, examplePacks, manifest, mutations } from './fuzz.js';

// The longer run of the pack fuzz suite: many more cases, a fresh seed each run (fast-check
// prints the seed and path of a failure, to replay it).
const packs = await examplePacks();
const RUNS = 500;

describe('pack fuzzing (long run)', () => {
  it.each(packs)(
    'mutations of the %s example: load never throws, problems coded, bytes attributed, versions stable',
    (_name, files) => {
      fc.assert(
        fc.property(mutations(), (ops) => {
          const copy = new Map(files);
          for (const op of ops) op(copy);
          checkPack(copy);
        }),
        { numRuns: RUNS },
      );
    },
    600_000,
  );

  it('arbitrary manifests over the example files', () => {
    fc.assert(
      fc.property(fc.constantFrom(...packs), manifest(), ([, files], m) => {
        const copy = new Map(files);
        copy.set('strata.yaml', new TextEncoder().encode(m));
        checkPack(copy);
      }),
      { numRuns: RUNS },
    );
  }, 600_000);
});
