import { createHash } from 'node:crypto';
import type { Manifest } from '../pack/manifest.js';
import type { Diagnostic } from '../text/diagnostics.js';
import { type SplitFile, splitFrontmatter, splitFrontmatterLenient } from '../text/frontmatter.js';
import { notTextDiagnostic } from '../text/not-text.js';
import {
  byteOrder,
  decodeLossy,
  decodeText,
  isPlainAscii,
  isUtf8Text,
  sha256,
  utf8Length,
} from '../text/text.js';
import type { FastYaml, ParsedYaml } from '../text/yaml.js';
import type { AliasBudget } from '../text/yaml-aliases.js';
import { BlockHex, type Digests, digestHex } from './digests.js';

// One pack file decoded for a snapshot, and the version hash over a snapshot's files.

/** One file of the pack, decoded. */
export interface PackFile {
  path: string;
  /** sha256 of the raw bytes. */
  sha256: string;
  /** The decoded, newline-normalised text (frontmatter included). */
  text: string;
  /** Frontmatter metadata ({} when none; YAML files have none). */
  meta: Readonly<Record<string, unknown>>;
  /** The layer text: body after frontmatter, trimmed (docs/pack-format.md, "Files"). */
  prompt: string;
  readonly promptSha256: string;
  promptBytes: number;
  /** Character offset of the body in `text`. */
  bodyOffset: number;
  /** The file's bytes, for files the manifest keeps raw (`raw:`): cut by byte budgets as they are. */
  raw?: Uint8Array;
  /** Whether the file is kept raw (`raw` read without making a view of the bytes). */
  readonly isRaw: boolean;
  /** How many bytes the file has. */
  readonly byteLength: number;
  /** The UTF-8 length of `text` (of a raw file's lossy decoding: not always its `byteLength`). */
  readonly textBytes: number;
  /** Set when the frontmatter parsed only after its values were quoted (`frontmatter: lenient`). */
  frontmatterRetried?: true;
}

/** The version of a pack: sha256 over its preset, files, refused paths and outside files. */
export function packVersion(
  files: ReadonlyMap<string, PackFile>,
  refused: readonly string[],
  preset: string,
  external: ReadonlyMap<string, PackFile>,
  gitFolders: readonly string[] = [],
): string {
  // The sha256 of these lines joined by newlines, hashed a few hundred lines at a time.
  const hash = new ChunkedHash(`preset ${preset}`);
  const hex = new BlockHex();
  forEachInOrder(files, (file, path) => hash.add(`\n${hexOf(file, hex)} ${path}`));
  for (const path of [...refused].sort(byteOrder)) hash.add(`\nrefused ${path}`);
  forEachInOrder(external, (file, path) => hash.add(`\nexternal ${hexOf(file, hex)} ${path}`));
  for (const folder of gitFolders) hash.add(`\ngit ${folder}`);
  return hash.digest().slice(0, 16);
}

/** A file's sha256 for a pass over many files (a slice, used at once: see {@link BlockHex}). */
function hexOf(file: PackFile, hex: BlockHex): string {
  return file instanceof DecodedFile ? file.sha256Via(hex) : file.sha256;
}

/** sha256 of text added in pieces, handed to the hash in chunks (one native call per chunk). */
class ChunkedHash {
  #hash = createHash('sha256');
  #chunk: string;
  #pieces = 0;

  constructor(first: string) {
    this.#chunk = first;
  }

