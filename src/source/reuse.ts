import type { ReadScope } from '../core/build/read-scope.js';
import type { FolderStamps } from './folder-stamps.js';
import { type FileStats, KeptFiles, SETTLED_MS } from './kept-files.js';

export { KeptFiles, SETTLED_MS };

/**
 * The bytes of files read recently, kept so that a reload reads only what changed: a file
 * whose identity (real path, inode, size, modification and change times) is what it was
 * when its bytes were read is not read again, and the same bytes object comes back, so
 * the build reuses the last build's decoding of it (and the per-bytes memo,
 * `core/parse-memo.ts`, its YAML parses).
 *
 * A file is reused only when its last change is more than {@link SETTLED_MS} older than the
 * moment its bytes were read: file times advance in coarse ticks, and a write in the same
 * tick as the read could otherwise keep the identity while changing the content (see
 * {@link KeptFiles}). Memory:
 * one pack's worth of bytes per root, for at most {@link MAX_ROOTS} roots; a root's
 * entries are replaced by each complete read of it.
 *
 * Beside a root's files it may keep a {@link ReadBase}: the folders of the last complete
 * read, when that read was simple enough for a hinted read to build on (see
 * `readPackDir`). A base is kept only by the read of the root that began last (a slower
 * read that began earlier cannot put back an older state), is taken out by each read as
 * it begins ({@link begin}), and is handed back only while the folder named leads to the
 * same root as at its last read.
 */
export class FileReuse {
  #roots = new Map<string, KeptFiles>();
  #bases = new Map<string, ReadBase>();
  /** The ticket of the read of each root that began last. */
  #begun = new Map<string, number>();
  #tickets = 0;
  /** The root each folder name led to when it was last read. */
  #aims = new Map<string, string>();
  /** What each root's last complete read saw beside its files, and the ticket of that read. */
  #seen = new Map<string, { ticket: number; seen: ReadSeen }>();

  /**
   * The bytes read earlier for this file, when the file these stats (and `odd`, see
   * {@link KeptFiles}) describe is the one they were read from and it had settled then.
   */
  get(root: string, rel: string, st: FileStats, odd?: string): Uint8Array | undefined {
    return this.#roots.get(root)?.unchanged(rel, st, odd);
  }

  /** The bytes last kept for a file, whatever its identity now (to compare a new read with). */
  kept(root: string, rel: string): Uint8Array | undefined {
    return this.#roots.get(root)?.get(rel);
  }

  /** Whether anything is kept for this root (a read of it would find files to reuse). */
  has(root: string): boolean {
    return this.#roots.has(root);
  }

