import { error } from '../core/diagnostics.js';
import { type DiskPackFiles, packIdentity, type ReadPackOptions, readPackDir } from './read-dir.js';

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
 * 1. no file of the pack (or the folder `..data` points to) changed identity — replaced,
 *    resized, written — between listing the pack and just after reading it, and
 * 2. the pack was quiet: no file had changed in the `quietMs` before the read began, or
 *    two reads at least `quietMs` apart found the same identities and the same bytes
 *    (a slow writer pausing mid-file, or a write in the same timestamp tick, is caught).
 * A read that changed under it is retried with a doubling pause; when no read agreed
 * within `attempts`, the result carries a PACK_UNSTABLE error and no files, so the caller
 * keeps what it has. Hidden entries (names starting with `.`) are not part of the pack
 * and cannot make a read disagree.
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
    const read = await readPackDir(dir, options);
    last = read;
    if (read.diagnostics.some((d) => d.code === 'READ_TIMEOUT')) return read;
    const after = await packIdentity(dir, options);
    if (after !== read.identity) {
      // Changed under the read: try again once it had time to settle.
      previous = undefined;
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 4 * quietMs);
      continue;
    }
    if (read.identity === '' || read.newestChangeMs <= at - quietMs) return read;
    if (previous && at - previous.at >= quietMs && sameRead(previous.read, read)) return read;
    // Files changed moments ago: read again once the pack has been quiet for quietMs.
    previous = { read, at };
    await sleep(Math.min(Math.max(read.newestChangeMs + quietMs - Date.now(), quietMs), 4 * quietMs));
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
    if (!other || !Buffer.from(other.buffer, other.byteOffset, other.byteLength).equals(bytes)) return false;
  }
  return true;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