  add(piece: string): void {
    this.#chunk += piece;
    if (++this.#pieces < 256) return;
    this.#hash.update(this.#chunk);
    this.#chunk = '';
    this.#pieces = 0;
  }

  digest(): string {
    return this.#hash.update(this.#chunk).digest('hex');
  }
}

/** Calls `fn` for a map's entries in byte order of their keys (as they are when already so: a build's files are). */
function forEachInOrder<T>(map: ReadonlyMap<string, T>, fn: (value: T, key: string) => void): void {
  let last: string | undefined;
  for (const key of map.keys()) {
    if (last !== undefined && byteOrder(last, key) > 0) {
      for (const [k, v] of [...map].sort(([a], [b]) => byteOrder(a, b))) fn(v, k);
      return;
    }
    last = key;
  }
  map.forEach(fn);
}

/**
 * What decoding a build's files shares: where their digests are kept, and a faster YAML
 * reader for frontmatter, if any (see `ParseYamlOptions.fast`).
 */
export interface DecodeContext {
  digests: Digests;
  fast?: FastYaml;
  /** What is left of the pack's alias nodes (one build's): frontmatter aliases take from it. */
  aliases?: AliasBudget;
}

/**
 * A pack file decoded and split as a build does (strict UTF-8 unless raw; the frontmatter
 * by `mode`), or NOT_UTF8. A build reuses the last build's file for bytes it has seen
 * (see {@link DecodedFile.sameDecoding}), so an unchanged file is decoded once.
 */
export function decodePackFile(
  path: string,
  bytes: Uint8Array,
  mode: 'yaml' | Manifest['frontmatter'],
  isRaw: boolean,
  ctx: DecodeContext,
): ReturnType<typeof splitPackFile> | typeof NOT_UTF8 {
  // Most files of a large pack are plain ASCII without frontmatter: nothing to decode
  // now (the text is made from the bytes when first asked for).
  const plain = isRaw ? undefined : splitPlain(path, bytes, mode, ctx);
  if (plain !== undefined) return plain;
  const text = isRaw ? decodeLossy(bytes) : decodeText(bytes);
  return text === undefined ? NOT_UTF8 : splitPackFile(path, bytes, text, mode, isRaw, ctx);
}

/**
 * {@link splitPackFile}'s answer worked out on the bytes, for a plain file: every byte
 * ASCII and no carriage return (decoding normalises newlines), and either no frontmatter
 * (a prompt file not starting with `-`, or a YAML file) or strict frontmatter, of which
 * only the frontmatter itself is decoded and parsed. The body's trimmed size is counted
 * on the bytes; its text is made when first asked for. Undefined otherwise (the caller
 * decodes the whole file).
 */
function splitPlain(
  path: string,
  bytes: Uint8Array,
  mode: 'yaml' | Manifest['frontmatter'],
  ctx: DecodeContext,
): ReturnType<typeof splitPackFile> | undefined {
  if (!isPlainAscii(bytes)) return undefined;
  const n = bytes.length;
  // Lenient frontmatter after leading white space is reported (see splitFrontmatterLenient).
  if (mode === 'lenient' && n > 0 && isSpace(bytes[0]!)) return undefined;
  const fenced = n > 0 && (bytes[0] === DASH || bytes[0] === PLUS) && mode !== 'yaml' && mode !== 'none';
  if (!fenced) return new DecodedFile(path, bytes, NO_META, 0, trimmedSize(bytes, 0), 0, ctx.digests);
  // A `+++` fence (TOML frontmatter, said by the split) is split in full.
  if (mode !== 'strict' || bytes[0] === PLUS) return undefined;
  // Up to the line `---` that closes the frontmatter (as splitFrontmatter finds it).
  const close = closingFence(bytes);
  if (close === undefined) return undefined;
  const split = splitFrontmatter(decodeText(bytes.subarray(0, close))!, path, ctx.fast, ctx.aliases);
  if (split.bodyOffset !== close) {
    // Read again in full: what the aliases took is taken again.
    if (ctx.aliases && split.yaml?.aliasNodes) ctx.aliases.left += split.yaml.aliasNodes;
    return undefined;
  }
  const meta = Object.keys(split.meta).length > 0 ? split.meta : NO_META;
  const flags = (split.diagnostics.length > 0 ? PROBLEMS : 0) | (split.yaml?.aliasNodes ? ALIASED : 0);
  const file = new DecodedFile(path, bytes, meta, close, trimmedSize(bytes, close), flags, ctx.digests);
  return split.diagnostics.length > 0
    ? { file, split: { yaml: split.yaml, diagnostics: split.diagnostics } }
    : file;
}

/** The end of the line `---` closing frontmatter opened by `---\n` (after its newline), if any. */
function closingFence(bytes: Uint8Array): number | undefined {
  const n = bytes.length;
  if (n < 4 || bytes[1] !== DASH || bytes[2] !== DASH || bytes[3] !== NEWLINE) return undefined;
  let line = 4;
  while (line <= n) {
    let end = bytes.indexOf(NEWLINE, line);
    if (end === -1) end = n;
    if (end - line === 3 && bytes[line] === DASH && bytes[line + 1] === DASH && bytes[line + 2] === DASH)
      return end === n ? n : end + 1;
    if (end === n) return undefined;
    line = end + 1;
  }
  return undefined;
}

/** The size of `bytes[from..]` without the ASCII white space `String.prototype.trim` removes. */
function trimmedSize(bytes: Uint8Array, from: number): number {
  let start = from;
  let end = bytes.length;
  while (start < end && isSpace(bytes[start]!)) start++;
  while (end > start && isSpace(bytes[end - 1]!)) end--;
  return end - start;
}

/** Tab, line feed, vertical tab, form feed, space. */
function isSpace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0c);
}

const DASH = 0x2d;
const PLUS = 0x2b;
const NEWLINE = 0x0a;

