import { createHash } from 'node:crypto';
import { fstatSync, type Stats, statSync } from 'node:fs';
import { sep } from 'node:path';

// How a folder read names what it saw: a read's identity digest over its entries, and
// what the reuse cache keeps for the few files its numbers do not describe. Shared by the full and the hinted
// read, so that both describe an entry the same way.

/** Names that say "file" (a folder so named is refused rather than silently skipped). */
export const FILE_LIKE = /\.(md|markdown|txt|ya?ml|json)$/i;

/** Whether a file's real path is where its path leads from the root without symlinks. */
export function isDirect(root: string, rel: string, real: string): boolean {
  return real === (root.endsWith(sep) ? root + rel : `${root}${sep}${rel}`);
}

/**
 * What the reuse cache keeps beside a file's identity numbers (see `KeptFiles`): nothing
 * for most files; for a file whose real path is not where its path leads (`direct` false)
 * or whose inode is past 2^53, its {@link statLine} and real path.
 */
export function oddKey(direct: boolean, real: string, st: Stats, at: string | number): string | undefined {
  return direct && st.ino <= Number.MAX_SAFE_INTEGER ? undefined : [statLine(st, at), real].join('\0');
}

/**
 * A read's identity digest, fed entry by entry: an entry's path, real path and stat
 * numbers go in as a binary record (no string made from its numbers), the rare entries
 * said in words (gone, outside the pack, unlistable, a hint list) as text lines. They
 * gather in chunks of {@link CHUNK}, each hashed as its count, then its records' numbers
 * (a code and four numbers each), then their text (paths, which never hold NUL, each
 * ended by one; a line after its length): the bytes can be read back into the entries,
 * so two different sequences of entries never give the same bytes. The digest
 * is '' when nothing was added. Numbers are hashed in the machine's byte order: a digest
 * is only ever compared with others made by the same process.
 */
export class EntryHash {
  #hash = createHash('sha256');
  #numbers = new Float64Array(CHUNK * 5);
  #text = '';
  #count = 0;
  #any = false;

  /**
   * An entry by its stats (kind, inode, size, modification and change times); `at` (its
   * path or open descriptor) takes it again when its inode is past 2^53 (see {@link statLine}).
   */
  entry(rel: string, real: string, st: Stats, at: string | number): void {
    if (st.ino > Number.MAX_SAFE_INTEGER) {
      this.line(identityLine(rel, real, statLine(st, at)));
      return;
    }
    const n = this.#numbers;
    const i = 5 * this.#count;
    n[i] = kindCode(st);
    n[i + 1] = st.ino;
    n[i + 2] = st.size;
    n[i + 3] = st.mtimeMs;
    n[i + 4] = st.ctimeMs;
    this.#text += `${rel}\0${real}\0`;
    this.#added();
  }

  /** A line of text. */
  line(text: string): void {
    this.#numbers.fill(0, 5 * this.#count, 5 * this.#count + 5);
    this.#text += `${text.length}\0${text}`;
    this.#added();
  }

  digest(): string {
    if (!this.#any) return '';
    this.#flush();
    return this.#hash.digest('hex');
  }

  // --- internal ---

  #added(): void {
    this.#any = true;
    if (++this.#count === CHUNK) this.#flush();
  }

  #flush(): void {
    this.#hash.update(`${this.#count}\0`);
    this.#hash.update(new Uint8Array(this.#numbers.buffer, 0, 40 * this.#count));
    this.#hash.update(this.#text);
    this.#text = '';
    this.#count = 0;
  }
}

/** Entries hashed at once by {@link EntryHash}. */
const CHUNK = 1024;

/** An entry's kind as a record's code (a text line's is 0). */
function kindCode(st: Stats): number {
  if (st.isFile()) return 1;
  if (st.isDirectory()) return 2;
  if (st.isFIFO()) return 3;
  if (st.isSocket()) return 4;
  return 5;
}

/** An entry's identity as a line of text: path, real path, then its {@link statLine}. */
function identityLine(rel: string, real: string, line: string): string {
  return [rel, real, line].join('\0');
}

/**
 * Kind, inode, size and change times of an entry as one string (for the few entries
 * whose numbers {@link EntryHash} and `KeptFiles` cannot hold exactly), from its stats: times in ms with the fraction the file system gives (to about a
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
