import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortDiagnostics, warning } from '../../src/core/text/diagnostics.js';
import { byteOrder, isPlainAscii } from '../../src/core/text/text.js';

const utf8 = (s: string) => Buffer.from(s, 'utf8');

describe('byteOrder', () => {
  it('orders strings as their UTF-8 bytes compare', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(Math.sign(byteOrder(a, b))).toBe(Math.sign(Buffer.compare(utf8(a), utf8(b))));
      }),
      { numRuns: 500 },
    );
  });

  it('puts characters above U+FFFF after U+E000–U+FFFF, unlike UTF-16 order', () => {
    const paths = ['roles/\u{1F600}.md', 'roles/\uFF21.md', 'roles/a.md', 'roles/\uE000.md'];
    expect([...paths].sort(byteOrder)).toEqual([
      'roles/a.md',
      'roles/\uE000.md',
      'roles/\uFF21.md',
      'roles/\u{1F600}.md',
    ]);
    // The default sort compares UTF-16 code units: the emoji's surrogates come first.
    expect([...paths].sort()[1]).toBe('roles/\u{1F600}.md');
  });

  it('orders diagnostics by file in byte order', () => {
    const files = ['\u{1F600}.md', '\uFF21.md'];
    const sorted = sortDiagnostics(files.map((file) => warning('ORPHAN_FILE', 'x', { file })));
    expect(sorted.map((d) => d.file)).toEqual(['\uFF21.md', '\u{1F600}.md']);
  });
});

describe('isPlainAscii', () => {
  it('is true exactly when every byte of the view is below 0x80 and none is a carriage return or a NUL', () => {
    const bytes = fc.array(
      fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.constantFrom(0x0d, 0x80, 0xff, 0x0a, 0x00)),
      {
        maxLength: 80,
      },
    );
    fc.assert(
      fc.property(bytes, fc.nat(), fc.nat(), (all, a, b) => {
        // A view into a larger buffer, as a pack's files are: bytes outside it do not count.
        const whole = Uint8Array.from(all);
        const start = all.length === 0 ? 0 : a % (all.length + 1);
        const end = start + (all.length === 0 ? 0 : b % (all.length - start + 1));
        const view = whole.subarray(start, end);
        const expected = [...view].every((x) => x < 0x80 && x !== 0x0d && x !== 0x00);
        expect(isPlainAscii(view)).toBe(expected);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});
