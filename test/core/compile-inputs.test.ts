import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileInputs } from '../../src/core/pack/template.js';

// A record value's `{name}` placeholders are found by a scan: the same parts as the
// regular expression it stands for, whatever the text.

const RE = /\{([A-Za-z_][A-Za-z0-9_-]*)\}/g;

function byRegex(value: string): unknown[] {
  const parts: unknown[] = [];
  let last = 0;
  for (const m of value.matchAll(RE)) {
    parts.push(value.slice(last, m.index), { all: m[0], single: m[1] });
    last = m.index + m[0].length;
  }
  parts.push(value.slice(last));
  return parts;
}

describe('compileInputs in the {name} syntax', () => {
  it('splits as the regular expression does', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        '{',
        '}',
        '{a}',
        '{_x-1}',
        '{1a}',
        '{a b}',
        '{{a}}',
        '{a',
        'a}',
        '-',
        '_',
        'é',
        '𝄞',
        '{}',
      ),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (pieces) => {
        const value = pieces.join('');
        expect(compileInputs(value, '{name}')).toEqual({ syntax: '{name}', parts: byRegex(value) });
      }),
      { numRuns: 2000 },
    );
  });

  it('examples', () => {
    expect(compileInputs('{{a}} {b c} {d}x{', '{name}').parts).toEqual([
      '{',
      { all: '{a}', single: 'a' },
      '} {b c} ',
      { all: '{d}', single: 'd' },
      'x{',
    ]);
  });
});
