// Paths numbered in the order they come, found by path.

/**
 * Numbers paths 0, 1, 2, … in the order they are added and finds a path's number: the
 * paths by number in an array, and an open-addressed table of 32-bit slots (at most three
 * quarters full, linear probing) from a hash of the path to its number. Why not a `Map`: a map of
 * 150,000 paths holds about 7 MiB (three pointers an entry in a table of the next power
 * of two, plus buckets), this about 2 MiB, and adding a path costs a hash of its
 * characters rather than a map insertion. A deleted path's number is not given again.
 */
export class PathIndex {
  /** Paths by number (undefined once deleted). */
  #paths: (string | undefined)[] = [];
  /** Number + 1 of the path hashed to each slot; 0 empty, -1 deleted. */
  #slots = new Int32Array(MIN_SLOTS);
  #size = 0;
  /** Slots not empty (paths and deleted ones). */
  #filled = 0;

  /** The number of paths. */
  get size(): number {
    return this.#size;
  }

  /** The numbers given (paths and deleted ones). */
  get count(): number {
    return this.#paths.length;
  }

  /** A path's number, or -1. */
  find(path: string): number {
    const mask = this.#slots.length - 1;
    for (let i = hash(path) & mask; ; i = (i + 1) & mask) {
      const slot = this.#slots[i]!;
      if (slot === 0) return -1;
      if (slot > 0 && this.#paths[slot - 1] === path) return slot - 1;
    }
  }

  /** The path numbered `n` (undefined when deleted). */
  pathOf(n: number): string | undefined {
    return this.#paths[n];
  }

  /** Numbers a path that is not in the index; returns its number. */
  add(path: string): number {
    if (4 * (this.#filled + 1) > 3 * this.#slots.length) this.#rehash();
    const n = this.#paths.length;
    this.#paths.push(path);
    this.#place(path, n);
    this.#size++;
    this.#filled++;
    return n;
  }

  /** Removes a path; returns the number it had, or -1. */
  delete(path: string): number {
    const mask = this.#slots.length - 1;
    for (let i = hash(path) & mask; ; i = (i + 1) & mask) {
      const slot = this.#slots[i]!;
      if (slot === 0) return -1;
      if (slot > 0 && this.#paths[slot - 1] === path) {
        this.#slots[i] = -1;
        this.#paths[slot - 1] = undefined;
        this.#size--;
        return slot - 1;
      }
    }
  }

  /** Each path with its number, in the order of the numbers. */
  forEach(fn: (n: number, path: string) => void): void {
    const paths = this.#paths;
    for (let n = 0; n < paths.length; n++) {
      const path = paths[n];
      if (path !== undefined) fn(n, path);
    }
  }

  *paths(): MapIterator<string> {
    for (const path of this.#paths) if (path !== undefined) yield path;
  }

  /** A copy (the same paths and numbers). */
  clone(): PathIndex {
    const copy = new PathIndex();
    copy.#paths = this.#paths.slice();
    copy.#slots = this.#slots.slice();
    copy.#size = this.#size;
    copy.#filled = this.#filled;
    return copy;
  }

  /** Gives back the spare room of the paths' array (once every path is added). */
  trim(): void {
    this.#paths = this.#paths.slice();
  }

  #place(path: string, n: number): void {
    const mask = this.#slots.length - 1;
    let i = hash(path) & mask;
    while (this.#slots[i] !== 0) i = (i + 1) & mask;
    this.#slots[i] = n + 1;
  }

  /** A table at most half full (deleted slots dropped): room to grow to three quarters. */
  #rehash(): void {
    let length = MIN_SLOTS;
    while (length < 2 * (this.#size + 1)) length *= 2;
    this.#slots = new Int32Array(length);
    this.#filled = 0;
    for (let n = 0; n < this.#paths.length; n++) {
      const path = this.#paths[n];
      if (path === undefined) continue;
      this.#place(path, n);
      this.#filled++;
    }
  }
}

// --- internal ---

const MIN_SLOTS = 64;

/** FNV-1a over the UTF-16 code units. */
function hash(path: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
