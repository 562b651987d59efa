import { leftOut } from '../core/pack/select.js';
import { type Diagnostic, error } from '../core/text/diagnostics.js';
import { byteOrder } from '../core/text/text.js';
import { fileTooLarge, packTooLarge, specialFile } from './limits.js';
import type { Slices } from './slices.js';

// A small POSIX tar (ustar, with pax `path` records for long names) writer and a strict
// reader for pack bundles. The writer is deterministic: entries sorted by path, regular
// files only, mode 0644, owner 0:0, mtime 0. The reader accepts ustar, pax and GNU
// long-name archives (so `tar -czf pack.tgz -C pack .` works too) and refuses what a
// pack directory could not hold: absolute or `..` paths, names that are not UTF-8 (the
// folder reader refuses those too), links, devices, FIFOs, duplicate paths, a path that is
// both a file and a folder, entries over the size limit, and archives cut short. Every
// entry counts against the entry and byte limits, whatever its kind (extended headers,
// hidden files, links): an archive costs at most its limits to read.

/** One regular file of an archive. */
export interface TarFile {
  path: string;
  bytes: Uint8Array;
}

export interface TarLimits {
  /** Entries over this many bytes are refused with FILE_TOO_LARGE (their path in `refused`). */
  maxFileBytes: number;
  /**
   * More entries than this is TOO_MANY_FILES: every header of the archive (files,
   * folders, links, hidden entries, extended headers) and every folder its paths imply.
   */
  maxEntries: number;
  /**
   * Headers (512 bytes each), extended headers and the data of every entry adding up to
   * more bytes than this is PACK_TOO_LARGE.
   */
  maxBytes: number;
  /** Hidden folder names whose files are read (other hidden entries are skipped). */
  hidden?: ReadonlySet<string>;
}

export interface TarRead {
  files: Map<string, Uint8Array>;
  /** Paths known to exist but not read (too large). */
  refused: Set<string>;
  diagnostics: Diagnostic[];
}

/** Writes regular files as a tar archive (deterministic bytes for the same files). */
export function writeTar(files: readonly TarFile[]): Uint8Array {
  const sorted = [...files].sort((a, b) => byteOrder(a.path, b.path));
  const chunks: Uint8Array[] = [];
  for (const file of sorted) {
    const name = encoder.encode(file.path);
    const split = splitName(name);
    if (!split) {
      const record = paxRecord('path', file.path);
      chunks.push(header({ name: encoder.encode('PaxHeader'), size: record.length, type: 'x' }));
      chunks.push(padded(record));
      chunks.push(header({ name: name.subarray(0, 100), size: file.bytes.length, type: '0' }));
    } else {
      chunks.push(header({ name: split.name, prefix: split.prefix, size: file.bytes.length, type: '0' }));
    }
    chunks.push(padded(file.bytes));
  }
  chunks.push(new Uint8Array(BLOCK * 2));
  return concat(chunks);
}

/**
 * Reads a tar archive's regular files. Never throws on its content: every problem is a
 * diagnostic (BUNDLE_BAD_PATH, BUNDLE_LINK, SPECIAL_FILE, BUNDLE_BAD_ENTRY,
 * BUNDLE_CORRUPT, BUNDLE_TRUNCATED, TOO_MANY_FILES, PACK_TOO_LARGE, FILE_TOO_LARGE).
 * Entries whose path has a part starting with `.` (or a folder of installed packages:
 * `node_modules`, `site-packages`) are not looked at, as a pack directory's are not, but for folders named in
 * `hidden`; every entry counts against `maxEntries` and `maxBytes` all the same, so no
 * archive costs more than its limits to read. Given `slices`, the read gives the event
 * loop a turn whenever a slice is used up, and throws `Slices.TIMED_OUT` past its deadline.
 */
