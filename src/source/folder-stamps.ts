import { SETTLED_MS } from './kept-files.js';

// What a read saw of each folder it listed: the folder's identity taken before the
// listing, so that a later change to its entries (added, removed, renamed) shows as
// another identity.

/** The numbers of a folder's identity, as its stats give them (a `Stats` is one). */
export interface FolderStats {
  readonly ino: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

/**
 * Each listed folder's identity (inode, modification and change times), by its path
 * relative to the pack root (`''` for the root), taken just before the folder was listed:
 * a folder whose identity is the same now was not changed since (an entry added, removed
 * or renamed changes its modification time). Folder times advance in coarse ticks, as file
 * times do: a stamp taken less than {@link SETTLED_MS} after the folder's last change pins
 * nothing (a change in the same tick would keep the identity), and {@link same} is false
 * for it until it is stamped again.
 */
export class FolderStamps {
  #stamps = new Map<string, Stamp>();

  /**
   * Records a folder's identity, taken at `takenAtMs` (`Date.now()` just before its stat);
   * its count of entries stays what it was (0 for a folder not stamped before).
   */
  set(rel: string, st: FolderStats, takenAtMs: number): void {
    const settled = Math.max(st.mtimeMs, st.ctimeMs) < takenAtMs - SETTLED_MS;
    const entries = this.#stamps.get(rel)?.entries ?? 0;
    this.#stamps.set(rel, {
      ino: settled ? st.ino : Number.NaN,
      mtimeMs: st.mtimeMs,
      ctimeMs: st.ctimeMs,
      entries,
    });
  }

  /**
   * How many entries the read found directly in a folder (the files it kept, the folders
   * it listed): a listing with as many, all of them known, has lost none.
   */
  entries(rel: string): number {
    return this.#stamps.get(rel)?.entries ?? 0;
  }

  /** Sets a stamped folder's count of entries. */
  setEntries(rel: string, count: number): void {
    const stamp = this.#stamps.get(rel);
    if (stamp) stamp.entries = count;
  }

  /** Adds to (or takes from) a stamped folder's count of entries. */
  addEntries(rel: string, delta: number): void {
    const stamp = this.#stamps.get(rel);
    if (stamp) stamp.entries += delta;
  }

  /** Whether the folder these stats describe is the one stamped, and unchanged since. */
  same(rel: string, st: FolderStats): boolean {
    const stamp = this.#stamps.get(rel);
    return (
      stamp !== undefined &&
      stamp.ino === st.ino &&
      stamp.mtimeMs === st.mtimeMs &&
      stamp.ctimeMs === st.ctimeMs
    );
  }

  has(rel: string): boolean {
    return this.#stamps.has(rel);
  }

  /** Forgets a folder and every folder below it. */
  delete(rel: string): void {
    if (rel === '') {
      this.#stamps.clear();
      return;
    }
    this.#stamps.delete(rel);
    const below = `${rel}/`;
    for (const path of this.#stamps.keys()) if (path.startsWith(below)) this.#stamps.delete(path);
  }

  /** The folders stamped (the root as `''`). */
  keys(): IterableIterator<string> {
    return this.#stamps.keys();
  }

  get size(): number {
    return this.#stamps.size;
  }

  /** A copy to change. */
  clone(): FolderStamps {
    const copy = new FolderStamps();
    for (const [rel, stamp] of this.#stamps) copy.#stamps.set(rel, { ...stamp });
    return copy;
  }
}

// --- internal ---

interface Stamp {
  /** NaN when the stamp was taken too soon after the folder's last change to pin it. */
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /** Entries the read found directly in the folder. */
  entries: number;
}
