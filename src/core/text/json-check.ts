import { isWellFormedText } from './text.js';

/**
 * What JSON.parse accepts but a request body (an HTTP body, an MCP message) must not hold,
 * found in one pass over the text without recursion (any nesting): a key given twice in
 * one object (JSON.parse keeps the last, so `{"role":"developer","role":"qa"}` would
 * silently compose for qa — the query refuses a repeated parameter for the same reason),
 * and a `\u` escape that leaves a lone surrogate (text that is no Unicode: its UTF-8 form
 * would be U+FFFD, not what was sent). Returns the problem's message, or undefined; text
 * that is not JSON is left to the parser to refuse.
 *
 * @example
 * jsonBodyProblem('{"role":"a","role":"b"}'); // 'the body gives key "role" twice in one object; …'
 */
export function jsonBodyProblem(text: string): string | undefined {
  // One entry per open container: the keys seen so far of an object, null for a list.
  const open: Array<Set<string> | null> = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const ch = text.charCodeAt(i);
    if (ch === QUOTE) {
      STRING.lastIndex = i;
      const match = STRING.exec(text);
      if (!match) return undefined;
      const raw = match[0];
      i += raw.length;
      let value: string | undefined;
      if (raw.includes('\\')) {
        try {
          value = JSON.parse(raw) as string;
        } catch {
          return undefined;
        }
        if (raw.includes('\\u') && !isWellFormedText(value))
          return `a string of the body (at character ${i - raw.length}) holds a \\u escape of a lone surrogate (D800-DFFF without its pair): it is not Unicode text`;
      }
      const keys = open[open.length - 1];
      if (!keys) continue;
      SPACE.lastIndex = i;
      SPACE.exec(text);
      if (text.charCodeAt(SPACE.lastIndex) !== COLON) continue;
      const key = value ?? raw.slice(1, -1);
      if (keys.has(key))
        return `the body gives key ${JSON.stringify(key)} twice in one object; give each key once`;
      keys.add(key);
      continue;
    }
    if (ch === OPEN_OBJECT) open.push(new Set());
    else if (ch === OPEN_LIST) open.push(null);
    else if (ch === CLOSE_OBJECT || ch === CLOSE_LIST) open.pop();
    i++;
  }
  return undefined;
}

// --- internal ---

const QUOTE = 0x22;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
/** A JSON string from its opening quote (the unrolled form: no backtracking). */
const STRING = /"[^"\\]*(?:\\.[^"\\]*)*"/y;
const SPACE = /[ \t\n\r]*/y;
