import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8 } from '../../src/server/middleware/utf8-text.js';

// decodeUtf8 must agree with the WHATWG decoder it replaces (fatal, BOM skipped) on
// every input: the same text for UTF-8, undefined exactly where the decoder throws.

const whatwg = new TextDecoder('utf-8', { fatal: true });

function reference(bytes: Uint8Array): string | undefined {
  try {
    return whatwg.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Bytes drawn from lead and continuation bytes, BOMs and invalid ones: often nearly UTF-8. */
const nearUtf8 = fc
  .array(
    fc.constantFrom(
      0x41,
      0xc3,
      0xa9,
      0xe4,
      0xb8,
      0xad,
      0xf0,
      0x9f,
      0x98,
      0x80,
      0xed,
      0xa0,
      0xef,
      0xbb,
      0xbf,
      0xff,
    ),
    {
      maxLength: 24,
    },
  )
  .map((bytes) => Uint8Array.from(bytes));

describe('decodeUtf8', () => {
  it.each([
    ['empty', []],
    ['ASCII', [...Buffer.from('{"a":1}')]],
    ['a BOM, then text', [0xef, 0xbb, 0xbf, ...Buffer.from('中文 é 😀')]],
    ['a BOM alone', [0xef, 0xbb, 0xbf]],
    ['two BOMs (the second is text)', [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x41]],
    ['a cut two-byte sequence', [0x41, 0xc3]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a lone continuation byte', [0x80]],
    ['0xff', [0x41, 0xff]],
    ['a four-byte character', [0xf0, 0x9f, 0x98, 0x80]],
  ])('%s: as the fatal decoder', (_name, bytes) => {
    const input = Uint8Array.from(bytes);
    expect(decodeUtf8(input)).toBe(reference(input));
  });

  it('refuses what the decoder refuses and decodes the rest to the same text (random bytes)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), nearUtf8), (bytes) => {
        expect(decodeUtf8(bytes)).toBe(reference(bytes));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives back any well-formed text it is given as UTF-8, at any offset of its buffer', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.nat(7), (text, pad) => {
        const encoded = Buffer.from(text);
        const buffer = new Uint8Array(pad + encoded.length + 3);
        buffer.set(encoded, pad);
        const view = buffer.subarray(pad, pad + encoded.length);
        expect(decodeUtf8(view)).toBe(reference(view));
      }),
      { numRuns: 2000 },
    );
  });
});