  /**
   * Replaces what is kept for a root with the files of one complete read, and its base
   * when the read gives one and is the read of the root that began last (`ticket` from
   * {@link begin}); otherwise the root has no base.
   */
  keep(root: string, entries: KeptFiles, base?: ReadBase, ticket?: number, seen?: ReadSeen): void {
    entries.trim();
    this.#roots.delete(root);
    this.#roots.set(root, entries);
    if (base && ticket !== undefined && this.#begun.get(root) === ticket) this.#bases.set(root, base);
    else this.#bases.delete(root);
    if (seen && ticket !== undefined) this.#seen.set(root, { ticket, seen });
    else this.#seen.delete(root);
    while (this.#roots.size > MAX_ROOTS) {
      const oldest = this.#roots.keys().next().value!;
      this.#roots.delete(oldest);
      this.#bases.delete(oldest);
      this.#begun.delete(oldest);
      this.#seen.delete(oldest);
    }
  }

  /**
   * The last read of the folder named `dir` (an absolute path), as it saw the pack: its
   * real root, its files and what it saw beside them — when that read was complete and no
   * read of the root has begun since. Undefined otherwise (never read, a read under way,
   * a read that stopped at a limit or could not open the root): then only a read can say
   * what the pack is.
   */
  lastRead(dir: string): LastRead | undefined {
    const root = this.#aims.get(dir);
    if (root === undefined) return undefined;
    const seen = this.#seen.get(root);
    const files = this.#roots.get(root);
    if (!seen || !files || this.#begun.get(root) !== seen.ticket) return undefined;
    return { root, files, ...seen.seen };
  }

  /**
   * A read of the folder named `dir` begins, at real path `root`, with options `key`:
   * returns its ticket (for {@link keep}) and takes the root's base out — until a read
   * keeps a new one, every read of the root is full. The base comes back only when `dir`
   * led to this root at its last read too (a hinted read builds only on a read of the
   * root its watcher watched) and it was read with the same options.
   */
  begin(
    dir: string,
    root: string,
    key: string,
  ): { ticket: number; base?: { base: ReadBase; entries: KeptFiles; folders: FolderStamps } } {
    const ticket = ++this.#tickets;
    this.#begun.delete(root);
    this.#begun.set(root, ticket);
    const sameRoot = this.#aims.get(dir) === root;
    this.#aims.delete(dir);
    this.#aims.set(dir, root);
    while (this.#aims.size > MAX_NAMES) this.#aims.delete(this.#aims.keys().next().value!);
    while (this.#begun.size > MAX_NAMES) this.#begun.delete(this.#begun.keys().next().value!);
    const base = this.#bases.get(root);
    const entries = this.#roots.get(root);
    const folders = this.#seen.get(root)?.seen.folders;
    this.#bases.delete(root);
    if (!sameRoot || !base || !entries || !folders || base.key !== key) return { ticket };
    return { ticket, base: { base, entries, folders } };
  }

  /** Forgets everything (tests, and a process that stops serving a pack). */
  clear(): void {
    this.#roots.clear();
    this.#bases.clear();
    this.#begun.clear();
    this.#aims.clear();
    this.#seen.clear();
  }
}

/**
 * What a complete read saw of a pack beside its files' bytes and identities: enough to
 * tell, without reading any file, whether the pack on disk is still what it read (see
 * `PackCheck`).
 */
export interface ReadSeen {
  /** Each folder listed (the root as `''`), stamped before it was listed. */
  folders: FolderStamps;
  /**
   * Whether the read met a problem (a diagnostic, a refused entry): whether that is mended
   * only a read can tell.
   */
  problems: boolean;
  /** Whether the read went through a symlink or a ConfigMap's `..data`. */
  linked: boolean;
  /** Folders below the root holding a `.git` entry. */
  gitFolders: readonly string[];
  /** Hidden folder names walked into. */
  hidden: ReadonlySet<string>;
  /** The read scope, when the read brought only the files a pack can select. */
  scope?: ReadScope;
}

/** The last complete read of a root: see {@link FileReuse.lastRead}. */
export interface LastRead extends ReadSeen {
  /** The real root. */
  root: string;
  /** Its files, with the identity each was read with (never changed once kept). */
  files: KeptFiles;
}

/**
 * What a hinted read builds on besides the files: every folder of the pack (relative
 * paths, the root not included) as of the last complete read, which was simple (no
 * symlink anywhere, no ConfigMap `..data`, no diagnostic, nothing refused), and the
 * options it was read with.
 */
export interface ReadBase {
  folders: Set<string>;
  /** The hidden folders read and the limits, as one string: a read with others is full. */
  key: string;
  /**
   * The files that read gave (the map handed to the build): a hinted read that only finds
   * new bytes for some files gives them layered over this map, not a copy of it.
   */
  files: ReadonlyMap<string, Uint8Array>;
  /** The total size of those files, in bytes (the pack size limit's running count). */
  bytes: number;
  /** Folders holding a `.git` entry, as that read saw them (a hinted read keeps them). */
  gitFolders?: string[];
}

/** Pack roots remembered at once. */
export const MAX_ROOTS = 4;
/** Folder names (and roots) whose last read is remembered. */
const MAX_NAMES = 64;

/** The process's reuse cache, shared by every folder read. */
export const fileReuse = new FileReuse();
