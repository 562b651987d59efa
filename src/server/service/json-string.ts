/**
 * Characters `JSON.stringify` may escape in a string: `"`, `\`, control characters, and
 * every surrogate (a lone one is escaped; a pair is not, which only a closer look tells).
 * A string without any is written by `JSON.stringify` as it is, between quotes.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes the control characters
export const MAY_NEED_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * `JSON.stringify(text)` for a string, without its work when nothing in it may need escaping.
 *
 * @example
 * jsonString('/api/compose'); // '"/api/compose"'
 * jsonString('a"b'); // '"a\\"b"'
 */
export function jsonString(text: string): string {
  return MAY_NEED_ESCAPING.test(text) ? JSON.stringify(text) : `"${text}"`;
}
