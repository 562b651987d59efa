import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import { sep } from 'node:path';
import type { ReadScope } from '../core/build/read-scope.js';
import { hiddenEntryAllowed } from '../core/pack/select.js';
import { byteOrder } from '../core/text/text.js';
import { LayeredMap } from '../engine/incremental/layered-map.js';
import { sameContent } from '../engine/incremental/same-bytes.js';
import { changedSince, EntryHash, FILE_LIKE, oddKey } from './entry-identity.js';
import type { FolderStamps } from './folder-stamps.js';
import { readFully } from './read-file.js';
import type { KeptFiles, ReadBase } from './reuse.js';
import type { Slices } from './slices.js';

/** The limits a hinted read keeps to (those of the full read it stands in for). */
export interface HintedLimits {
  maxFileBytes: number;
  maxPackBytes: number;
  maxFiles: number;
  /** Hidden folder names walked into. */
  hidden: ReadonlySet<string>;
  /** Take each file's change time again just after reading it. */
  recheck: boolean;
  /** Only files the pack can select are read (as the full read: see `ReadPackOptions.scope`). */
  scope?: ReadScope;
}

/** What a hinted read found: the pack's files, and what to keep for the next read. */
export interface HintedRead {
  files: ReadonlyMap<string, Uint8Array>;
  /** `hinted` and a sha256 of the lines of what this read looked at (see {@link readHinted}). */
  identity: string;
  newestChangeMs: number;
  /** Every file of the pack, for the reuse cache (the next read's base). */
  entries: KeptFiles;
  base: ReadBase;
  /** The folders' stamps: the last read's, with those of the folders this read listed. */
  folders: FolderStamps;
  /** How many files this read opened to read their bytes. */
  filesRead: number;
}

/**
 * Reads only the paths a watcher named (`hints`, relative, `/`-separated) on top of the
 * last complete read of the pack (`taken`: its files and folders), and gives exactly the
 * files a full read would find, or undefined when it cannot be sure (the caller then
 * reads the whole pack). Each hinted path is looked at once, parents before children:
 * - a regular file is compared by identity (kind, inode, size, change times) with the
 *   file kept, and read only when it changed or changed too recently for its identity to
 *   pin its content (`SETTLED_MS`), without blocking or following a symlink;
 * - a path that is gone is dropped, with everything kept under it;
 * - a folder is listed again: new entries are read (a new folder is walked as the full
 *   read walks it), vanished ones dropped;
 * - a path under a folder that is neither kept nor on disk is nothing (a full read could
 *   not reach it); a hidden path the read does not walk into is not part of the pack.
 * Anything else means a full read: a hint through `..` or a `..`-prefixed entry, a
 * symlink, a FIFO, socket or device, a folder named like a file, a hinted path's parent
 * folder that is missing, is no plain folder or is reached through a symlink, an entry
 * under a folder that was not kept, a file over the size limit or that cannot be read,
 * more files and folders or bytes than the limits allow. A full read then finds the
 * problem and says it, with its diagnostic.
 *
 * Identity: the read's `identity` covers the hint list itself, every hinted entry (its
 * identity as looked at, or `gone`), each entry of a folder listed again that was
 * not kept, and each hinted path's parent folder and each folder listed (identity
 * taken after the entries were looked at). `newestChangeMs` is the latest change time
 * among those files (also taken again just after reading with `recheck`) and folders. Two
 * hinted reads with the same hints agree only when none of those changed in between.
 */
export async function readHinted(
  root: string,
  hints: readonly string[],
  taken: { base: ReadBase; entries: KeptFiles; folders: FolderStamps },
  limits: HintedLimits,
  slices: Slices,
): Promise<HintedRead | undefined> {
  const paths = plainPaths(hints, limits.hidden);
  if (!paths) return undefined;
  const read = new Hinted(root, taken.entries, taken.base.folders, taken.base.bytes, limits, slices);
  read.stamps = taken.folders.clone();
  read.ids.line(`hinted\0${paths.join('\0')}`);
  try {
    for (const path of paths) {
      if (slices.due) await slices.pause();
      await read.look(path);
    }
    read.settleFolders();
    read.checkLimits();
  } catch (e) {
    if (e === FULL) return undefined;
    throw e;
  }
  const files = read.files(taken.base.files);
  return {
    files,
    identity: read.ids.digest(),
    newestChangeMs: read.newest,
    entries: read.entries,
    folders: read.stamps,
    filesRead: read.filesRead,
    base: {
      folders: read.folders,
      key: taken.base.key,
      files,
      bytes: read.bytes,
      ...(taken.base.gitFolders ? { gitFolders: taken.base.gitFolders } : {}),
    },
  };
}

