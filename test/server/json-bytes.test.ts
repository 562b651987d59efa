import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../../src/server/answers/json-bytes.js';

// The direct serialisation of an answer must give exactly the bytes of
// `TextEncoder.encode(JSON.stringify(value))`, whatever the text holds.

const utf8 = new TextEncoder();
const expected = (value: unknown) => Buffer.from(utf8.encode(JSON.stringify(value)));
const actual = (value: object, key = 'text') => Buffer.from(jsonBytes(value, key));

/** Pieces that exercise every escaping rule, joined at random with arbitrary strings. */
const PIECES = [
  '"',
  '\\',
  '\n',
  '\r\n',
  '\t',
  '\b',
  '\f',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u2028',
  '\u2029',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ufffd',
  '\ufeff',
  '中文',
  '😀',
  '👩‍💻',
  'é',
  '</script>',
  '\\u0000',
  'x'.repeat(300),
];
const text = fc
  .array(
    fc.oneof(
      fc.constantFrom(...PIECES),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.string({ maxLength: 20 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

describe('jsonBytes', () => {
  it.each([
    ['empty', ''],
    ['plain ASCII', 'hello world'],
    ['quotes and backslashes', 'say "hi" \\ C:\\path\\'],
    ['every control character', Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('')],
    ['a lone high surrogate', 'before \ud83d after'],
    ['a lone low surrogate', 'before \ude00 after'],
    ['a lone surrogate at the end', 'end \ud83d'],
    ['a surrogate pair', 'emoji 😀 here'],
    ['line and paragraph separators', 'a\u2028b\u2029c'],
    ['CJK', '中'.repeat(20_000)],
    ['64 KB without escapes', 'x'.repeat(64 * 1024)],
    ['escapes only', '\n'.repeat(1000) + '"'.repeat(1000)],
    ['an escape at the very end', `${'x'.repeat(100)}\n`],
    ['an escape at the very start', `\u0001${'中'.repeat(100)}`],
  ])('%s: the bytes of JSON.stringify', (_name, t) => {
    const value = { version: 'v1', text: t, sha256: 'ab', layers: [{ id: 'x', text: t }], fallback: false };
    expect(actual(value).equals(expected(value))).toBe(true);
  });

  it('the members around the text are stringified as JSON.stringify does', () => {
    const rows: Array<[object, string]> = [
      [{ text: 'only' }, 'text'],
      [{ text: 'first', b: 1 }, 'text'],
      [{ a: 1, text: 'last' }, 'text'],
      [{ a: undefined, text: 't', b: () => 1, c: Symbol('s'), d: null }, 'text'],
      [{ a: new Date(0), text: 't', nested: { toJSON: () => 'x' } }, 'text'],
      [{ a: '\ud800', text: '\udc00', z: '中' }, 'text'],
      [JSON.parse('{"__proto__": {"x": 1}, "text": "t", "constructor": 2}'), 'text'],
      [{ '1': 'one', text: 't', '0': 'zero' }, 'text'],
      [{ text: 5, a: 'not a string' }, 'text'],
      [{ a: 1 }, 'text'],
      [{ toJSON: () => ({ replaced: true }), text: 't' }, 'text'],
      [['t'], '0'],
      [{ 'k"ey': 'q', text: 't' }, 'k"ey'],
    ];
    for (const [value, key] of rows) expect(actual(value, key).equals(expected(value))).toBe(true);
  });

  it('any text gives the bytes of JSON.stringify (property)', () => {
    fc.assert(
      fc.property(text, fc.string({ maxLength: 10 }), (t, other) => {
        const value = { version: other, text: t, after: [t.length, other] };
        return actual(value).equals(expected(value));
      }),
      { numRuns: 2000, seed: 11 },
    );
  });

  it('answers a view over its own buffer (offset 0, exact length)', () => {
    const bytes = jsonBytes({ text: 'x'.repeat(10) }, 'text');
    expect(bytes.byteOffset).toBe(0);
    expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
  });
});
