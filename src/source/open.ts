import { presetHiddenFolders, presetManifest } from '../core/build/detect.js';
import { detectionScope, type ReadScope, readScopeOf } from '../core/build/read-scope.js';
import type { BuildInput, LoadResult, Snapshot } from '../core/build/snapshot.js';
import { defaultEngine } from '../engine/default-engine.js';
import type { Engine } from '../engine/engine.js';
import { isBundlePath, readPackBundle, readStableBundle } from './bundle.js';
import { buildWithExternal } from './external.js';
import { readPackAtRevision } from './git.js';
import type { PackLimits } from './limits.js';
import { type PackFiles, readPackDir } from './read-dir.js';
import { Slices } from './slices.js';
import { sourceShapeProblem } from './source-shape.js';
import { readStablePack, type StableReadOptions } from './stable-read.js';

/**
 * Where a pack comes from. Each kind has one reader in {@link READERS}; adding a kind is
 * one entry there (its type is the reader's first parameter).
 *
 * - `dir`: a folder on disk (a plain folder or a ConfigMap volume; see `readPackDir`) — or
 *   a bundle file, read as `bundle`.
 * - `bundle`: one gzip'd tar of a pack (`strata bundle`), read with the same limits.
 * - `git`: the folder `dir` as it is at revision `rev`, read from git's object store.
 * - `files`: in-memory files (path → bytes or text). An empty map is the empty pack,
 *   which the chorus preset answers with its fallback.
 */
export type PackSource = Parameters<(typeof READERS)[keyof typeof READERS]>[0];

/** How to open a pack: everything but where it comes from; the limits of reading it. */
export interface OpenOptions extends PackLimits {
  /** Force a preset instead of the pack's manifest or its layout. */
  preset?: string;
  /** Environment for settings' env vars (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The operator's settings (`serve --set`, CLI `--set`): over env, below requests. A path
   * setting among them (or from env or the manifest) may name a file outside the pack.
   */
  settings?: Readonly<Record<string, unknown>>;
  /**
   * Read a folder only in a consistent state (the reloader's rule: no file changed across
   * the read and the pack had been quiet; PACK_UNSTABLE otherwise). See `readStablePack`.
   */
  stable?: Omit<StableReadOptions, keyof PackLimits>;
  /**
   * A folder's paths that may have changed since its last complete read in this process
   * (`/`-separated, relative to the pack): only those are looked at when that is safe
   * (see `readPackDir`); the result is the same as a full read's. Folders only.
   */
  hints?: readonly string[];
  /** Hidden folder names to read (default: those a built-in preset reads, plus the manifest's `hidden:`). */
  hidden?: readonly string[];
  /**
   * The pure step from files to a result (default: the engine's `buildSnapshot`); `lintPack`
   * goes here to load and lint in one pass.
   */
  build?: (input: BuildInput) => LoadResult;
  /**
   * An earlier snapshot of the same pack: the build starts from it when only a few files
   * changed (see `BuildInput.previous`); the result is the same as without it.
   */
  previous?: Snapshot;
  /** The engine that builds the snapshot (default: the library's shared one). */
  engine?: Engine;
}

/**
 * Opens a pack: reads it from its source and builds the snapshot. Never throws on bad
 * content: every problem is a diagnostic, and `snapshot` is set only when there is no
 * error; a source or options of the wrong shape (from untyped code) is a BAD_REQUEST
 * diagnostic. The one way every command, the reloader and the runtime helper read a pack.
 *
 * @example
 * const { snapshot, diagnostics } = await openPack({ kind: 'dir', dir: 'examples/roboco' });
 * const base = await openPack({ kind: 'git', dir: 'examples/roboco', rev: 'HEAD~1' });
 * const mem = await openPack({ kind: 'files', files: new Map([['base.md', 'Be brief.']]) });
 */
export async function openPack(source: PackSource, options: OpenOptions = {}): Promise<OpenResult> {
  const problem = sourceShapeProblem(source, options, Object.keys(READERS));
  if (problem) return { diagnostics: [problem] };
  const hidden = options.hidden ?? presetHiddenFolders((options.engine ?? defaultEngine).layouts);
  const result = await readAndBuild(source, { ...options, hidden });
  // A manifest may opt in hidden folders no preset reads: read again with them (a failed
  // build's sound manifest too: a file it names may be in one of them).
  const manifest = result.snapshot?.manifest ?? result.manifest;
  const more = manifest?.hidden.filter((n) => !hidden.includes(n)) ?? [];
  return more.length > 0 ? readAndBuild(source, { ...options, hidden: [...hidden, ...more] }) : result;
}

/** What {@link openPack} gives: the load, and for a folder how it was read. */
export type OpenResult = LoadResult & {
  /** A folder's read: `hinted` (only the hinted paths looked at) or `full`. */
  read?: 'hinted' | 'full';
  /** A folder's read: how many files it opened (the others' bytes were reused). */
  filesRead?: number;
};

/** The kinds of {@link PackSource}. */
export type PackSourceKind = PackSource['kind'];

// --- internal ---

/**
 * Reads and builds a pack; a folder (or a git revision of one) is read for the files its pack can select (see
 * `readScopeOf`), so that a project root read for its AGENTS.md files does not read, or
 * count against the limits, everything else it holds. The scope is worked out from the
 * last build (`previous`) or a forced preset; when nothing is known the whole folder is
 * read, and only when that is over the file-count or size limit is the pack worked out
 * from the files that decide it (strata.yaml, those preset detection looks at). A build
 * whose manifest asks for another scope than the one read is read again with its own
 * (or whole, when the build failed), so the result is always what a whole read gives.
 */
