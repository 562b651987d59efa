import { type Diagnostic, error, warning } from './diagnostics.js';
import { decodeLossy, firstNotText } from './text.js';

// INVALID_UTF8: where a file stops being UTF-8 text, and what its bytes probably are.

/**
 * The INVALID_UTF8 diagnostic of a file whose bytes are no UTF-8 text (see `isUtf8Text`),
 * at the line and column of the first bad byte, naming the encoding it was likely saved
 * in: UTF-16 or UTF-32 (a byte order mark, or NUL bytes), or a Latin-1 code page (the
 * byte's character in Windows-1252). A file read strictly is an error; a raw file (read
 * lossily, as some tools read their notes files) a warning saying what reaches the prompt instead.
 *
 * @example
 * notTextDiagnostic('roles.yaml', bytes, 'strict');
 * // error INVALID_UTF8: roles.yaml:3:23: byte 0xE9 is not UTF-8 (in Windows-1252, … "é"); save the file as UTF-8
 */
export function notTextDiagnostic(path: string, bytes: Uint8Array, read: 'strict' | 'lossy'): Diagnostic {
  const kind = binaryKind(bytes);
  if (kind !== undefined) {
    const what = `the file is ${kind}, not text`;
    const where = { file: path, line: 1, col: 1 };
    return read === 'strict'
      ? error(
          'INVALID_UTF8',
          `${what}; a pack holds text files only: move it out of the pack's folder, or select the pack's files with files: in strata.yaml`,
          where,
        )
      : warning(
          'INVALID_UTF8',
          `${what}; it is read as it is, each byte that is not UTF-8 reaching the prompt as U+FFFD`,
          where,
        );
  }
  const bom = wideBom(bytes);
  const offset = bom ? 0 : Math.max(0, firstNotText(bytes));
  const what = bom
    ? `the file is ${bom} text (it starts with a byte order mark), not UTF-8`
    : bytes[offset] === 0
      ? `a NUL byte (offset ${offset}): the file is no UTF-8 text (UTF-16 saved without a byte order mark?)`
      : `byte 0x${hex(bytes[offset]!)} (offset ${offset}) is not UTF-8${codePageHint(bytes[offset]!)}`;
  const where = { file: path, ...bytePosition(bytes, offset) };
  return read === 'strict'
    ? error('INVALID_UTF8', `${what}; save the file as UTF-8`, where)
    : warning(
        'INVALID_UTF8',
        `${what}; it is read as it is, each byte that is not UTF-8 reaching the prompt as U+FFFD${bytes.includes(0) ? ' and each NUL byte as a NUL character' : ''} (save the file as UTF-8)`,
        where,
      );
}

// --- internal ---

/**
 * What a file of a common binary format is, by its first bytes (an image, an archive or
 * office document, a font, a PDF, an executable): no encoding saved it, so none is named.
 */
function binaryKind(b: Uint8Array): string | undefined {
  for (const [kind, magic] of BINARY_MAGIC) if (startsWith(b, magic)) return kind;
  if (startsWith(b, RIFF) && startsWith(b.subarray(8), WEBP)) return 'a WebP image';
  return undefined;
}

function startsWith(b: Uint8Array, magic: readonly number[]): boolean {
  if (b.length < magic.length) return false;
  for (let i = 0; i < magic.length; i++) if (b[i] !== magic[i]) return false;
  return true;
}

const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));

/** First bytes of binary formats a project folder commonly holds (text formats are not here: they may be valid UTF-8). */
const BINARY_MAGIC: ReadonlyArray<readonly [string, readonly number[]]> = [
  ['a PNG image', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['a JPEG image', [0xff, 0xd8, 0xff]],
  ['a GIF image', ascii('GIF8')],
  ['an ICO icon', [0, 0, 1, 0]],
  ['a PDF document', ascii('%PDF-')],
  ['a ZIP archive (or an office document, a .jar)', [0x50, 0x4b, 0x03, 0x04]],
  ['a gzip file', [0x1f, 0x8b]],
  ['a WOFF font', ascii('wOFF')],
  ['a WOFF2 font', ascii('wOF2')],
  ['a TrueType font', [0, 1, 0, 0, 0]],
  ['an OpenType font', ascii('OTTO')],
  ['an ELF executable', [0x7f, 0x45, 0x4c, 0x46]],
  ['a WebAssembly module', [0, 0x61, 0x73, 0x6d]],
  ['an SQLite database', ascii('SQLite format 3\0')],
];
const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');

/** The UTF-16 or UTF-32 encoding a byte order mark at the start of the bytes names. */
function wideBom(b: Uint8Array): string | undefined {
  if (b[0] === 0xff && b[1] === 0xfe) return b[2] === 0 && b[3] === 0 ? 'UTF-32 LE' : 'UTF-16 LE';
  if (b[0] === 0xfe && b[1] === 0xff) return 'UTF-16 BE';
  if (b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff) return 'UTF-32 BE';
  return undefined;
}

/** 1-based line and column of a byte offset, as an editor shows them (CRLF, CR or LF end a line; a UTF-8 BOM is no column). */
function bytePosition(bytes: Uint8Array, offset: number): { line: number; col: number } {
  let line = 1;
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  for (let i = start; i < offset; i++) {
    const b = bytes[i]!;
    if (b === 0x0a || (b === 0x0d && bytes[i + 1] !== 0x0a)) {
      line++;
      start = i + 1;
    }
  }
  return { line, col: decodeLossy(bytes.subarray(start, Math.max(start, offset))).length + 1 };
}

/** What a byte is in Windows-1252 (the Latin-1 most editors save), when it is a character there. */
function codePageHint(byte: number): string {
  if (byte < 0x80) return '';
  const char = byte >= 0xa0 ? String.fromCharCode(byte) : WINDOWS_1252_80_9F[byte - 0x80]!;
  return char === ' '
    ? ''
    : ` (in Windows-1252, the Latin-1 most editors save, it is ${JSON.stringify(char)})`;
}

/** Windows-1252's characters for 0x80-0x9F (a space: no character there). */
const WINDOWS_1252_80_9F = [...'€ ‚ƒ„…†‡ˆ‰Š‹Œ Ž  ‘’“”•–—˜™š›œ žŸ'];

function hex(byte: number): string {
  return byte.toString(16).toUpperCase().padStart(2, '0');
}