/** Decodes one file's bytes (strict UTF-8, frontmatter split for prompt files). */
export function decodeFile(
  path: string,
  bytes: Uint8Array,
  diagnostics: Diagnostic[],
  frontmatter: Map<string, ParsedYaml>,
  ctx: DecodeContext,
): PackFile | undefined {
  const text = decodeText(bytes);
  if (text === undefined) {
    diagnostics.push(notTextDiagnostic(path, bytes, 'strict'));
    return undefined;
  }
  const decoded = splitPackFile(path, bytes, text, /\.ya?ml$/i.test(path) ? 'yaml' : 'strict', false, ctx);
  const { file, split } = decoded instanceof DecodedFile ? { file: decoded, split: undefined } : decoded;
  if (split) {
    diagnostics.push(...split.diagnostics);
    if (split.yaml) frontmatter.set(path, split.yaml);
  }
  return file;
}

/**
 * One decoded file: its frontmatter split off (by the manifest's frontmatter mode; none
 * for YAML files and `none`), and its trimmed prompt's size. Pure in its arguments, so the
 * build remembers it per bytes object; the split is kept with it only when it has problems
 * to report again (its parsed frontmatter is parsed again when a position is needed).
 */
export function splitPackFile(
  path: string,
  bytes: Uint8Array,
  text: string,
  mode: 'yaml' | Manifest['frontmatter'],
  isRaw: boolean,
  ctx: DecodeContext,
): DecodedFile | { file: DecodedFile; split: Pick<SplitFile, 'yaml' | 'diagnostics'> } {
  let split = mode === 'yaml' ? undefined : splitOf(text, path, mode, ctx.fast, ctx.aliases);
  // A raw file is read lossily: bytes that are no UTF-8 text are said, where they are.
  if (isRaw && !isUtf8Text(bytes)) {
    split ??= { meta: {}, body: text, bodyOffset: 0, diagnostics: [] };
    split.diagnostics = [notTextDiagnostic(path, bytes, 'lossy'), ...split.diagnostics];
  }
  const meta = split && Object.keys(split.meta).length > 0 ? split.meta : NO_META;
  const bodyOffset = split?.bodyOffset ?? 0;
  const prompt = (bodyOffset === 0 ? text : text.slice(bodyOffset)).trim();
  const flags =
    (isRaw ? RAW : 0) |
    (split?.retried && split.yaml ? RETRIED : 0) |
    (split && split.diagnostics.length > 0 ? PROBLEMS : 0) |
    (split?.yaml?.aliasNodes ? ALIASED : 0);
  const file = new DecodedFile(path, bytes, meta, bodyOffset, utf8Length(prompt), flags, ctx.digests);
  return split && split.diagnostics.length > 0
    ? { file, split: { yaml: split.yaml, diagnostics: split.diagnostics } }
    : file;
}

/** A prompt file's frontmatter split by the manifest's mode (none for `none`). */
export function splitOf(
  text: string,
  path: string,
  mode: Manifest['frontmatter'],
  fast?: FastYaml,
  aliases?: AliasBudget,
): (SplitFile & { retried?: boolean }) | undefined {
  if (mode === 'none') return undefined;
  return mode === 'lenient'
    ? splitFrontmatterLenient(text, path, fast, aliases)
    : splitFrontmatter(text, path, fast, aliases);
}

/** The memo's answer for bytes that are not UTF-8 (reported by the build, not kept). */
export const NOT_UTF8 = Symbol('not UTF-8');

/** The metadata of every file without any (one shared, frozen object). */
export const NO_META: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * {@link DecodedFile} flags: a raw file (text decoded lossily), frontmatter parsed on retry,
 * diagnostics given when it was decoded.
 */
const RAW = 1;
const RETRIED = 2;
const PROBLEMS = 4;
/** Frontmatter whose aliases took from the pack's alias nodes: decoded (and counted) again by each build. */
const ALIASED = 8;
const FLAG_BITS = 15;

/**
 * A {@link PackFile} that keeps only its bytes until it is first read as text: its text is
 * decoded from them then (decoding is deterministic: the text the build split), its
 * prompt and the prompt's hash on first use, and kept from then on (a file composed once
 * is composed again). Most files of a large pack are never composed in a process: a
 * loaded pack holds one copy of each file, its bytes. Its sha256 is kept as raw bytes
 * (see `digests.ts`), the hex made when asked for.
 */
export class DecodedFile implements PackFile {
  /**
   * Where the bytes are: a range of a buffer (a view object per file would cost 96 bytes;
   * readers share buffers between files, see `KeptFiles`).
   */
  readonly #buffer: ArrayBufferLike;
  readonly #offset: number;
  readonly #length: number;
  /** The block holding the bytes' sha256. */
  readonly #digests: Uint8Array;
  /**
   * Where in that block (a multiple of 32), with the flags ({@link RAW}, …) in its low
   * bits: one field for both.
   */
  readonly #spot: number;
  /** Text, prompt and prompt hash once made (none until the file is first read as text). */
  #made: Made | undefined;

