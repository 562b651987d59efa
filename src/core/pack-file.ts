import { type Diagnostic, error } from './diagnostics.js';
import { type SplitFile, splitFrontmatter, splitFrontmatterLenient } from './frontmatter.js';
import type { Manifest } from './manifest.js';
import { byteOrder, decodeText, firstInvalidUtf8, sha256, utf8Length } from './text.js';
import type { ParsedYaml } from './yaml.js';

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
  /** Set when the frontmatter parsed only after its values were quoted (`frontmatter: lenient`). */
  frontmatterRetried?: true;
}

/** The version of a pack: sha256 over its preset, files, refused paths and outside files. */
export function packVersion(
  files: ReadonlyMap<string, PackFile>,
  refused: readonly string[],
  preset: string,
  external: ReadonlyMap<string, PackFile>,
): string {
  const lines = [`preset ${preset}`];
  for (const [path, file] of [...files].sort(([a], [b]) => byteOrder(a, b)))
    lines.push(`${file.sha256} ${path}`);
  for (const path of [...refused].sort(byteOrder)) lines.push(`refused ${path}`);
  for (const [path, file] of [...external].sort(([a], [b]) => byteOrder(a, b)))
    lines.push(`external ${file.sha256} ${path}`);
  return sha256(lines.join('\n')).slice(0, 16);
}

const fileSteps = new Map<string, string>();

/** The memo step of {@link splitPackFile} for a mode (one string per mode, not per file). */
export function fileStep(mode: string, isRaw: boolean): string {
  const key = isRaw ? `${mode}\0raw` : mode;
  let step = fileSteps.get(key);
  if (step === undefined) {
    step = `file\0${key}`;
    fileSteps.set(key, step);
  }
  return step;
}

/** Decodes one file's bytes (strict UTF-8, frontmatter split for prompt files). */
export function decodeFile(
  path: string,
  bytes: Uint8Array,
  diagnostics: Diagnostic[],
  frontmatter: Map<string, ParsedYaml>,
): PackFile | undefined {
  const text = decodeText(bytes);
  if (text === undefined) {
    const offset = firstInvalidUtf8(bytes);
    diagnostics.push(
      error('INVALID_UTF8', `file is not valid UTF-8 (first bad byte at offset ${offset})`, { file: path }),
    );
    return undefined;
  }
  const decoded = splitPackFile(path, bytes, text, /\.ya?ml$/i.test(path) ? 'yaml' : 'strict', false);
  const { file, split } = decoded instanceof DecodedFile ? { file: decoded, split: undefined } : decoded;
  if (split) {
    diagnostics.push(...split.diagnostics);
    if (split.yaml) frontmatter.set(path, split.yaml);
  }
  return file;
}

/**
 * One decoded file: its frontmatter split off (by the manifest's frontmatter mode; none
 * for YAML files and `none`), and its trimmed prompt. Pure in its arguments, so the build
 * remembers it per bytes object; the split is kept with it only when it has something to
 * say (parsed frontmatter to locate values in, or problems).
 */
export function splitPackFile(
  path: string,
  bytes: Uint8Array,
  text: string,
  mode: 'yaml' | Manifest['frontmatter'],
  isRaw: boolean,
): DecodedFile | { file: DecodedFile; split: SplitFile & { retried?: boolean } } {
  let split: (SplitFile & { retried?: boolean }) | undefined;
  if (mode !== 'yaml' && mode !== 'none')
    split = mode === 'lenient' ? splitFrontmatterLenient(text, path) : splitFrontmatter(text, path);
  const meta = split && Object.keys(split.meta).length > 0 ? split.meta : NO_META;
  const file = new DecodedFile(path, sha256(bytes), text, meta, (split ? split.body : text).trim());
  if (split?.bodyOffset) file.bodyOffset = split.bodyOffset;
  if (isRaw) file.raw = bytes;
  if (split?.retried && split.yaml) file.frontmatterRetried = true;
  return split && (split.yaml || split.diagnostics.length > 0) ? { file, split } : file;
}

/** The metadata of every file without any (one shared, frozen object). */
export const NO_META: Readonly<Record<string, unknown>> = Object.freeze({});

/** A {@link PackFile}: its prompt's hash computed on first use (most files of a large pack are never composed in a process). */
export class DecodedFile implements PackFile {
  #promptSha256: string | undefined;
  readonly promptBytes: number;
  bodyOffset = 0;
  declare raw?: Uint8Array;
  declare frontmatterRetried?: true;

  constructor(
    readonly path: string,
    readonly sha256: string,
    readonly text: string,
    readonly meta: Readonly<Record<string, unknown>>,
    readonly prompt: string,
  ) {
    this.promptBytes = utf8Length(prompt);
  }

  get promptSha256(): string {
    this.#promptSha256 ??= sha256(this.prompt);
    return this.#promptSha256;
  }
}
