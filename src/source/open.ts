import { promises as fs } from 'node:fs';
import { type BuildInput, buildSnapshot, type LoadResult } from '../core/snapshot.js';
import { readPackAtRevision } from './git.js';
import { type PackFiles, readPackDir } from './read-dir.js';

/**
 * Where a pack comes from. Each kind has one reader in {@link READERS}; adding a kind is
 * one entry there (its type is the reader's first parameter).
 *
 * - `dir`: a folder on disk. `data` reads the files from another folder (a ConfigMap's
 *   `..data` target) while the pack keeps `dir`'s real path as its root.
 * - `git`: the folder `dir` as it is at revision `rev`, read from git's object store.
 * - `files`: in-memory files (path → bytes or text). An empty map is the empty pack,
 *   which the chorus preset answers with its fallback.
 */
export type PackSource = Parameters<(typeof READERS)[keyof typeof READERS]>[0];

/** How to open a pack: everything but where it comes from. */
export interface OpenOptions {
  /** Force a preset instead of the pack's manifest or its layout. */
  preset?: string;
  /** Environment for settings' env vars (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Refuse files larger than this (FILE_TOO_LARGE; default 1 MiB). */
  maxFileBytes?: number;
  /**
   * The pure step from files to a result (default {@link buildSnapshot}); `lintPack`
   * goes here to load and lint in one pass.
   */
  build?: (input: BuildInput) => LoadResult;
}

/**
 * Opens a pack: reads it from its source and builds the snapshot. Never throws on bad
 * content: every problem is a diagnostic, and `snapshot` is set only when there is no
 * error. The one way every command, the reloader and the runtime helper read a pack.
 *
 * @example
 * const { snapshot, diagnostics } = await openPack({ kind: 'dir', dir: 'examples/roboco' });
 * const base = await openPack({ kind: 'git', dir: 'examples/roboco', rev: 'HEAD~1' });
 * const mem = await openPack({ kind: 'files', files: new Map([['base.md', 'Be brief.']]) });
 */
export async function openPack(source: PackSource, options: OpenOptions = {}): Promise<LoadResult> {
  const reader = READERS[source.kind] as (s: PackSource, o: OpenOptions) => Promise<SourceRead>;
  const read = await reader(source, options);
  const build = options.build ?? buildSnapshot;
  const input: BuildInput = {
    files: read.files,
    readDiagnostics: read.diagnostics,
    refused: read.refused,
    env: options.env ?? process.env,
    preset: options.preset,
  };
  if (read.root !== undefined) input.root = read.root;
  return build(input);
}

/** The kinds of {@link PackSource}. */
export type PackSourceKind = PackSource['kind'];

// --- internal ---

/** What a reader hands to the pure build step. */
interface SourceRead extends Omit<PackFiles, 'root'> {
  root?: string;
}

const READERS = {
  dir: readDir,
  git: readGit,
  files: readMemory,
};

async function readDir(
  source: { kind: 'dir'; dir: string; data?: string },
  options: OpenOptions,
): Promise<SourceRead> {
  const read = await readPackDir(source.data ?? source.dir, { maxFileBytes: options.maxFileBytes });
  if (source.data === undefined) return read;
  const root = await fs.realpath(source.dir).catch(() => undefined);
  return { ...read, root: root ?? read.root };
}

async function readGit(
  source: { kind: 'git'; dir: string; rev: string; root?: string },
  options: OpenOptions,
): Promise<SourceRead> {
  const read = await readPackAtRevision(source.dir, source.rev, { maxFileBytes: options.maxFileBytes });
  return source.root === undefined ? read : { ...read, root: source.root };
}

async function readMemory(source: {
  kind: 'files';
  files: ReadonlyMap<string, Uint8Array | string>;
  root?: string;
}): Promise<SourceRead> {
  const files = new Map<string, Uint8Array>();
  for (const [path, content] of source.files)
    files.set(path, typeof content === 'string' ? new TextEncoder().encode(content) : content);
  const out: SourceRead = { files, refused: new Set(), diagnostics: [] };
  if (source.root !== undefined) out.root = source.root;
  return out;
}