  constructor(
    readonly path: string,
    bytes: Uint8Array,
    readonly meta: Readonly<Record<string, unknown>>,
    readonly bodyOffset: number,
    readonly promptBytes: number,
    flags: number,
    digests: Digests,
  ) {
    this.#buffer = bytes.buffer;
    this.#offset = bytes.byteOffset;
    this.#length = bytes.byteLength;
    const digest = digests.keep(bytes);
    this.#digests = digest.block;
    this.#spot = digest.at | flags;
  }

  /** sha256 of the raw bytes. */
  get sha256(): string {
    return digestHex(this.#digests, this.#spot & ~FLAG_BITS);
  }

  /** {@link sha256} read through `hex` (a pass over many files: see {@link BlockHex}). */
  sha256Via(hex: BlockHex): string {
    return hex.of(this.#digests, this.#spot & ~FLAG_BITS);
  }

  get text(): string {
    this.#made ??= { text: this.#spot & RAW ? decodeLossy(this.#bytes()) : decodeText(this.#bytes())! };
    return this.#made.text;
  }

  get prompt(): string {
    const text = this.text;
    const made = this.#made!;
    made.prompt ??= (this.bodyOffset === 0 ? text : text.slice(this.bodyOffset)).trim();
    return made.prompt;
  }

  get promptSha256(): string {
    const prompt = this.prompt;
    const made = this.#made!;
    made.promptSha256 ??= sha256(prompt);
    return made.promptSha256;
  }

  /**
   * Whether a build that decodes `bytes` in this file's mode (the same frontmatter mode,
   * raw or not) may take this file as it is: the same bytes object, which gave no
   * diagnostic when decoded (the build would report it again) and whose frontmatter has no
   * aliases (the build counts them against the pack's limit). The same bytes object: the
   * same range of the same buffer (see `sameBytes`).
   */
  sameDecoding(bytes: Uint8Array): boolean {
    return (
      bytes.buffer === this.#buffer &&
      bytes.byteOffset === this.#offset &&
      bytes.byteLength === this.#length &&
      (this.#spot & (PROBLEMS | ALIASED)) === 0
    );
  }

  get raw(): Uint8Array | undefined {
    return this.#spot & RAW ? this.#bytes() : undefined;
  }

  /** Whether the file is read raw: its text is the lossy decoding of its bytes (no view made). */
  get isRaw(): boolean {
    return (this.#spot & RAW) !== 0;
  }

  /** How many bytes the file has. */
  get byteLength(): number {
    return this.#length;
  }

  /** The UTF-8 length of {@link text}, measured once. */
  get textBytes(): number {
    const text = this.text;
    const made = this.#made!;
    made.textBytes ??= utf8Length(text);
    return made.textBytes;
  }

  get frontmatterRetried(): true | undefined {
    return this.#spot & RETRIED ? true : undefined;
  }

  #bytes(): Uint8Array {
    return new Uint8Array(this.#buffer, this.#offset, this.#length);
  }
}

interface Made {
  text: string;
  textBytes?: number;
  prompt?: string;
  promptSha256?: string;
}

/**
 * The key sets a file carries, for detection: a prompt file's frontmatter (read leniently),
 * a YAML file's top-level records. Never fails: unreadable content carries no keys.
 */
export function probeKeys(
  path: string,
  files: ReadonlyMap<string, Uint8Array>,
  yamlOf: (path: string) => ParsedYaml | undefined,
  fast?: FastYaml,
  aliases?: AliasBudget,
): ReadonlySet<string>[] {
  const bytes = files.get(path);
  if (!bytes) return [];
  if (/\.ya?ml$/i.test(path)) {
    // A file whose only problem is a repeated key still shows its shape (a file of
    // agents.yaml is read last-key-wins).
    const parsed = yamlOf(path);
    const value = parsed?.lastKeyWins ? parsed.lastKeyWins.value : parsed?.value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
    return Object.values(value).map(stringKeys);
  }
  return [stringKeys(splitFrontmatterLenient(decodeLossy(bytes), path, fast, aliases).meta)];
}

/** The keys of a mapping's string values (none for anything else). */
function stringKeys(o: unknown): ReadonlySet<string> {
  const keys = new Set<string>();
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return keys;
  const record = o as Record<string, unknown>;
  for (const k in record) if (Object.hasOwn(record, k) && typeof record[k] === 'string') keys.add(k);
  return keys;
}
