import type { Layouts } from '../layout.js';
import type { Manifest } from '../pack/manifest.js';
import type { ResolvedSettings } from '../pack/settings.js';
import type { Diagnostic } from '../text/diagnostics.js';
import type { Agent } from './fleet.js';
import type { PackFile } from './pack-file.js';
import type { RoleRecord } from './roles.js';

// The shapes of the build step: what goes in, what comes out.

/**
 * An immutable, fully validated, in-memory view of one pack version. Compose reads only
 * snapshots; nothing in one changes after it is built.
 */
export interface Snapshot {
  /** Content hash of the pack: same files and preset → same version on every machine. */
  version: string;
  /** The preset the manifest is (or extends), if any. */
  preset?: string;
  manifest: Manifest;
  files: ReadonlyMap<string, PackFile>;
  roles: ReadonlyMap<string, RoleRecord>;
  fleet: readonly Agent[];
  /** Settings resolved from defaults and env at load. */
  settings: ResolvedSettings;
  /** Folders below the root that hold a `.git` entry, from the reader (see BuildInput). */
  gitFolders?: readonly string[];
  /** Every folder below the root, from the reader (see BuildInput). */
  folders?: readonly string[];
  /**
   * Files that are there but could not be read, left out with a warning (`unreadable:
   * skip`): a symlink leaving the pack, a file over the size limit or one the system would
   * not open. A chain takes such a file as its folder's (no text), not the folder's next
   * candidate. A symlink to nothing is not one of them: no file is there.
   */
  unreadable?: ReadonlySet<string>;
  /**
   * Paths that could not be looked at (see BuildInput): a chain's walk that meets one
   * reads no file. Part of the version.
   */
  blocked?: ReadonlySet<string>;
  /**
   * A pack detected as a layout without roles that also holds layouts with roles: those
   * presets, in detection order, for the hint of a request naming a role.
   */
  alsoLayouts?: readonly string[];
  /** Absolute pack directory, when loaded from disk. */
  root?: string;
  /**
   * Files outside the pack that operator-set path settings name (a defaults override),
   * by absolute path. Part of the version; watched by the service.
   */
  external?: ReadonlyMap<string, PackFile>;
  /** Warnings found while loading (a snapshot never holds errors). */
  warnings: Diagnostic[];
  /**
   * The most bytes a prompt composed from this snapshot may have (default 4 MiB): a
   * compose that would make more fails with PROMPT_TOO_LARGE, as its text grows.
   */
  maxPromptBytes?: number;
  /** The layouts the snapshot was built knowing (its preset's extensions: input formats, record fill). */
  layouts?: Layouts;
}

export interface BuildInput {
  /** Pack-relative path (with `/`) → raw bytes. */
  files: ReadonlyMap<string, Uint8Array>;
  /** Problems the reader already found (unreadable files, symlinks out of the pack, …). */
  readDiagnostics?: Diagnostic[];
  /** Paths the reader refused (too large, unreadable): known to exist, never read. */
  refused?: ReadonlySet<string>;
  /**
   * The refused paths that are symlinks to nothing: with `unreadable: skip`, no file at
   * all (as a special file is), so a chain takes the folder's next candidate.
   */
  gone?: ReadonlySet<string>;
  /**
   * Paths whose lookup failed for another reason than a missing entry (a symlink loop), a
   * `.git` among them: a chain's walk that meets one (a `.git` on its way up to its start
   * folder, a folder's candidate before the file it takes) reads no file, as a walker that
   * fails there stops.
   */
  blocked?: ReadonlySet<string>;
  /**
   * Folders below the pack root that hold a `.git` entry (nested repositories,
   * submodules): where a `chain` with `start: git_root` begins. Part of the version.
   */
  gitFolders?: readonly string[];
  /**
   * Every folder below the root, when the reader walked them all (a folder's read): a
   * chain's folder that is none of them does not exist. Not part of the version.
   */
  folders?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
  /** Force a preset instead of the pack's manifest or its layout. */
  preset?: string;
  /** The most bytes a prompt composed from the snapshot may have (see `Snapshot.maxPromptBytes`). */
  maxPromptBytes?: number;
  /**
   * The layouts the pack may be (its presets, in detection order): what `extends:`,
   * `--preset` and detection know. None when absent: the pack's manifest says all it means.
   */
  layouts?: Layouts;
  root?: string;
  /**
   * Settings the operator gives (`serve --set`, CLI `--set`): over env, below the request.
   * Unknown names are ignored here (a request reports them).
   */
  operatorSettings?: Readonly<Record<string, unknown>>;
  /** Files outside the pack the reader read because path settings name them, by absolute path. */
  external?: ReadonlyMap<string, Uint8Array>;
  /**
   * An earlier snapshot of the same pack (a reload's served version): when only a few
   * files changed, and none that the manifest, registry or fleet are read from, the build
   * starts from it and decodes only those (same result as a full build, in a fraction of
   * the time). Unchanged files are recognised by their bytes objects, so pass the bytes a
   * reader reuses for unchanged files (the folder reader does).
   */
  previous?: Snapshot;
}

export interface LoadResult {
  /** The snapshot, when the pack has no errors. */
  snapshot?: Snapshot;
  /** Every error and warning, sorted by file and position. */
  diagnostics: Diagnostic[];
  /**
   * Absolute paths outside the pack that path settings name and that were not given in
   * `external`: read them and build again (the source layer's `buildWithExternal` does).
   */
  needs?: string[];
  /**
   * The pack's manifest when it resolved without error but a later step failed (a
   * snapshot has its own): what a reader needs to know which files the pack can select.
   */
  manifest?: Manifest;
}

/** The manifest file a pack may hold at its root. */
export const MANIFEST_FILE = 'strata.yaml';