export async function readTar(bytes: Uint8Array, limits: TarLimits, slices?: Slices): Promise<TarRead> {
  const out: TarRead = { files: new Map(), refused: new Set(), diagnostics: [] };
  const seen = new Set<string>();
  /** Every folder the regular files so far sit in: a file may not have one's path. */
  const folders = new Set<string>();
  let offset = 0;
  let longName: string | undefined;
  /** Entries so far: every header, and each folder a path implies without one of its own. */
  let entries = 0;
  /** Bytes so far: every header and every entry's data. */
  let total = 0;
  const countEntry = (): boolean => {
    if (++entries <= limits.maxEntries) return true;
    out.diagnostics.push(tooManyEntries(limits.maxEntries));
    return false;
  };
  /** Folders counted (written as an entry, or implied by a path). */
  const counted = new Set<string>();
  const countFolder = (path: string): boolean => {
    if (counted.has(path)) return true;
    counted.add(path);
    return countEntry();
  };
  for (;;) {
    if (slices?.due) await slices.pause();
    if (offset + BLOCK > bytes.length) {
      out.diagnostics.push(
        error('BUNDLE_TRUNCATED', `archive ends at byte ${bytes.length} without its end-of-archive marker`),
      );
      return out;
    }
    const block = bytes.subarray(offset, offset + BLOCK);
    if (zeroBlock(block)) return out;
    const at = offset;
    if (!checksumOk(block)) {
      out.diagnostics.push(error('BUNDLE_CORRUPT', `bad tar header checksum at byte ${at}`));
      return out;
    }
    const size = octal(block, 124, 12);
    const type = String.fromCharCode(block[156]!);
    if (size === undefined) {
      out.diagnostics.push(error('BUNDLE_CORRUPT', `bad size field in the tar header at byte ${at}`));
      return out;
    }
    const dataStart = offset + BLOCK;
    const dataEnd = dataStart + size;
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (dataEnd > bytes.length) {
      out.diagnostics.push(
        error(
          'BUNDLE_TRUNCATED',
          `archive is cut inside an entry (header at byte ${at} announces ${size} bytes)`,
        ),
      );
      return out;
    }
    // Every entry, whatever it is, counts: its header and its data.
    if (!countEntry()) return out;
    total += BLOCK + size;
    if (total > limits.maxBytes) {
      out.diagnostics.push(packTooLarge(total, limits.maxBytes));
      return out;
    }

    // Extended headers name the next entry.
    if (type === 'x' || type === 'L') {
      if (size > 64 * 1024) {
        out.diagnostics.push(error('BUNDLE_CORRUPT', `extended header at byte ${at} is ${size} bytes`));
        return out;
      }
      const data = bytes.subarray(dataStart, dataEnd);
      longName = type === 'L' ? cString(data, strict) : paxPath(data);
      continue;
    }
    // A global pax header, and GNU's long link target of the next entry (a link, which is
    // refused, or skipped where hidden, as that entry is).
    if (type === 'g' || type === 'K') continue;
    const path = longName ?? ustarName(block);
    longName = undefined;
    if (path === NOT_UTF8) {
      out.diagnostics.push(
        error(
          'BUNDLE_BAD_PATH',
          `entry at byte ${at} has a name that is not valid UTF-8 (strata reads file names as UTF-8): rename it`,
        ),
      );
      continue;
    }

    const checked = checkPath(path);
    if (typeof checked !== 'string') {
      out.diagnostics.push(
        error('BUNDLE_BAD_PATH', `entry ${JSON.stringify(path)} (byte ${at}) ${checked.problem}`),
      );
      continue;
    }
    // A hidden entry is not looked at, as a folder read never lists one: a project's
    // `node_modules/.bin` links or a `.git` folder in `tar -C project .` are no problem.
    if (hidden(checked, limits.hidden)) continue;
    if (type === '5') {
      counted.add(checked);
      continue;
    }
    if (type === '1' || type === '2') {
      const target = cString(block.subarray(157, 257));
      out.diagnostics.push(
        error(
          'BUNDLE_LINK',
          `${type === '2' ? 'symbolic' : 'hard'} link to ${JSON.stringify(target)}: a bundle holds regular files only`,
          { file: checked },
        ),
      );
      continue;
    }
    if (type === '3' || type === '4' || type === '6') {
      out.diagnostics.push(specialFile(checked, `a ${kindOf(type)} in the bundle`));
      continue;
    }
    if (type !== '0' && type !== '\0' && type !== '7') {
      out.diagnostics.push(
        error(
          'BUNDLE_BAD_ENTRY',
          `entry of unknown type ${JSON.stringify(type)}: a bundle holds regular files only`,
          {
            file: checked,
          },
        ),
      );
      continue;
    }
    if (seen.has(checked)) {
      out.diagnostics.push(error('BUNDLE_BAD_ENTRY', 'the archive holds this path twice', { file: checked }));
      continue;
    }
    const clash = folderClash(checked, seen, folders);
    if (clash !== undefined) {
      out.diagnostics.push(
        error('BUNDLE_BAD_ENTRY', `${JSON.stringify(clash)} is both a file and a folder in the archive`, {
          file: checked,
        }),
      );
      continue;
    }
    seen.add(checked);
    for (const folder of ancestors(checked)) {
      folders.add(folder);
      if (!countFolder(folder)) return out;
    }
    if (size > limits.maxFileBytes) {
      out.refused.add(checked);
      out.diagnostics.push(fileTooLarge(checked, size, limits.maxFileBytes));
      continue;
    }
    out.files.set(checked, new Uint8Array(bytes.subarray(dataStart, dataEnd)));
  }
}