// --- internal ---

/** Thrown inside a hinted read when only a full read can say what the pack is. */
const FULL = Symbol('full read');

/** Hints past this many are not worth looking at one by one. */
const MAX_PATHS = 4096;

/**
 * The hints as paths to look at (deduplicated, parents before children), without those
 * inside hidden folders the read does not walk into; undefined when any is not a plain
 * path inside the pack.
 */
function plainPaths(hints: readonly string[], hidden: ReadonlySet<string>): string[] | undefined {
  if (hints.length > MAX_PATHS) return undefined;
  const paths = new Set<string>();
  for (const hint of hints) {
    const parts = hint.split('/');
    let skip = false;
    let folder = '';
    for (const part of parts) {
      if (part === '' || part === '.' || part.startsWith('..') || part.includes('\0')) return undefined;
      if (!hiddenEntryAllowed(hidden, folder, part)) skip = true;
      folder = folder === '' ? part : `${folder}/${part}`;
    }
    if (!skip) paths.add(hint);
  }
  return [...paths].sort((a, b) => depth(a) - depth(b) || byteOrder(a, b));
}

class Hinted {
  ids = new EntryHash();
  newest = 0;
  /** Each folder's stamp: a folder listed or walked by this read is stamped as it was just before. */
  stamps!: FolderStamps;
  /** Files opened to read their bytes. */
  filesRead = 0;
  readonly #startedAtMs = Date.now();
  /** Parent folders of hinted paths: their identity is taken once every path is looked at. */
  #parents = new Set<string>();
  /** Folders known to be plain folders reached without symlinks, during this read. */
  #plain = new Set<string>(['']);
  /** Each folder's kept children, built the first time a folder is listed again or dropped. */
  #children: Map<string, Set<string>> | undefined;
  /** Paths this read has read or walked. */
  #seen = new Set<string>();
  /** Files read again in place of a kept one, with their new bytes. */
  #reread = new Map<string, Uint8Array>();
  /** Whether a file was added or dropped (the files are then not the base's keys). */
  #reshaped = false;
  /**
   * The pack's files as kept: at first those of the last read, which are that read's
   * files (never changed); copied before the first change.
   */
  #entries: KeptFiles;
  #copied = false;

  constructor(
    readonly root: string,
    entries: KeptFiles,
    readonly folders: Set<string>,
    /** The total size of the kept files, kept up to date as files are read and dropped. */
    public bytes: number,
    readonly limits: HintedLimits,
    readonly slices: Slices,
  ) {
    this.#entries = entries;
  }

  /** Every file of the pack as this read leaves it. */
  get entries(): KeptFiles {
    return this.#entries;
  }

  /**
   * The pack's files after this read: the base's with the files read again layered over
   * them when no file was added or dropped; otherwise every kept file.
   */
  files(base: ReadonlyMap<string, Uint8Array>): ReadonlyMap<string, Uint8Array> {
    if (!this.#reshaped && base.size === this.entries.size) return LayeredMap.over(base, this.#reread);
    return this.entries;
  }

  /** The kept files, to change (a copy of the last read's, made once). */
  #changing(): KeptFiles {
    if (!this.#copied) {
      this.#entries = this.#entries.clone();
      this.#copied = true;
    }
    return this.#entries;
  }

