import { MAY_NEED_ESCAPING } from '../service/json-string.js';

/**
 * `JSON.stringify(value)` as UTF-8 bytes — byte for byte what
 * `new TextEncoder().encode(JSON.stringify(value))` gives — with the string at
 * `value[key]` (a prompt's text: the one large member of an answer) written straight into
 * the bytes: the other members are stringified as usual, the text is encoded once into
 * its place and its JSON escapes are made there, so neither a JSON string of the whole
 * answer nor a flattened copy of it is made. Falls back to stringifying everything when
 * `value[key]` is not a string or `value` has its own `toJSON`.
 *
 * @example
 * jsonBytes({ version: 'v1', text: 'say "hi"\n', bytes: 9 }, 'text');
 * // the bytes of {"version":"v1","text":"say \"hi\"\n","bytes":9}
 */
export function jsonBytes(value: object, key: string): Uint8Array<ArrayBuffer> {
  const record = value as Record<string, unknown>;
  const text = record[key];
  if (
    typeof text !== 'string' ||
    Array.isArray(value) ||
    typeof record.toJSON === 'function' ||
    !Object.hasOwn(value, key)
  )
    return encodeWhole(value);
  // The members before and after `key`, in their order, stringified as JSON.stringify would.
  const before: Record<string, unknown> = Object.create(null);
  const after: Record<string, unknown> = Object.create(null);
  let seen = false;
  for (const name of Object.keys(value)) {
    if (name === key) seen = true;
    else if (seen) after[name] = record[name];
    else before[name] = record[name];
  }
  // `{…before…}` and `{…after…}` are written as they are, then their braces become the
  // joints: `{…before…,"key":"text",…after…}`.
  const head = JSON.stringify(before);
  const tail = JSON.stringify(after);
  const name = `${JSON.stringify(key)}:`;
  const headBytes = Buffer.byteLength(head) - 1 + (head.length > 2 ? 1 : 0);
  const nameBytes = Buffer.byteLength(name);
  const extra = escapeBytes(text);
  // A lone surrogate (rare: a text cut mid-pair) cannot be carried by UTF-8: JSON.stringify
  // escapes it, and so the text is stringified then.
  const quoted = extra < 0 ? JSON.stringify(text) : undefined;
  const textBytes = quoted === undefined ? Buffer.byteLength(text) + extra + 2 : Buffer.byteLength(quoted);
  const textAt = headBytes + nameBytes;
  const tailAt = textAt + textBytes;
  const tailBytes = tail.length > 2 ? Buffer.byteLength(tail) : 1;
  const out = Buffer.allocUnsafeSlow(tailAt + tailBytes);
  out.write(head, 0);
  if (head.length > 2) out[headBytes - 1] = COMMA;
  out.write(name, headBytes);
  if (quoted === undefined) writeEscaped(out, textAt, text, textBytes, extra);
  else out.write(quoted, textAt);
  if (tail.length > 2) {
    out.write(tail, tailAt);
    out[tailAt] = COMMA;
  } else out[tailAt] = CLOSE;
  return new Uint8Array(out.buffer, 0, out.byteLength);
}

// --- internal ---

const QUOTE = 0x22;
const COMMA = 0x2c;
const CLOSE = 0x7d;
const BACKSLASH = 0x5c;
/** Marks the control characters escaped as `\u00XX`. */
const U = 1;
const HEX = Buffer.from('0123456789abcdef');
/** Per byte: 0 when it is written as it is, U for `\u00XX`, else the letter after the backslash. */
const ESCAPE = (() => {
  const table = new Uint8Array(256);
  for (let c = 0; c < 0x20; c++) table[c] = U;
  const short: Array<[string, string]> = [
    ['\b', 'b'],
    ['\t', 't'],
    ['\n', 'n'],
    ['\f', 'f'],
    ['\r', 'r'],
    ['"', '"'],
    ['\\', '\\'],
  ];
  for (const [c, letter] of short) table[c.charCodeAt(0)] = letter.charCodeAt(0);
  return table;
})();

/** Control characters other than the common three (`\n`, `\r`, `\t`): rare in a prompt. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes the control characters
const RARE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
/** The characters JSON escapes with a backslash and one letter that prompts hold. */
const COMMON = ['\n', '"', '\\', '\t', '\r'];

/**
 * How many bytes the JSON escapes of `text` add to its UTF-8 bytes; -1 when it holds a
 * lone surrogate (which UTF-8 cannot carry: JSON.stringify escapes it).
 */
function escapeBytes(text: string): number {
  if (!MAY_NEED_ESCAPING.test(text)) return 0;
  if (!(text as WellFormed).isWellFormed()) return -1;
  if (!RARE.test(text)) {
    // Each of the common escapes adds one byte: count them with the engine's own search,
    // a quarter of the time of a loop over the characters on a 64 KB text.
    let extra = 0;
    for (const c of COMMON) for (let i = text.indexOf(c); i !== -1; i = text.indexOf(c, i + 1)) extra++;
    return extra;
  }
  let extra = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20) extra += ESCAPE[c] === U ? 5 : 1;
    else if (c === QUOTE || c === BACKSLASH) extra++;
    else if (c >= 0xd800 && c <= 0xdfff) {
      // A high surrogate followed by a low one is a pair (four UTF-8 bytes); any other is lone.
      if (c >= 0xdc00) return -1;
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return -1;
      i++;
    }
  }
  return extra;
}

/**
 * Writes `JSON.stringify(text)` into the `bytes` bytes of `out` from `offset`, where
 * `extra` is what its escapes add ({@link escapeBytes}, not -1).
 */
/** `String.prototype.isWellFormed` (ES2024, in Node 20): false when the text holds a lone surrogate. */
type WellFormed = string & { isWellFormed(): boolean };

function writeEscaped(out: Buffer, offset: number, text: string, bytes: number, extra: number): void {
  const end = offset + bytes;
  out[offset] = QUOTE;
  out[end - 1] = QUOTE;
  if (extra === 0) {
    out.write(text, offset + 1);
    return;
  }
  // The UTF-8 bytes go at the end of the space, then move forward to its start, each byte
  // that needs it replaced by its escape. The bytes that need escaping (< 0x20, `"`, `\`)
  // are never part of a multi-byte sequence, and the escapes still to make always fit in
  // the gap between the two positions: a byte is never overwritten before it is read, and
  // once the gap is closed the rest is in place.
  let dst = offset + 1;
  let src = dst + extra;
  out.write(text, src);
  while (src > dst) {
    const b = out[src++]!;
    const e = ESCAPE[b]!;
    if (e === 0) out[dst++] = b;
    else if (e !== U) {
      out[dst++] = BACKSLASH;
      out[dst++] = e;
    } else {
      out[dst++] = BACKSLASH;
      out[dst++] = 0x75; // u
      out[dst++] = 0x30;
      out[dst++] = 0x30;
      out[dst++] = HEX[b >> 4]!;
      out[dst++] = HEX[b & 15]!;
    }
  }
}

function encodeWhole(value: object): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(JSON.stringify(value));
}
