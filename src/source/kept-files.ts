import { PathIndex } from './path-index.js';

// The files of one read of a pack root, kept so that the next read can tell which are
// unchanged: per file its bytes and the numbers of its identity, in columns.

/** The numbers of a file's identity, as its stats give them (a `Stats` is one). */
export interface FileStats {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

/** How long after its last change a file's identity is trusted to pin its content. */
export const SETTLED_MS = 1000;

/**
 * A root's kept files as columns rather than an object and an identity string per file
 * (a large pack keeps tens of thousands): paths numbered as rows, the buffer holding each
 * row's bytes, and six numbers a row in blocks of doubles ({@link BLOCK_ROWS} rows a block:
 * no copying as the read grows): the identity (inode, size, modification and change
 * times) and where the bytes are in their buffer (offset, length). A file's bytes are
 * handed out as a new view of that range each time (a view kept per file would cost 96
 * bytes, a third of a small file): the same range is the same bytes (`sameBytes`). The
 * few files whose identity those numbers do not pin — an inode past 2^53 (not exact as a
 * number), a real path that is not where the path leads without symlinks — also keep a
 * string saying the rest (`odd`), compared too.
 *
 * A file kept less than {@link SETTLED_MS} after its last change (file times advance in
 * coarse ticks: a write in the same tick as the read could keep the identity while
 * changing the content) keeps NaN for its inode: it is listed, but never reused. Paths
 * are numbered by a {@link PathIndex} (a map of their own would cost more than the rest).
 *
 * It is also the read's files (a read-only map from path to bytes, handed to the build):
 * once a read is complete it is never changed again — a later read that keeps most of
 * its files changes a {@link clone}.
 */
export class KeptFiles implements ReadonlyMap<string, Uint8Array> {
  /** Paths to row numbers. */
  #rows = new PathIndex();
  #buffers: (ArrayBufferLike | undefined)[] = [];
  #blocks: Float64Array[] = [];
  #odd: Map<number, string> | undefined;
  #trimmed = false;

  /** The number of files kept. */
  get size(): number {
    return this.#rows.size;
  }

  has(rel: string): boolean {
    return this.#rows.find(rel) !== -1;
  }

  /** The bytes kept for a file. */
  get(rel: string): Uint8Array | undefined {
    const row = this.#rows.find(rel);
    return row === -1 ? undefined : this.#bytes(row);
  }

  /** The paths kept, in the order they were first kept. */
  keys(): MapIterator<string> {
    return this.#rows.paths();
  }

  *entries(): MapIterator<[string, Uint8Array]> {
    for (let row = 0; row < this.#rows.count; row++) {
      const rel = this.#rows.pathOf(row);
      if (rel !== undefined) yield [rel, this.#bytes(row)!];
    }
  }

  *values(): MapIterator<Uint8Array> {
    for (const [, bytes] of this.entries()) yield bytes;
  }

  [Symbol.iterator](): MapIterator<[string, Uint8Array]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'KeptFiles';
  }

  forEach(
    fn: (bytes: Uint8Array, rel: string, map: ReadonlyMap<string, Uint8Array>) => void,
    thisArg?: unknown,
  ): void {
    this.#rows.forEach((row, rel) => {
      fn.call(thisArg, this.#bytes(row)!, rel, this);
    });
  }