  async look(rel: string): Promise<void> {
    // Already read or walked by this read (an entry of a folder hinted before it).
    if (this.#seen.has(rel)) return;
    const parent = parentOf(rel);
    if (parent !== '' && !this.folders.has(parent)) {
      // Nothing is kept under a folder the pack did not have: the path is part of the
      // pack only if it exists, and then that folder was missed.
      if (this.#lstat(rel) === undefined) {
        this.ids.line(`${rel}\0gone`);
        return;
      }
      throw FULL;
    }
    this.#plainFolder(parent);
    this.#parents.add(parent);
    const st = this.#lstat(rel);
    if (st === undefined) {
      this.ids.line(`${rel}\0gone`);
      this.#drop(rel);
    } else if (st.isFile()) {
      if (this.folders.has(rel)) this.#drop(rel);
      if (this.#selects(rel)) this.#file(rel, st);
    } else if (st.isDirectory()) {
      if (FILE_LIKE.test(nameOf(rel))) throw FULL;
      this.ids.entry(rel, this.#real(rel), st, this.#real(rel));
      this.#dropFile(rel);
      this.stamps.set(rel, st, this.#startedAtMs);
      if (this.folders.has(rel)) await this.#relist(rel);
      else await this.#walk(rel);
    } else throw FULL;
  }

  /** Takes each hinted path's parent folder's identity, now that its entries were looked at. */
  settleFolders(): void {
    for (const folder of [...this.#parents].sort(byteOrder)) {
      if (folder !== '' && !this.folders.has(folder)) continue;
      this.#folderLine(folder);
    }
  }

  /** The full read's count and size limits; over either, the full read says so. */
  checkLimits(): void {
    if (this.entries.size + this.folders.size > this.limits.maxFiles) throw FULL;
    if (this.bytes > this.limits.maxPackBytes) throw FULL;
  }

  /** A regular file: the kept bytes when its identity pins them, else read now. */
  #file(rel: string, st: Stats): void {
    const real = this.#real(rel);
    if (this.entries.unchanged(rel, st, oddKey(true, real, st, real))) {
      this.ids.entry(rel, real, st, real);
      this.newest = Math.max(this.newest, st.mtimeMs, st.ctimeMs);
      return;
    }
    this.#read(rel);
  }

  /** Reads a file as the full read does (no blocking, no symlink, limits); FULL on any problem. */
  #read(rel: string): void {
    const real = this.#real(rel);
    const readAtMs = Date.now();
    let fd: number;
    try {
      fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    } catch {
      throw FULL;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw FULL;
      this.filesRead++;
      const size = st.size;
      if (size > this.limits.maxFileBytes) throw FULL;
      this.ids.entry(rel, real, st, fd);
      this.newest = Math.max(this.newest, st.mtimeMs, st.ctimeMs);
      const bytes = new Uint8Array(size);
      const read = readFully(fd, bytes);
      const before = this.entries.get(rel);
      // The bytes kept, when they are the ones read: the kept range goes on (no change).
      const kept = before && sameContent(before, read) ? before : read;
      this.#changing().set(rel, kept, st, readAtMs, oddKey(true, real, st, fd));
      this.bytes += kept.length - (before?.length ?? 0);
      if (before) {
        if (kept !== before) this.#reread.set(rel, kept);
      } else {
        this.#reshaped = true;
        this.stamps.addEntries(parentOf(rel), 1);
      }
    } catch (e) {
      throw e === FULL ? e : FULL;
    } finally {
      closeSync(fd);
    }
    this.#seen.add(rel);
    this.#indexed(rel);
    if (this.limits.recheck) this.newest = Math.max(this.newest, changedSince(real));
  }

  /** A kept folder listed again: new entries looked at, vanished ones dropped. */
  async #relist(rel: string): Promise<void> {
    this.#plainFolder(rel);
    const names = this.#list(rel);
    const kept = this.#childrenOf(rel);
    const listed = new Set<string>();
    for (const [name, type] of names) {
      const child = join(rel, name);
      listed.add(name);
      // A kept entry of the same kind is looked at only when hinted itself.
      if (type === 'folder' ? this.folders.has(child) : type === 'file' && this.entries.has(child)) continue;
      if (this.slices.due) await this.slices.pause();
      await this.#add(child);
    }
    for (const name of kept) if (!listed.has(name)) this.#drop(join(rel, name));
    this.#counted(rel, names);
    this.#folderLine(rel);
  }

  /** A folder the base did not have: every entry read, as the full read walks it. */
  async #walk(rel: string): Promise<void> {
    this.#seen.add(rel);
    this.folders.add(rel);
    this.stamps.addEntries(parentOf(rel), 1);
    this.#plain.add(rel);
    this.#indexed(rel);
    const names = this.#list(rel);
    for (const [name] of names) {
      if (this.slices.due) await this.slices.pause();
      await this.#add(join(rel, name));
    }
    this.#counted(rel, names);
    this.#folderLine(rel);
  }

  /** Sets a folder's count of entries to those of its listing that the pack now holds. */
  #counted(rel: string, names: readonly [string, 'file' | 'folder' | 'other'][]): void {
    let count = 0;
    for (const [name, type] of names) {
      const child = join(rel, name);
      if (type === 'folder' ? this.folders.has(child) : this.entries.has(child)) count++;
    }
    this.stamps.setEntries(rel, count);
  }