// --- internal ---

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });
const strict = new TextDecoder('utf-8', { fatal: true });
/** Stands for an entry name that is not UTF-8 (never a real name: it holds a NUL). */
const NOT_UTF8 = '\0not-utf-8';

function header(h: { name: Uint8Array; prefix?: Uint8Array; size: number; type: string }): Uint8Array {
  const block = new Uint8Array(BLOCK);
  block.set(h.name, 0);
  writeOctal(block, 100, 8, 0o644);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, h.size);
  writeOctal(block, 136, 12, 0);
  block[156] = h.type.charCodeAt(0);
  block.set(encoder.encode('ustar\u000000'), 257);
  if (h.prefix) block.set(h.prefix, 345);
  // The checksum is summed with its own field as spaces.
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of block) sum += b;
  const digits = sum.toString(8).padStart(6, '0');
  block.set(encoder.encode(`${digits}\u0000 `), 148);
  return block;
}

function writeOctal(block: Uint8Array, at: number, width: number, value: number): void {
  block.set(encoder.encode(`${value.toString(8).padStart(width - 1, '0')}\u0000`), at);
}

/** A ustar name/prefix split of a path, or undefined when it needs a pax record. */
function splitName(name: Uint8Array): { name: Uint8Array; prefix?: Uint8Array } | undefined {
  if (name.length <= 100) return { name };
  for (let i = name.length - 1; i > 0; i--) {
    if (name[i] !== 0x2f) continue;
    if (i <= 155 && name.length - i - 1 <= 100 && name.length - i - 1 > 0)
      return { prefix: name.subarray(0, i), name: name.subarray(i + 1) };
  }
  return undefined;
}

function paxRecord(key: string, value: string): Uint8Array {
  const body = ` ${key}=${value}\n`;
  const bodyBytes = encoder.encode(body).length;
  let length = bodyBytes + 1;
  while (String(length).length + bodyBytes !== length) length = String(length).length + bodyBytes;
  return encoder.encode(`${length}${body}`);
}

/**
 * The `path` of a pax extended header's records (`<length> <key>=<value>\n` each), read
 * byte by byte: a header of thousands of tiny records costs no string per record.
 */
