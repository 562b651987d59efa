// Plain scalars as PyYAML's `safe_load` types them (YAML 1.1's implicit types, as PyYAML
// narrows them), for files that Python tools load with it. YAML 1.2's core
// schema, which strata reads YAML with otherwise, types some plain words otherwise:
//
//   written        YAML 1.2 (core)   PyYAML
//   yes, On, off   text              a bool
//   1_000, 0b101   text              an int (1000, 5)
//   017            17                15 (octal)
//   08             8                 text "08"
//   12:30          text              750 (base 60)
//   2024-01-01     text              a date
//   1e3, 0o17      a number          text
//   -.5            -0.5              text
//   =              text              refused (a `value` tag safe_load cannot build)

/** A plain scalar's value as PyYAML types it, or why PyYAML fails on it. */
export type PyYamlPlain = { value: unknown } | { refused: string };

/**
 * The value PyYAML's `safe_load` gives the plain scalar `text` (its folded text): a
 * string, a boolean, a number, null or a `Date`; or `refused` with why, where PyYAML's
 * constructor raises (`=`, `0b_`, `2024-02-30`) or an integer has more digits than a
 * JavaScript number holds exactly.
 *
 * @example
 * pyyamlPlain('yes'); // { value: true }
 * pyyamlPlain('1e3'); // { value: '1e3' }
 */
export function pyyamlPlain(text: string): PyYamlPlain {
  if (!MAY_BE_TYPED.test(text)) return { value: text };
  if (BOOL.test(text)) return { value: TRUE_WORD.test(text) };
  if (NULL.test(text)) return { value: null };
  if (FLOAT.test(text)) return { value: pyyamlFloat(text) };
  if (INT.test(text)) return pyyamlInt(text);
  if (TIMESTAMP.test(text)) return pyyamlTimestamp(text);
  if (text === '=')
    return {
      refused: 'a plain `=` is YAML 1.1\'s "value" key, which PyYAML\'s safe_load cannot read: quote it',
    };
  return { value: text };
}

/**
 * Whether a plain scalar the core schema read as `core` may read otherwise with PyYAML:
 * cheap for the usual text (a first character no typed word starts with).
 */
export function pyyamlReadsOtherwise(text: string, core: unknown): boolean {
  if (!MAY_BE_TYPED.test(text) && typeof core === 'string') return false;
  const py = pyyamlPlain(text);
  return !('value' in py) || !samePlain(py.value, core);
}

// --- internal ---

/** A first character some typed plain scalar starts with, or the empty text (null). */
const MAY_BE_TYPED = /^(?:[yYnNtTfFoO~.=+\-0-9]|$)/;

const BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const TRUE_WORD = /^(?:yes|true|on)$/i;
const NULL = /^(?:~|null|Null|NULL|)$/;
const FLOAT =
  /^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const INT =
  /^(?:[-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const TIMESTAMP =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/;
/** The date alone is one form; with a time, the month and day may have one digit. */
const DATE_ONLY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

function samePlain(a: unknown, b: unknown): boolean {
  return Object.is(a, b);
}

function pyyamlFloat(text: string): number {
  let value = text.replaceAll('_', '').toLowerCase();
  let sign = 1;
  if (value[0] === '-') sign = -1;
  if (value[0] === '+' || value[0] === '-') value = value.slice(1);
  if (value === '.inf') return sign * Number.POSITIVE_INFINITY;
  if (value === '.nan') return Number.NaN;
  if (value.includes(':')) {
    let total = 0;
    let base = 1;
    for (const part of value.split(':').reverse()) {
      total += Number(part) * base;
      base *= 60;
    }
    return sign * total;
  }
  return sign * Number(value);
}

function pyyamlInt(text: string): PyYamlPlain {
  let value = text.replaceAll('_', '');
  const negative = value[0] === '-';
  if (value[0] === '+' || value[0] === '-') value = value.slice(1);
  let big: bigint;
  if (value === '0') big = 0n;
  else if (value.startsWith('0b') || value.startsWith('0x')) {
    if (value.length === 2)
      return { refused: `PyYAML cannot read ${text} as the integer it looks like: quote it` };
    big = BigInt(value);
  } else if (value[0] === '0') big = BigInt(`0o${value.slice(1)}`);
  else if (value.includes(':')) {
    big = 0n;
    for (const part of value.split(':')) big = big * 60n + BigInt(part);
  } else big = BigInt(value);
  if (negative) big = -big;
  const number = Number(big);
  if (!Number.isSafeInteger(number) && BigInt(number) !== big)
    return {
      refused: `PyYAML reads ${text} as the integer ${big}, beyond 2^53: strata (as JSON in JavaScript) would read it as ${number}, another number; quote it to keep it as text`,
    };
  return { value: number === 0 ? 0 : number };
}

function pyyamlTimestamp(text: string): PyYamlPlain {
  const m = TIMESTAMP.exec(text)!;
  if (m[4] === undefined && !DATE_ONLY.test(text)) return { value: text };
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const tzHours = Number(m[10] ?? 0);
  const tzMinutes = Number(m[11] ?? 0);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number((m[7] ?? '').slice(0, 3).padEnd(3, '0')));
  const valid =
    year >= 1 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60 &&
    tzHours * 60 + tzMinutes < 24 * 60;
  if (!valid)
    return { refused: `${text} is no date or time PyYAML can build (it fails on the file): quote it` };
  if (m[9] !== undefined)
    date.setTime(date.getTime() - (m[9] === '-' ? -1 : 1) * (tzHours * 60 + tzMinutes) * 60_000);
  return { value: date };
}
