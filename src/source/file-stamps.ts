import type { BigIntStats } from 'node:fs';
import { statSync } from 'node:fs';
import { SETTLED_MS } from './kept-files.js';

/**
 * The identity (device, inode, size, modification and change times, exactly) of files
 * read outside a folder read — the files outside a pack that path settings name — as
 * each was when last read, so that a poll can tell whether one changed without reading
 * it. A stamp taken less than {@link SETTLED_MS} after the
 * file's last change pins nothing ({@link same} is false until it is read again). At most
 * {@link MAX_STAMPS} files are remembered (the oldest read is forgotten first; a file
 * forgotten is read again).
 */
export class FileStamps {
  #stamps = new Map<string, string | undefined>();

  /** Records a file's identity as read, taken at `takenAtMs` (`Date.now()` just before its stat). */
  set(path: string, st: BigIntStats, takenAtMs: number): void {
    // biome-ignore lint/complexity/useMathMinMax: bigints (Math.max takes numbers)
    const changedMs = Number((st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs) / 1_000_000n);
    this.#stamps.delete(path);
    this.#stamps.set(path, changedMs < takenAtMs - SETTLED_MS ? identity(st) : undefined);
    while (this.#stamps.size > MAX_STAMPS) this.#stamps.delete(this.#stamps.keys().next().value!);
  }

  /** Whether the file at `path` is now the one stamped, unchanged since it was read. */
  same(path: string): boolean {
    const stamp = this.#stamps.get(path);
    if (stamp === undefined) return false;
    const st = statSync(path, { bigint: true, throwIfNoEntry: false });
    return st !== undefined && identity(st) === stamp;
  }

  /** Forgets every file (tests). */
  clear(): void {
    this.#stamps.clear();
  }
}

/** Files remembered at once. */
export const MAX_STAMPS = 256;

/** The process's stamps of files read outside a pack. */
export const fileStamps = new FileStamps();

// --- internal ---

function identity(st: BigIntStats): string {
  return `${st.isFile() ? 'f' : 'x'}:${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}
