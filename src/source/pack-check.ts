import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { hiddenEntryAllowed } from '../core/pack/select.js';
import { isDirect, oddKey } from './entry-identity.js';
import { type FileStamps, fileStamps } from './file-stamps.js';
import type { KeptFiles } from './kept-files.js';
import { type FileReuse, fileReuse, type LastRead } from './reuse.js';
import { Slices } from './slices.js';

/** What one slice of the file sweep found (see {@link PackCheck.sweep}). */
export interface SweepSlice {
  /**
   * Paths (relative, `/`-separated) whose file is not the one last read; undefined when
   * so many changed that the pack is better read whole.
   */
  changed: string[] | undefined;
  /** True when this slice reached the last file: the next slice starts over. */
  done: boolean;
}

/**
 * Tells what changed in a pack folder since the last complete read of it in this process,
 * without reading any file: the backstop of a watcher that may have missed events (a
 * kernel queue that overflowed, a file system that sends none). It compares identities
 * with what the read kept (see `FileReuse.lastRead`):
 *
 * - {@link folders}: the pack root's real path, and each folder the read listed, by its
 *   identity (inode, modification and change times) stamped before the listing. A folder
 *   whose identity changed (an entry added, removed or renamed) is listed again, without a
 *   `stat` of its entries, and its names compared with what the read found there; the
 *   names that differ are the paths to look at, and the folder is stamped again. A few
 *   system calls per folder, whatever the number of files.
 * - {@link sweep}: each file the read kept, a slice at a time, by a `stat` compared with
 *   the identity its bytes were read with (inode, size, modification and change times):
 *   a file written in place, or replaced under the same name.
 * - {@link sameFiles}: files outside the pack that path settings name, by their identity
 *   when last read.
 *
 * A file or folder whose last change was too recent for its identity to pin its content
 * when it was read (`SETTLED_MS`) counts as changed until it is read again. The paths
 * found are what a hinted read (`readPackDir` with `hints`) is given: it reads exactly
 * those, on top of the last read. When the last read cannot be compared with — none
 * kept, one under way, one that met a problem (whether it is mended only a read can
 * tell), or the root now leads to another folder — the answer is undefined: only a whole
 * read can say.
 *
 * @example
 * const check = new PackCheck('/etc/strata/prompts');
 * const paths = await check.folders(); // [] when nothing changed, undefined: read it whole
 */
export class PackCheck {
  readonly #dir: string;
  readonly #reuse: FileReuse;
  readonly #stamps: FileStamps;
  /** The row of the last read's files the next slice of the sweep starts at. */
  #row = 0;

  constructor(dir: string, options: { reuse?: FileReuse; stamps?: FileStamps } = {}) {
    this.#dir = resolve(dir);
    this.#reuse = options.reuse ?? fileReuse;
    this.#stamps = options.stamps ?? fileStamps;
  }

