import { isAscii, isUtf8 } from 'node:buffer';
import { hash } from 'node:crypto';

// Text helpers shared by the core: decoding, hashing, offsets to line:col.

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();
const lossy = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Whether every byte is ASCII and none is a carriage return or a NUL: bytes whose text is
 * the bytes themselves, one character each, with nothing for decoding to normalise or refuse.
 */
export function isPlainAscii(bytes: Uint8Array): boolean {
  return isAscii(bytes) && indexOfByte.call(bytes, CR) === -1 && indexOfByte.call(bytes, NUL) === -1;
}

/**
 * Whether the bytes are UTF-8 text (what {@link decodeText} decodes): well-formed UTF-8
 * without a NUL byte (UTF-16 text, which holds one in every other byte of ASCII, is valid
 * UTF-8 byte by byte), checked natively.
 */
export function isUtf8Text(bytes: Uint8Array): boolean {
  return isUtf8(bytes) && indexOfByte.call(bytes, NUL) === -1;
}

/** A byte search in native code (memchr), for any `Uint8Array`. */
const indexOfByte = Buffer.prototype.indexOf as (this: Uint8Array, value: number) => number;
const CR = 0x0d;
const NUL = 0x00;

/** Decodes bytes as they are: a byte-order mark kept, newlines unchanged, bad bytes as U+FFFD. */
export function decodeLossy(bytes: Uint8Array): string {
  return lossy.decode(bytes);
}

/** Whether text holds no lone surrogate (a UTF-16 half without its pair): it is Unicode text. */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether text is empty or only Unicode White_Space. */
export function isBlank(text: string): boolean {
  return BLANK.test(text);
}

const BLANK = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/**
 * Decodes file bytes (docs/pack-format.md, "Files"): strict UTF-8, leading BOM dropped,
 * CRLF and CR normalised to LF. Returns undefined when the bytes are not UTF-8 text (see
 * {@link isUtf8Text}).
 */
export function decodeText(bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  if (text.includes('\0')) return undefined;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return normaliseNewlines(text);
}

export function normaliseNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** Byte offset (0-based) of the first invalid UTF-8 sequence or NUL byte (-1: none), for error positions. */
export function firstNotText(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b === NUL) return i;
    const len =
      b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (len === 0 || i + len > bytes.length) return i;
    try {
      utf8.decode(bytes.subarray(i, i + len));
    } catch {
      return i;
    }
    i += len;
  }
  return -1;
}

/** Hex sha256 of text (as UTF-8) or bytes (one-shot: no hash object per call). */
export function sha256(text: string | Uint8Array): string {
  return hash('sha256', text, 'hex');
}

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export function toBytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** 1-based line and column of a character offset in text. */
export function lineCol(text: string, offset: number): { line: number; col: number } {
  return new LineIndex(text).lineCol(offset);
}

/** Line starts of a text, for many offset → line:col look-ups (binary search). */
export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(private readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  lineCol(offset: number): { line: number; col: number } {
    const at = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: at - this.starts[lo]! + 1 };
  }
}

/**
 * Compares strings in UTF-8 byte order (= code point order): the one order strata sorts
 * paths, names and keys in (docs/pack-format.md, "Files"). JavaScript's `<` and the
 * default `sort()` compare UTF-16 code units, which differs above U+FFFF.
 */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) return codeUnitRank(ca) - codeUnitRank(cb);
  }
  return a.length - b.length;
}

// Surrogates encode code points above U+FFFF, so they sort after U+E000..U+FFFF.
function codeUnitRank(c: number): number {
  if (c >= 0xd800 && c <= 0xdfff) return c + 0x2000;
  if (c >= 0xe000) return c - 0x800;
  return c;
}
