import { createHash } from 'node:crypto';
import { fstatSync, type Stats, statSync } from 'node:fs';
import { sep } from 'node:path';

// How a folder read names what it saw: each entry's identity line, a read's identity
// digest, and the key the reuse cache keeps per file. Shared by the full and the hinted
// read, so that both describe an entry the same way.

/** Names that say "file" (a folder so named is refused rather than silently skipped). */
export const FILE_LIKE = /\.(md|markdown|txt|ya?ml|json)$/i;

/**
 * What the reuse cache compares to know a file unchanged: its identity line without the
 * path it is kept under, and with its real path only when that is not where the path
 * leads without symlinks (most files: a few dozen bytes kept per file, not a few hundred).
 */
export function reuseKey(root: string, rel: string, real: string, line: string): string {
  const direct = real === (root.endsWith(sep) ? root + rel : `${root}${sep}${rel}`);
  return direct ? line : [line, real].join('\0');
}

/**
 * Identity lines hashed as they come (the digest of the lines joined with newlines), fed
 * to the hash in chunks of about 64 KiB rather than a call per line.
 */
export class Lines {
  #hash = createHash('sha256');
  #chunk = '';
  #count = 0;

  add(line: string): void {
    this.#chunk = this.#count++ === 0 ? line : `${this.#chunk}\n${line}`;
    if (this.#chunk.length >= 65536) {
      this.#hash.update(this.#chunk);
      this.#chunk = '';
    }
  }

  digest(): string {
    return this.#count === 0 ? '' : this.#hash.update(this.#chunk).digest('hex');
  }
}

/** One entry's line of a pack's identity: path, real path, then its {@link statLine}. */
export function identityLine(rel: string, real: string, line: string): string {
  return [rel, real, line].join('\0');
}

/**
 * Kind, inode, size and change times of an entry (one flat string: it is kept per file),
 * from its number stats: times in ms with the fraction the file system gives (to about a
 * quarter of a microsecond). An inode number past 2^53 is not exact as a number: such an
 * entry (`at`: its path or open descriptor) is taken again as BigInts for its inode.
 */
export function statLine(st: Stats, at: string | number): string {
  let ino: number | bigint = st.ino;
  if (ino > Number.MAX_SAFE_INTEGER)
    ino = (typeof at === 'number' ? fstatSync(at, BIG) : statSync(at, BIG)).ino;
  return [kind(st), ino, st.size, st.mtimeMs, st.ctimeMs].join('\0');
}

const BIG = { bigint: true } as const;

/** The latest of a path's modification and change times in ms; now when it cannot be read (gone: a change). */
export function changedSince(real: string): number {
  try {
    const st = statSync(real);
    return Math.max(st.mtimeMs, st.ctimeMs);
  } catch {
    return Date.now();
  }
}

/** What an entry is, in words (`file`, `folder`, `FIFO`, `socket`, `device`). */
export function kind(st: {
  isFile(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
}): string {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'folder';
  if (st.isFIFO()) return 'FIFO';
  if (st.isSocket()) return 'socket';
  return 'device';
}
