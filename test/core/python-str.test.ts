import { describe, expect, it } from 'vitest';
import { MAX_VALUE_NESTING, pythonStr } from '../../src/layouts/crewai/python-str.js';

// Each row: a JSON text as a request body holds it, and `str(json.loads(text))` as
// CPython 3 prints it (how CrewAI fills a placeholder with that input). The rows were
// taken from python3; test/core/python-str.slow.test.ts checks more against python3 itself.
// A whole number is an int (JSON's 1.0 reaches JavaScript as 1); one of 2^53 or more is
// refused (below), since JSON.parse has already lost what its digits were.
const ROWS: Array<[string, string]> = [
  ['true', 'True'],
  ['false', 'False'],
  ['null', 'None'],
  ['1', '1'],
  ['-7', '-7'],
  ['0', '0'],
  ['1.5', '1.5'],
  ['-0.5', '-0.5'],
  ['0.1', '0.1'],
  ['1e-05', '1e-05'],
  ['0.0001', '0.0001'],
  ['0.00012345', '0.00012345'],
  ['123456789.123', '123456789.123'],
  ['9007199254740991', '9007199254740991'],
  ['-9007199254740991', '-9007199254740991'],
  ['-2.5e-7', '-2.5e-07'],
  ['100.25', '100.25'],
  ['1234567890123456.5', '1234567890123456.5'],
  ['0.30000000000000004', '0.30000000000000004'],
  ['5e-324', '5e-324'],
  ['1e400', 'inf'],
  ['-1e400', '-inf'],
  ['[]', '[]'],
  ['{}', '{}'],
  ['"plain"', 'plain'],
  ['""', ''],
  ['[1,"a","it\'s",null,{"k":true}]', "[1, 'a', \"it's\", None, {'k': True}]"],
  [
    '{"a\\"b":"x\'y\\"z","n":"\\n\\t\\r\\u00a0\\u00e9\\ud83d\\ude00\\u200b\\u0007\\u007f\\\\"}',
    "{'a\"b': 'x\\'y\"z', 'n': '\\n\\t\\r\\xa0\u00e9\ud83d\ude00\\u200b\\x07\\x7f\\\\'}",
  ],
  ['["\\ud800"]', "['\\ud800']"],
  ['["both \' and \\""]', "['both \\' and \"']"],
  ['[["nested",[1.25,[false]]]]', "[['nested', [1.25, [False]]]]"],
  ['{"2":"b","a":{"x":[]}}', "{'2': 'b', 'a': {'x': []}}"],
  ['["\\u0085\\u00ad\\u2028\\ue000\\u0378"]', "['\\x85\\xad\\u2028\\ue000\\u0378']"],
];

describe('pythonStr: a value as Python str() writes it', () => {
  it.each(ROWS)('%s → %s', (json, text) => {
    expect(pythonStr(JSON.parse(json))).toEqual({ text });
  });

  it.each([
    ['undefined', undefined, /^undefined is not accepted; accepted: a string, number/],
    ['a function', () => 1, /^a function is not accepted/],
    ['a symbol', Symbol('s'), /^a symbol is not accepted/],
    ['a Date', new Date(0), /^a Date is not accepted/],
    ['a Map in a list', [new Map()], /^a Map is not accepted/],
    ['a whole number past 2^53', 2 ** 53, /^the whole number 9007199254740992 is beyond 2\^53/],
    ['1e300 (no digits to tell an int from a float)', 1e300, /^the whole number 1e\+300 is beyond 2\^53/],
  ])('refuses %s', (_, value, problem) => {
    const out = pythonStr(value);
    expect('problem' in out && out.problem).toMatch(problem);
  });

  it(`takes ${MAX_VALUE_NESTING} levels of lists and mappings, refuses more (a cycle too)`, () => {
    const nest = (n: number): unknown => (n === 0 ? 1 : [nest(n - 1)]);
    expect(pythonStr(nest(MAX_VALUE_NESTING))).toEqual({
      text: `${'['.repeat(MAX_VALUE_NESTING)}1${']'.repeat(MAX_VALUE_NESTING)}`,
    });
    expect(pythonStr(nest(MAX_VALUE_NESTING + 1))).toEqual({ problem: 'nested deeper than 100 levels' });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(pythonStr(cycle)).toEqual({ problem: 'nested deeper than 100 levels' });
  });

  it('a bigint is an int; an object without a prototype is a mapping', () => {
    expect(pythonStr(12345678901234567890n)).toEqual({ text: '12345678901234567890' });
    expect(pythonStr(Object.assign(Object.create(null), { a: 1 }))).toEqual({ text: "{'a': 1}" });
  });
});