  /** An entry found by listing a folder: read, walked, or FULL for anything else. */
  async #add(rel: string): Promise<void> {
    if (this.entries.size + this.folders.size > this.limits.maxFiles) throw FULL;
    const st = this.#lstat(rel);
    if (st === undefined) throw FULL; // listed, then gone: the listing is not to be trusted
    this.#drop(rel);
    if (st.isFile()) {
      if (this.#selects(rel)) this.#read(rel);
    } else if (st.isDirectory()) {
      if (FILE_LIKE.test(nameOf(rel))) throw FULL;
      this.ids.entry(rel, this.#real(rel), st, this.#real(rel));
      this.stamps.set(rel, st, this.#startedAtMs);
      await this.#walk(rel);
    } else throw FULL;
  }

  /** A folder's entries that are part of the pack, sorted, with what the listing says each is. */
  #list(rel: string): [string, 'file' | 'folder' | 'other'][] {
    let entries: Dirent[];
    try {
      entries = readdirSync(this.#real(rel), { withFileTypes: true });
    } catch {
      throw FULL;
    }
    const out: [string, 'file' | 'folder' | 'other'][] = [];
    for (const entry of entries) {
      if (!hiddenEntryAllowed(this.limits.hidden, rel, entry.name)) continue;
      if (entry.isSymbolicLink()) throw FULL;
      out.push([entry.name, entry.isFile() ? 'file' : entry.isDirectory() ? 'folder' : 'other']);
    }
    return out.sort((a, b) => byteOrder(a[0], b[0]));
  }

  /** Whether the read brings the file at `rel` (the full read skips the others). */
  #selects(rel: string): boolean {
    return this.limits.scope === undefined || this.limits.scope.has(rel);
  }

  /** Drops a path: the file kept there, or the folder with everything kept under it. */
  #drop(rel: string): void {
    this.#dropFile(rel);
    if (!this.folders.has(rel)) return;
    for (const name of [...this.#childrenOf(rel)]) this.#drop(join(rel, name));
    this.folders.delete(rel);
    this.stamps.addEntries(parentOf(rel), -1);
    this.stamps.delete(rel);
    this.#plain.delete(rel);
    this.#children!.delete(rel);
    this.#children!.get(parentOf(rel))?.delete(nameOf(rel));
  }

  #dropFile(rel: string): void {
    const kept = this.entries.get(rel);
    if (!kept) return;
    this.stamps.addEntries(parentOf(rel), -1);
    this.#changing().delete(rel);
    this.bytes -= kept.length;
    this.#reread.delete(rel);
    this.#reshaped = true;
    this.#children?.get(parentOf(rel))?.delete(nameOf(rel));
  }

  /** Records a new entry in the index of kept children, when it is built. */
  #indexed(rel: string): void {
    if (!this.#children) return;
    const parent = parentOf(rel);
    const names = this.#children.get(parent) ?? new Set<string>();
    this.#children.set(parent, names);
    names.add(nameOf(rel));
  }

  /** The names kept directly in a folder (files and folders). */
  #childrenOf(rel: string): Set<string> {
    if (!this.#children) {
      const children = new Map<string, Set<string>>();
      const add = (path: string) => {
        const parent = parentOf(path);
        const names = children.get(parent) ?? new Set<string>();
        children.set(parent, names);
        names.add(nameOf(path));
      };
      for (const path of this.entries.keys()) add(path);
      for (const path of this.folders) add(path);
      this.#children = children;
    }
    const names = this.#children.get(rel) ?? new Set<string>();
    this.#children.set(rel, names);
    return names;
  }

  /** A kept folder must still be a plain folder reached without any symlink. */
  #plainFolder(rel: string): void {
    if (this.#plain.has(rel)) return;
    const real = this.#real(rel);
    try {
      if (realpathSync.native(real) !== real || !statSync(real).isDirectory()) throw FULL;
    } catch {
      throw FULL;
    }
    this.#plain.add(rel);
  }

  /** A folder's identity and change time, taken after its entries were looked at. */
  #folderLine(rel: string): void {
    const st = this.#lstat(rel);
    if (st === undefined || !st.isDirectory()) throw FULL;
    this.ids.entry(`${rel}/`, this.#real(rel), st, this.#real(rel));
    this.newest = Math.max(this.newest, st.mtimeMs, st.ctimeMs);
  }

  /** An entry's own status (not following a symlink); undefined when it is not there. */
  #lstat(rel: string): Stats | undefined {
    try {
      return lstatSync(this.#real(rel));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw FULL;
    }
  }

  #real(rel: string): string {
    if (rel === '') return this.root;
    return this.root.endsWith(sep) ? this.root + rel : `${this.root}${sep}${rel}`;
  }
}

function parentOf(rel: string): string {
  const slash = rel.lastIndexOf('/');
  return slash === -1 ? '' : rel.slice(0, slash);
}

function nameOf(rel: string): string {
  return rel.slice(rel.lastIndexOf('/') + 1);
}

function join(folder: string, name: string): string {
  return folder === '' ? name : `${folder}/${name}`;
}

function depth(rel: string): number {
  let n = 0;
  for (let i = 0; i < rel.length; i++) if (rel.charCodeAt(i) === 47) n++;
  return n;
}