async function readAndBuild(source: PackSource, options: OpenOptions): Promise<OpenResult> {
  if (source.kind !== 'dir' && source.kind !== 'git') return readAndBuildOnce(source, options);
  const layouts = (options.engine ?? defaultEngine).layouts;
  const preset = options.preset === undefined ? undefined : presetManifest(layouts, options.preset);
  const guess = options.previous
    ? readScopeOf(options.previous.manifest, layouts)
    : preset && readScopeOf(preset, layouts);
  if (guess === undefined) {
    const whole = await readAndBuildOnce(source, options);
    if (options.previous || !whole.diagnostics.some((d) => OVER_LIMITS.has(d.code))) return whole;
    const probe = await readAndBuildOnce(source, { ...options, scope: detectionScope(layouts) });
    const manifest = probe.snapshot?.manifest ?? probe.manifest;
    const scope = manifest && readScopeOf(manifest, layouts);
    return scope ? scoped(source, options, scope, whole) : whole;
  }
  return scoped(source, options, guess);
}

/**
 * A read and build with `scope`, checked: when the pack's manifest now asks for another
 * scope, read again with that one (or whole, when it has no manifest or selects every
 * file: `whole`, if that read was made already).
 */
async function scoped(
  source: PackSource,
  options: OpenOptions,
  scope: ReadScope,
  whole?: OpenResult,
): Promise<OpenResult> {
  const result = await readAndBuildOnce(source, { ...options, scope });
  const manifest = result.snapshot?.manifest ?? result.manifest;
  const wanted = manifest && readScopeOf(manifest, (options.engine ?? defaultEngine).layouts);
  if (wanted?.key === scope.key) return result;
  // No manifest (strata.yaml does not parse), or one without `files:`: every file.
  if (!wanted) return whole ?? readAndBuildOnce(source, options);
  return readAndBuildOnce(source, { ...options, scope: wanted });
}

/** Reader errors of a pack too large to read whole. */
const OVER_LIMITS: ReadonlySet<string> = new Set(['TOO_MANY_FILES', 'PACK_TOO_LARGE']);

async function readAndBuildOnce(
  source: PackSource,
  options: OpenOptions & { scope?: ReadScope },
): Promise<OpenResult> {
  const reader = READERS[source.kind] as (s: PackSource, o: OpenOptions) => Promise<SourceRead>;
  const read = await reader(source, options);
  // A consistent read is a reload's (or a service's start): its build runs in slices, so
  // the service keeps answering while a large pack is built.
  const engine = options.engine ?? defaultEngine;
  const build =
    options.build ??
    (options.stable
      ? (i: BuildInput) => engine.buildSnapshotSliced(i, new Slices(Number.POSITIVE_INFINITY))
      : (i: BuildInput) => engine.buildSnapshot(i));
  const input: BuildInput = {
    files: read.files,
    readDiagnostics: read.diagnostics,
    refused: read.refused,
    env: options.env ?? process.env,
    preset: options.preset,
  };
  if (read.root !== undefined) input.root = read.root;
  if (read.gitFolders !== undefined) input.gitFolders = read.gitFolders;
  if (read.gone !== undefined) input.gone = read.gone;
  if (read.blocked !== undefined) input.blocked = read.blocked;
  if (read.folders !== undefined) input.folders = read.folders;
  if (options.settings !== undefined) input.operatorSettings = options.settings;
  if (options.previous !== undefined) input.previous = options.previous;
  if (options.maxPromptBytes !== undefined) input.maxPromptBytes = options.maxPromptBytes;
  // Files outside the pack that path settings name are read here too (one more build).
  const result: OpenResult = await buildWithExternal(input, build, options.maxFileBytes);
  if (read.read) result.read = read.read;
  if (read.filesRead !== undefined) result.filesRead = read.filesRead;
  return result;
}

/** What a reader hands to the pure build step. */
interface SourceRead extends Omit<PackFiles, 'root'> {
  root?: string;
  /** Folders below the root holding a `.git` entry (a folder's read). */
  gitFolders?: string[];
  /** Every folder below the root (a folder's read). */
  folders?: string[];
  /** A folder's read: whole, or only hinted paths. */
  read?: 'hinted' | 'full';
  /** A folder's read: the files it opened. */
  filesRead?: number;
}

const READERS = {
  dir: readDir,
  bundle: readBundle,
  git: readGit,
  files: readMemory,
};

async function readDir(
  source: { kind: 'dir'; dir: string },
  options: OpenOptions & { scope?: ReadScope },
): Promise<SourceRead> {
  if (await isBundlePath(source.dir)) return readBundle({ kind: 'bundle', file: source.dir }, options);
  const limits = { ...limitsOf(options), hidden: options.hidden, hints: options.hints, scope: options.scope };
  const read = await (options.stable
    ? readStablePack(source.dir, { ...limits, ...options.stable })
    : readPackDir(source.dir, limits));
  return { ...read, read: read.hinted ? 'hinted' : 'full' };
}

async function readBundle(
  source: { kind: 'bundle'; file: string },
  options: OpenOptions,
): Promise<SourceRead> {
  const limits = { ...limitsOf(options), hidden: options.hidden };
  return options.stable
    ? readStableBundle(source.file, { ...limits, ...options.stable })
    : readPackBundle(source.file, limits);
}

async function readGit(
  source: { kind: 'git'; dir: string; rev: string; root?: string },
  options: OpenOptions & { scope?: ReadScope },
): Promise<SourceRead> {
  const read = await readPackAtRevision(source.dir, source.rev, {
    ...limitsOf(options),
    scope: options.scope,
    hidden: options.hidden,
  });
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

function limitsOf(options: OpenOptions): PackLimits {
  return {
    maxFileBytes: options.maxFileBytes,
    maxPackBytes: options.maxPackBytes,
    maxFiles: options.maxFiles,
    readTimeoutMs: options.readTimeoutMs,
  };
}
