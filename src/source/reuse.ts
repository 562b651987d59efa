/**
 * The bytes of files read recently, kept so that a reload reads only what changed: a file
 * whose identity (real path, inode, size, modification and change times) is what it was
 * when its bytes were read is not read again, and the same bytes object comes back, so
 * the pure build step's per-bytes memo (`core/parse-memo.ts`) reuses its decoding and
 * parsing too.
 *
 * A file is reused only when its last change is more than {@link SETTLED_MS} older than the
 * moment its bytes were read: file times advance in coarse ticks, and a write in the same
 * tick as the read could otherwise keep the identity while changing the content. Memory:
 * one pack's worth of bytes per root, for at most {@link MAX_ROOTS} roots; a root's
 * entries are replaced by each complete read of it.
 */
export class FileReuse {
  #roots = new Map<string, Map<string, Entry>>();

  /** What was read earlier for this file, when it has not changed since. */
  get(root: string, rel: string, identity: string, changedMs: number): Entry | undefined {
    const entry = this.#roots.get(root)?.get(rel);
    if (!entry || entry.identity !== identity || changedMs >= entry.readAtMs - SETTLED_MS) return undefined;
    return entry;
  }

  /** Whether anything is kept for this root (a read of it would find files to reuse). */
  has(root: string): boolean {
    return this.#roots.has(root);
  }

  /** Replaces what is kept for a root with the files of one complete read. */
  keep(root: string, entries: Map<string, Entry>): void {
    this.#roots.delete(root);
    this.#roots.set(root, entries);
    while (this.#roots.size > MAX_ROOTS) this.#roots.delete(this.#roots.keys().next().value!);
  }

  /** Forgets everything (tests, and a process that stops serving a pack). */
  clear(): void {
    this.#roots.clear();
  }
}

/** One file's bytes and when they were read. */
export interface Entry {
  identity: string;
  bytes: Uint8Array;
  /** `Date.now()` just before the file was opened. */
  readAtMs: number;
}

/** How long after its last change a file's identity is trusted to pin its content. */
export const SETTLED_MS = 1000;
/** Pack roots remembered at once. */
export const MAX_ROOTS = 4;

/** The process's reuse cache, shared by every folder read. */
export const fileReuse = new FileReuse();
