// Values written as Python's `str()` writes them: how CrewAI fills a `{name}` placeholder
// with a run input (`str(value)` of a str, int, float, bool, None, dict or list).

/** How deep a list or mapping given as an input may nest. */
export const MAX_VALUE_NESTING = 100;

/** What an input written the Python way may be, as CrewAI checks its inputs. */
export const PYTHON_ACCEPTED =
  'a string, number, boolean, null, list or mapping of them (CrewAI takes str, int, float, bool, None, dict and list)';

/**
 * The text Python's `str(value)` gives for a JSON-like value, or why it has none: a string
 * is itself; `true`/`false`/`null` are `True`/`False`/`None`; a whole number is an int
 * (`3`), any other a float in Python's shortest form (`0.5`, `1e-05`, `1.5e+16`, `inf`); a
 * list or plain object is written with `repr()` of its items (`['a', 1]`, `{'k': None}`).
 * Refused: anything else (undefined, a function, a Date, a Map, a class instance), nesting
 * deeper than {@link MAX_VALUE_NESTING}, and a whole number of 2^53 or more, whose digits a
 * JSON reader has already lost (send it as a string).
 *
 * @example
 * pythonStr({ tags: ['a', "it's"], n: 1.5, ok: true }); // { text: `{'tags': ['a', "it's"], 'n': 1.5, 'ok': True}` }
 */
export function pythonStr(value: unknown): { text: string } | { problem: string } {
  if (typeof value === 'string') return { text: value };
  try {
    return { text: repr(value, 0) };
  } catch (e) {
    if (e instanceof Refused) return { problem: e.message };
    throw e;
  }
}

// --- internal ---

class Refused extends Error {}

function repr(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return reprString(value);
    case 'boolean':
      return value ? 'True' : 'False';
    case 'number':
      return reprNumber(value);
    case 'bigint':
      return value.toString();
    case 'undefined':
      throw new Refused(`undefined is not accepted; accepted: ${PYTHON_ACCEPTED}`);
    case 'object': {
      if (value === null) return 'None';
      if (depth >= MAX_VALUE_NESTING) throw new Refused(`nested deeper than ${MAX_VALUE_NESTING} levels`);
      if (Array.isArray(value)) return `[${value.map((v) => repr(v, depth + 1)).join(', ')}]`;
      const proto = Object.getPrototypeOf(value);
      if (proto === Object.prototype || proto === null) {
        const items = Object.keys(value).map(
          (k) => `${reprString(k)}: ${repr((value as Record<string, unknown>)[k], depth + 1)}`,
        );
        return `{${items.join(', ')}}`;
      }
      throw new Refused(
        `a ${proto?.constructor?.name ?? 'object'} is not accepted; accepted: ${PYTHON_ACCEPTED}`,
      );
    }
    default:
      throw new Refused(`a ${typeof value} is not accepted; accepted: ${PYTHON_ACCEPTED}`);
  }
}

function reprNumber(n: number): string {
  if (Number.isSafeInteger(n)) return String(n === 0 ? 0 : n);
  if (Number.isInteger(n))
    throw new Refused(
      `the whole number ${n} is beyond 2^53, where JSON numbers lose digits; send it as a string`,
    );
  return reprFloat(n);
}

/** Python's `repr(float)`: the shortest digits that read back, fixed from 1e-4 up to 1e16. */
function reprFloat(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (n === Number.POSITIVE_INFINITY) return 'inf';
  if (n === Number.NEGATIVE_INFINITY) return '-inf';
  const sign = n < 0 ? '-' : '';
  const [mantissa = '', exponent = '0'] = Math.abs(n).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(exponent);
  // Where the decimal point falls after the first `point` digits.
  const point = exp + 1;
  if (point > -4 && point <= 16) {
    if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
    if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  const lead = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${lead}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/** Python's `repr(str)`: single quotes unless the text has one and no double quote. */
function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f || PRINTABLE.test(ch)) out += ch;
    else if (cp <= 0xff) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}

/** Python's `str.isprintable()` for one character beyond ASCII: letters, marks, numbers, punctuation, symbols. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

function hex(cp: number, width: number): string {
  return cp.toString(16).padStart(width, '0');
}