  /**
   * The paths whose entries changed since the last read, found from the folders' identities
   * (see {@link PackCheck}); [] when none did, undefined when only a whole read can say.
   * Runs in slices, giving the event loop a turn between them.
   */
  async folders(): Promise<string[] | undefined> {
    const last = this.#last();
    if (!last) return undefined;
    const slices = new Slices(Number.POSITIVE_INFINITY, SLICE_MS);
    const changed: string[] = [];
    for (const folder of [...last.folders.keys()]) {
      if (slices.due) await slices.pause();
      const takenAtMs = Date.now();
      const st = statSync(this.#real(last, folder), { throwIfNoEntry: false });
      if (st?.isDirectory() && last.folders.same(folder, st)) continue;
      // A pack through symlinks or a ConfigMap: a swap keeps the names, so any change
      // means a read (which then reads the pack whole).
      if (last.linked) return undefined;
      if (!st?.isDirectory()) {
        if (folder === '') return undefined;
        changed.push(folder);
        continue;
      }
      const differ = await this.#namesThatDiffer(last, folder, slices);
      if (differ === undefined) return undefined;
      if (differ.length === 0) last.folders.set(folder, st, takenAtMs);
      else changed.push(...differ);
    }
    return [...new Set(changed)];
  }

  /**
   * Compares the files of the last read with the disk, from where the last slice stopped
   * until `until` (a `performance.now()` time): a `stat` each, no file opened.
   */
  sweep(until: number): SweepSlice {
    const last = this.#last();
    // Nothing to compare with: what to do then is for `folders` to say.
    if (!last) return { changed: [], done: true };
    const files = last.files;
    const changed: string[] = [];
    let row = this.#row;
    for (; row < files.rows; row++) {
      if ((row & 63) === 0 && row > this.#row && performance.now() >= until) break;
      const rel = files.pathAt(row);
      if (rel === undefined || this.#same(last, files, row, rel)) continue;
      changed.push(rel);
      if (changed.length > MAX_CHANGED) {
        this.#row = 0;
        return { changed: undefined, done: true };
      }
    }
    const done = row >= files.rows;
    this.#row = done ? 0 : row;
    return { changed, done };
  }

  /** Whether each of these files outside the pack is as it was read (see `FileStamps`). */
  sameFiles(paths: Iterable<string>): boolean {
    for (const path of paths) if (!this.#stamps.same(path)) return false;
    return true;
  }

  // --- internal ---

  /** The last read, when it can be compared with the disk. */
  #last(): LastRead | undefined {
    const last = this.#reuse.lastRead(this.#dir);
    if (!last || last.problems) return undefined;
    let root: string;
    try {
      root = realpathSync.native(this.#dir);
    } catch {
      return undefined;
    }
    return root === last.root ? last : undefined;
  }

  /** Whether a kept file is, by its identity now, the one read (and had settled then). */
  #same(last: LastRead, files: KeptFiles, row: number, rel: string): boolean {
    const path = this.#real(last, rel);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st?.isFile()) return false;
    if (!files.isOdd(row)) return files.pins(row, st);
    let real: string;
    try {
      real = realpathSync.native(path);
    } catch {
      return false;
    }
    return files.pins(row, st, oddKey(isDirect(last.root, rel, real), real, st, real));
  }

  /**
   * The paths in `folder` whose entries differ from the read's — a name added or gone
   * (fewer names known than the read found there) — listed by name only (no `stat` of
   * each entry); undefined when only a whole read can say (a folder that cannot be
   * listed, a `.git` marker added or gone).
   */
  async #namesThatDiffer(last: LastRead, folder: string, slices: Slices): Promise<string[] | undefined> {
    let names: string[];
    try {
      names = readdirSync(this.#real(last, folder));
    } catch {
      return undefined;
    }
    const differ: string[] = [];
    let known = 0;
    let marker = false;
    for (const name of names) {
      if (slices.due) await slices.pause();
      if (!hiddenEntryAllowed(last.hidden, folder, name)) {
        // A `.git` symlink to nothing is no marker (as the read finds it); one whose lookup
        // fails otherwise (a symlink loop) is for a whole read to say.
        if (name === '.git' && folder !== '')
          try {
            marker =
              statSync(`${this.#real(last, folder)}${sep}.git`, { throwIfNoEntry: false }) !== undefined;
          } catch {
            return undefined;
          }
        continue;
      }
      const rel = folder === '' ? name : `${folder}/${name}`;
      if (last.files.has(rel) || last.folders.has(rel)) known++;
      else if (!last.scope || last.scope.has(rel) || this.#isFolder(last, rel)) differ.push(rel);
    }
    // A nested repository's marker decides where AGENTS.md discovery starts: a whole read.
    if (marker !== last.gitFolders.includes(folder)) return undefined;
    // A name the read found is gone: which one is found from what the read kept (a pass
    // over its paths, made only then).
    if (known !== last.folders.entries(folder)) differ.push(...this.#goneFrom(last, folder, names));
    return differ;
  }

  /** The paths the last read kept directly in `folder` (files and folders) that `names` lacks. */
  #goneFrom(last: LastRead, folder: string, names: readonly string[]): string[] {
    const listed = new Set(names);
    const prefix = folder === '' ? '' : `${folder}/`;
    const gone: string[] = [];
    const look = (rel: string) => {
      if (rel === '' || !rel.startsWith(prefix)) return;
      const name = rel.slice(prefix.length);
      if (!name.includes('/') && !listed.has(name)) gone.push(rel);
    };
    for (const rel of last.files.keys()) look(rel);
    for (const rel of last.folders.keys()) look(rel);
    return gone;
  }

  /** Whether an entry is a folder (a folder is walked whatever the read scope). */
  #isFolder(last: LastRead, rel: string): boolean {
    return lstatSync(this.#real(last, rel), { throwIfNoEntry: false })?.isDirectory() ?? true;
  }

  #real(last: LastRead, rel: string): string {
    if (rel === '') return last.root;
    return last.root.endsWith(sep) ? last.root + rel : `${last.root}${sep}${rel}`;
  }
}

/** Changed files past this many are read as a whole pack. */
export const MAX_CHANGED = 4096;

/** The longest the folder check runs before the event loop gets a turn (ms). */
const SLICE_MS = 4;
