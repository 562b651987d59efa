import fc from 'fast-check';
import { describe, it } from 'vitest';
import { checkSequence, type Edit, examplePack, type Files } from './pack-compare-harness.js';

// The reload comparison against composing every member, on other layouts' example packs:
// any file appended to, removed, or copied to a new place (a second agent file with the
// same name, a copy in a subfolder). (The crewai example is left out: its members need
// request inputs, so composing them with the pack's own settings fails alike on both
// sides and could not show a difference. The agents-md example's working folders are
// members of their own, each with its chain of files.)

function layoutEdit(files: Files): fc.Arbitrary<Edit> {
  const paths = [...files.keys()].sort();
  const line = fc.string({ minLength: 1, maxLength: 30 });
  return fc.oneof(
    fc.tuple(fc.constantFrom(...paths), line).map(
      ([p, t]): Edit =>
        (f) => {
          if (f.has(p)) f.set(p, `${f.get(p)}\n${t}\n`);
        },
    ),
    fc.constantFrom(...paths).map(
      (p): Edit =>
        (f) =>
          void f.delete(p),
    ),
    fc.tuple(fc.constantFrom(...paths), fc.constantFrom(...paths), fc.constantFrom('copy', 'sub/copy')).map(
      ([from, beside, name]): Edit =>
        (f) => {
          const text = f.get(from);
          if (text === undefined) return;
          const dir = beside.includes('/') ? beside.slice(0, beside.lastIndexOf('/') + 1) : '';
          const file = from.slice(from.lastIndexOf('/') + 1);
          f.set(`${dir}${name === 'copy' ? `copy-${file}` : `sub/${file}`}`, text);
        },
    ),
  );
}

describe('comparePacks on other layouts', () => {
  it.each(['claude-agents', 'chorus', 'agents-md'])(
    '%s: says what composing every member says, whatever the edits',
    async (name) => {
      const start = examplePack(name);
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(layoutEdit(start), { minLength: 1, maxLength: 3 }), { maxLength: 6 }),
          (edits) => checkSequence(start, edits),
        ),
        { numRuns: 40, seed: 20261201 },
      );
    },
  );
});