  /** A copy to change (the read this one is stays as it was). */
  clone(): KeptFiles {
    const copy = new KeptFiles();
    copy.#rows = this.#rows.clone();
    copy.#buffers = this.#buffers.slice();
    copy.#blocks = this.#blocks.map((block) => block.slice());
    if (this.#odd) copy.#odd = new Map(this.#odd);
    copy.#trimmed = true;
    return copy;
  }

  /**
   * Keeps a file's bytes, read at `readAtMs` (`Date.now()` just before it was opened, or
   * any later time for bytes found unchanged) from the file these stats describe; `odd`
   * as {@link KeptFiles} says (undefined for most files).
   */
  set(rel: string, bytes: Uint8Array, st: FileStats, readAtMs: number, odd?: string): void {
    const row = this.#rows.find(rel);
    if (row === -1) this.add(rel, bytes, st, readAtMs, odd);
    else this.#write(row, bytes, st, readAtMs, odd);
  }

  /** {@link set} for a path not kept yet (a read lists each path once). */
  add(rel: string, bytes: Uint8Array, st: FileStats, readAtMs: number, odd?: string): void {
    const row = this.#rows.add(rel);
    this.#trimmed = false;
    if (row % BLOCK_ROWS === 0 && this.#blocks.length === row / BLOCK_ROWS)
      this.#blocks.push(new Float64Array(ROW_NUMBERS * BLOCK_ROWS));
    this.#write(row, bytes, st, readAtMs, odd);
  }

  /**
   * The bytes kept for a file when the file these stats (and `odd`) describe is the one
   * they were read from, and it had settled then; undefined otherwise.
   */
  unchanged(rel: string, st: FileStats, odd?: string): Uint8Array | undefined {
    const row = this.#rows.find(rel);
    return row !== -1 && this.pins(row, st, odd) ? this.#bytes(row) : undefined;
  }

  /** Row numbers run from 0 to `rows` − 1 (a deleted file's row has no path). */
  get rows(): number {
    return this.#rows.count;
  }

  /** The path kept at a row, or undefined when its file was deleted. */
  pathAt(row: number): string | undefined {
    return this.#rows.pathOf(row);
  }

  /** Whether a row keeps a string beside its numbers (see {@link KeptFiles}: `odd`). */
  isOdd(row: number): boolean {
    return this.#odd?.has(row) ?? false;
  }

  /**
   * Whether the file these stats (and `odd`) describe is the one a row's bytes were read
   * from, and it had settled then: {@link unchanged} by row, without handing out bytes.
   */
  pins(row: number, st: FileStats, odd?: string): boolean {
    const n = this.#blocks[Math.floor(row / BLOCK_ROWS)]!;
    const at = ROW_NUMBERS * (row % BLOCK_ROWS);
    if (n[at] !== st.ino || n[at + 1] !== st.size || n[at + 2] !== st.mtimeMs || n[at + 3] !== st.ctimeMs)
      return false;
    return this.#odd?.get(row) === odd;
  }

  /**
   * Points the rows whose bytes are in `from` at the same ranges of `to` (a copy of `from`,
   * at least as long as every range): a reader that moves files out of a block too large
   * for them (see `Slab.fit`).
   */
  rehome(from: ArrayBufferLike, to: ArrayBufferLike): void {
    const buffers = this.#buffers;
    for (let row = 0; row < buffers.length; row++) if (buffers[row] === from) buffers[row] = to;
  }

  /** Gives back spare room left by growing (once the read that fills it is complete). */
  trim(): void {
    if (this.#trimmed) return;
    this.#buffers = this.#buffers.slice();
    this.#rows.trim();
    this.#trimmed = true;
  }

  delete(rel: string): boolean {
    const row = this.#rows.delete(rel);
    if (row === -1) return false;
    this.#buffers[row] = undefined;
    this.#odd?.delete(row);
    // Rows freed by deletes are taken back once they are most of the rows.
    if (this.#rows.count > BLOCK_ROWS && this.#rows.size < this.#rows.count / 2) this.#compact();
    return true;
  }

  // --- internal ---

  /** A view of a row's bytes (undefined for a freed row). */
  #bytes(row: number): Uint8Array | undefined {
    const buffer = this.#buffers[row];
    if (buffer === undefined) return undefined;
    const n = this.#blocks[Math.floor(row / BLOCK_ROWS)]!;
    const at = ROW_NUMBERS * (row % BLOCK_ROWS);
    return new Uint8Array(buffer, n[at + 4], n[at + 5]);
  }

  #write(row: number, bytes: Uint8Array, st: FileStats, readAtMs: number, odd: string | undefined): void {
    this.#buffers[row] = bytes.buffer;
    const n = this.#blocks[Math.floor(row / BLOCK_ROWS)]!;
    const at = ROW_NUMBERS * (row % BLOCK_ROWS);
    const settled = Math.max(st.mtimeMs, st.ctimeMs) < readAtMs - SETTLED_MS;
    n[at] = settled ? st.ino : Number.NaN;
    n[at + 1] = st.size;
    n[at + 2] = st.mtimeMs;
    n[at + 3] = st.ctimeMs;
    n[at + 4] = bytes.byteOffset;
    n[at + 5] = bytes.byteLength;
    if (odd !== undefined) {
      this.#odd ??= new Map();
      this.#odd.set(row, odd);
    } else this.#odd?.delete(row);
  }

  /** Rewrites the rows without the freed ones, in the order of the paths. */
  #compact(): void {
    const live = new KeptFiles();
    this.#rows.forEach((row, rel) => {
      const n = this.#blocks[Math.floor(row / BLOCK_ROWS)]!;
      const at = ROW_NUMBERS * (row % BLOCK_ROWS);
      const st = { ino: n[at]!, size: n[at + 1]!, mtimeMs: n[at + 2]!, ctimeMs: n[at + 3]! };
      // Read at no particular time: each row keeps its inode (NaN for one never to be reused).
      live.add(rel, this.#bytes(row)!, st, Number.POSITIVE_INFINITY, this.#odd?.get(row));
    });
    this.#rows = live.#rows;
    this.#buffers = live.#buffers;
    this.#blocks = live.#blocks;
    this.#odd = live.#odd;
  }
}

/** Rows a block of numbers holds (48 KiB a block). */
const BLOCK_ROWS = 1024;
/** The numbers a row keeps: inode, size, modification and change times, offset and length of its bytes. */
const ROW_NUMBERS = 6;
