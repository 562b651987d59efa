import { error } from '../core/text/diagnostics.js';
import { sameBytes } from '../engine/incremental/same-bytes.js';
import { type DiskPackFiles, type ReadPackOptions, readPackDir } from './read-dir.js';

export interface StableReadOptions extends ReadPackOptions {
  /**
   * How long the pack's files must have been left alone before a read of them is trusted
   * (default 100 ms; at least 20 ms, longer than any file system's timestamp tick).
   */
  quietMs?: number;
  /** Reads to try before the read fails with PACK_UNSTABLE (default 8). */
  attempts?: number;
  /** First pause after a read that changed under it; doubles on each retry up to 4 × quietMs (default 20 ms). */
  backoffMs?: number;
}

/**
 * Reads a pack in a consistent state, or fails: the one rule every reload follows (file
 * events, the poll, a manual reload, start-up). A read is accepted when
 * 1. the pack was quiet: no file or folder of the pack had changed in the `quietMs` before
 *    the read began — each file's times taken when it was listed and again just after its
 *    bytes were read, each folder's just after it was listed — and nothing failed to read;
 *    then every file held the bytes read from the start of the read to its end, or
 * 2. two reads at least `quietMs` apart found the same identities (path, real path, kind,
 *    inode, size, change times of every entry) and the same bytes: no entry changed between
 *    the first listing and the second (a slow writer pausing mid-file, or a write in the
 *    same timestamp tick, is caught).
 * A read is one listing (stat only), and the bytes of only those files whose identity
 * changed since they were last read, or whose last change was too recent for their
 * identity to pin their content (`FileReuse`); the others' bytes are reused. When no read
 * agreed within `attempts` (pauses growing from `backoffMs` up to 4 × quietMs), the result
 * carries a PACK_UNSTABLE error and no files, so the caller keeps what it has. Hidden
 * entries (names starting with `.`) are not part of the pack and cannot make two reads
 * disagree (a change among them can make a read wait one quiet period).
 *
 * @example
 * const read = await readStablePack('/etc/strata/prompts', { quietMs: 100 });
 */
export async function readStablePack(dir: string, options: StableReadOptions = {}): Promise<DiskPackFiles> {
  const quietMs = Math.max(options.quietMs ?? 100, MIN_QUIET_MS);
  const attempts = Math.max(options.attempts ?? 8, 1);
  let backoff = options.backoffMs ?? 20;
  let previous: { read: DiskPackFiles; at: number } | undefined;
  let last: DiskPackFiles | undefined;
  for (let i = 0; i < attempts; i++) {
    const at = Date.now();
    const read = await readPackDir(dir, { ...options, recheck: true });
    last = read;
    if (read.diagnostics.some((d) => d.code === 'READ_TIMEOUT')) return read;
    const failed = read.diagnostics.some((d) => d.code === 'READ_ERROR');
    if (read.identity === '' || (!failed && read.newestChangeMs <= at - quietMs)) return read;
    if (previous && at - previous.at >= quietMs && sameRead(previous.read, read)) return read;
    // Files changed moments ago (or during the read): read again once the pack has been
    // quiet for quietMs, and take it when that read agrees with this one.
    const changedUnder = previous !== undefined && previous.read.identity !== read.identity;
    previous = { read, at };
    const untilQuiet = read.newestChangeMs + quietMs - Date.now();
    await sleep(Math.min(Math.max(untilQuiet, changedUnder ? backoff : quietMs), 4 * quietMs));
    if (changedUnder) backoff = Math.min(backoff * 2, 4 * quietMs);
  }
  return {
    ...last!,
    files: new Map(),
    refused: new Set(),
    diagnostics: [
      error(
        'PACK_UNSTABLE',
        `the pack kept changing while it was read (${attempts} reads, none consistent); the last good version is kept`,
      ),
    ],
  };
}

// --- internal ---

const MIN_QUIET_MS = 20;

function sameRead(a: DiskPackFiles, b: DiskPackFiles): boolean {
  if (a.identity !== b.identity || a.files.size !== b.files.size) return false;
  for (const [path, bytes] of a.files) {
    const other = b.files.get(path);
    if (sameBytes(other, bytes)) continue;
    if (!other || !Buffer.from(other.buffer, other.byteOffset, other.byteLength).equals(bytes)) return false;
  }
  return true;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
