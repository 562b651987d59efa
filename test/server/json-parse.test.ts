import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/server/middleware/json-parse.js';

// parseJson must be JSON.parse: the same value (members, order, -0, `__proto__` as an own
// member) for every valid text, and JSON.parse's own error for every invalid one.

/** Both parses: the same value, or the same error. */
function same(text: string): void {
  let expected: unknown;
  let error: unknown;
  try {
    expected = JSON.parse(text);
  } catch (e) {
    error = e;
  }
  if (error !== undefined) {
    expect(() => parseJson(text)).toThrow(SyntaxError);
    expect(() => parseJson(text)).toThrow((error as Error).message);
    return;
  }
  expect(shape(parseJson(text))).toEqual(shape(expected));
}

/** Every member in order, with -0, prototypes and own `__proto__` members made visible. */
function shape(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return Object.is(value, -0) ? '-0' : value;
  if (Array.isArray(value)) return value.map(shape);
  return {
    proto: Object.getPrototypeOf(value) === Object.prototype,
    entries: Object.entries(Object.getOwnPropertyDescriptors(value)).map(([k, d]) => [
      k,
      shape(d.value),
      d.enumerable,
      d.writable,
    ]),
  };
}

/** Whitespace between tokens, as clients send it. */
const spaced = fc
  .tuple(fc.jsonValue(), fc.constantFrom(undefined, 0, 2, '\t'))
  .map(([v, indent]) => JSON.stringify(v, null, indent));

const WORDS = [
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"',
  '\\',
  '\\u',
  '\\u00e9',
  '-',
  '0',
  '1e',
  '.5',
  'tru',
  'null',
];
/** A valid text with one random cut, insertion or replacement: mostly invalid. */
const mutated = fc
  .tuple(
    spaced,
    fc.nat(),
    fc.nat({ max: 3 }),
    fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 3 })),
  )
  .map(([text, at, cut, insert]) => {
    const i = at % (text.length + 1);
    return text.slice(0, i) + insert + text.slice(i + cut);
  });

describe('parseJson', () => {
  it.each([
    ['{"role":"developer","ambient":"plain text, long enough to be a slice"}'],
    [`{"ambient":"${'x'.repeat(64 * 1024)}"}`],
    [`{"ambient":"${'中'.repeat(20_000)}"}`],
    ['{"a":"esc \\"quoted\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9 \\ud83d\\ude00 \\ud800 lone"}'],
    ['{"__proto__":{"polluted":true},"a":1}'],
    ['{"__proto__":1,"__proto__":2}'],
    ['{"a":1,"a":2,"b":3}'],
    ['{"2":"two","1":"one","b":"b","a":"a"}'],
    ['{"constructor":{"prototype":{}},"toString":"x"}'],
    ['[-0, 0, -1.5e-3, 1E400, -1e-400, 123456789012345678901234567890, 0.1]'],
    ['  \t\n\r{ "a" : [ 1 , 2 , { } , [ ] ] }\n  '],
    ['"a bare string"'],
    ['true'],
    ['null'],
    ['{"lone":"\ud800 raw lone surrogate and \u2028"}'],
    ['{"del":"\u007f"}'],
    [`${'['.repeat(200)}${']'.repeat(200)}`],
    [`${'{"a":'.repeat(100)}1${'}'.repeat(100)}`],
    [''],
    [' '],
    ['{'],
    ['{"a":1,}'],
    ['[1,]'],
    ['{"a" 1}'],
    ['{a:1}'],
    ["{'a':1}"],
    ['01'],
    ['1.'],
    ['.5'],
    ['-'],
    ['+1'],
    ['1e'],
    ['NaN'],
    ['tru'],
    ['nulll'],
    ['"unterminated'],
    ['"raw\ncontrol"'],
    ['"bad \\x escape"'],
    ['"bad \\u12 escape"'],
    ['\ufeff{}'],
    ['{"a":1}{"b":2}'],
    ['{"a":1} x'],
  ])('%s', (text) => same(text));

  it('gives what JSON.parse gives for any JSON value, however spaced (property)', () => {
    fc.assert(
      fc.property(spaced, (text) => {
        same(text);
      }),
      { numRuns: 1500, seed: 7 },
    );
  });

  it('fails exactly when JSON.parse fails, with its error (property)', () => {
    fc.assert(
      fc.property(mutated, (text) => {
        same(text);
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('takes an unescaped string as it is in the text', () => {
    const ambient = 'x'.repeat(1000);
    expect((parseJson(`{"ambient":"${ambient}"}`) as { ambient: string }).ambient).toBe(ambient);
  });
});