function paxPath(data: Uint8Array): string | undefined {
  let i = 0;
  let path: string | undefined;
  while (i < data.length) {
    let length = 0;
    let j = i;
    while (j < data.length && j - i < 16 && data[j]! >= 0x30 && data[j]! <= 0x39)
      length = length * 10 + data[j++]! - 0x30;
    if (j === i || data[j] !== 0x20 || length <= j - i + 1 || i + length > data.length) break;
    if (startsWith(data, j + 1, PATH_KEY))
      path = utf8(data.subarray(j + 1 + PATH_KEY.length, i + length - 1));
    i += length;
  }
  return path;
}

const PATH_KEY = encoder.encode('path=');

function startsWith(data: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at + prefix.length > data.length) return false;
  for (let k = 0; k < prefix.length; k++) if (data[at + k] !== prefix[k]) return false;
  return true;
}

function zeroBlock(block: Uint8Array): boolean {
  for (let i = 0; i < block.length; i++) if (block[i] !== 0) return false;
  return true;
}

/** TOO_MANY_FILES for an archive: its entries, every one counted. */
function tooManyEntries(limit: number): Diagnostic {
  return error(
    'TOO_MANY_FILES',
    `the bundle holds more than ${limit} entries (every tar entry counts: files, folders, links, hidden entries, extended headers); the limit is ${limit} (--max-files)`,
  );
}

function padded(bytes: Uint8Array): Uint8Array {
  const size = Math.ceil(bytes.length / BLOCK) * BLOCK;
  if (size === bytes.length) return bytes;
  const out = new Uint8Array(size);
  out.set(bytes);
  return out;
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function checksumOk(block: Uint8Array): boolean {
  const stored = octal(block, 148, 8);
  if (stored === undefined) return false;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return sum === stored;
}

/** A NUL- or space-terminated octal field; undefined when it is not one (e.g. base-256). */
function octal(block: Uint8Array, at: number, width: number): number | undefined {
  const text = decoder
    .decode(block.subarray(at, at + width))
    .replace(/[\0 ]+$/, '')
    .replace(/^ +/, '');
  if (!/^[0-7]{1,12}$/.test(text)) return text === '' ? 0 : undefined;
  const n = Number.parseInt(text, 8);
  return Number.isSafeInteger(n) ? n : undefined;
}

function cString(bytes: Uint8Array, using: TextDecoder = decoder): string {
  const end = bytes.indexOf(0);
  const text = end === -1 ? bytes : bytes.subarray(0, end);
  return using === strict ? utf8(text) : decoder.decode(text);
}

/** The UTF-8 text of a name's bytes, or NOT_UTF8. */
function utf8(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch {
    return NOT_UTF8;
  }
}

function ustarName(block: Uint8Array): string {
  const name = cString(block.subarray(0, 100), strict);
  const magic = cString(block.subarray(257, 263));
  const prefix = magic === 'ustar' ? cString(block.subarray(345, 500), strict) : '';
  if (name === NOT_UTF8 || prefix === NOT_UTF8) return NOT_UTF8;
  return prefix ? `${prefix}/${name}` : name;
}

/** The folders a path sits in, nearest last: `a/b/c` → `a`, `a/b`. */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}

/** The path that would be both a file and a folder if `path` were added, if any. */
function folderClash(
  path: string,
  files: ReadonlySet<string>,
  folders: ReadonlySet<string>,
): string | undefined {
  if (folders.has(path)) return path;
  return ancestors(path).find((folder) => files.has(folder));
}

/** The pack-relative path of an entry, or why it cannot be one. */
function checkPath(raw: string): string | { problem: string } {
  if (raw.includes('\0')) return { problem: 'has a NUL byte in its path' };
  if (raw.includes('\\')) return { problem: 'has a backslash in its path' };
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) return { problem: 'has an absolute path' };
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) return { problem: 'has a ".." part: it would leave the pack' };
  return parts.join('/');
}

function hidden(path: string, read: ReadonlySet<string> = new Set()): boolean {
  const parts = path.split('/');
  return path === '' || parts.some((p) => leftOut(p) && !read.has(p));
}

function kindOf(type: string): string {
  switch (type) {
    case '3':
      return 'character device';
    case '4':
      return 'block device';
    default:
      return 'FIFO';
  }
}
