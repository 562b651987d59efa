import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closestNames, editDistance } from '../../src/core/text/suggest.js';

// The closest names are measured only as far as each candidate's limit: a long unknown
// name against a large pack cost the product of every pair of lengths (a batch of MCP
// requests held the event loop for seconds). The bounded measure must pick the same names
// in the same order as the whole one.

/** closestNames with the whole measure for every candidate (the oracle). */
function oracle(name: string, known: Iterable<string>, max = 3): string[] {
  const lower = name.normalize('NFC').toLowerCase();
  const scored: Array<{ known: string; distance: number }> = [];
  for (const candidate of new Set(known)) {
    if (candidate === name) continue;
    const other = candidate.normalize('NFC').toLowerCase();
    const distance = editDistance(lower, other);
    const limit = Math.max(1, Math.floor(Math.max(lower.length, other.length) / 3));
    const prefix =
      lower.length >= 2 && other.length >= 2 && (other.startsWith(lower) || lower.startsWith(other));
    const qualified = (short: string, long: string) =>
      short.length >= 3 &&
      long.length > short.length &&
      long.endsWith(short) &&
      '-_.:/ '.includes(long[long.length - short.length - 1]!);
    if (distance <= limit || prefix || qualified(lower, other) || qualified(other, lower))
      scored.push({ known: candidate, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || (a.known < b.known ? -1 : a.known > b.known ? 1 : 0));
  return scored.slice(0, max).map((s) => s.known);
}

// Few letters, so near names (swaps, repeats, prefixes) are common.
const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A', '-', 'é', 'e\u0301'), maxLength: 14 });

describe('closestNames', () => {
  it('picks what the whole measure picks, in its order', () => {
    fc.assert(
      fc.property(
        word,
        fc.array(word, { maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        (name, known, max) => {
          const withNear = [...known, `${name}x`, name.slice(1), [...name].reverse().join(''), `q-${name}`];
          expect(closestNames(name, withNear, max)).toEqual(oracle(name, withNear, max));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('measures long names as the whole measure does', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 20, maxLength: 60 }),
        (base) => {
          const known = [
            base.slice(0, -3),
            `${base.slice(0, 10)}cc${base.slice(10)}`,
            base.replace(/a/g, 'b'),
            base,
          ];
          const name = `${base.slice(0, 15)}${base.slice(16)}`;
          expect(closestNames(name, known, 5)).toEqual(oracle(name, known, 5));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives the known examples', () => {
    expect(closestNames('adaa', ['ada', 'linus', 'grace'])).toEqual(['ada']);
    expect(closestNames('developre', ['developer', 'reviewer', 'dev'])).toEqual(['developer', 'dev']);
    expect(closestNames('x'.repeat(200), ['ada', 'xxxxxxxxxx'])).toEqual(['xxxxxxxxxx']);
  });
});
