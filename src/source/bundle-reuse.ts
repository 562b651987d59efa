import { SETTLED_MS } from './kept-files.js';
import type { PackFiles } from './read-dir.js';
import { MAX_ROOTS } from './reuse.js';

/**
 * The last read of each bundle, kept so that reading an unchanged bundle again (the
 * reloader's poll, every 10 s) neither inflates nor parses it: a file whose identity
 * (device, inode, size, modification and change times) is the one read, and that had
 * settled when it was read (its last change more than {@link SETTLED_MS} before: file
 * times advance in coarse ticks), is not read at all; one whose bytes have the digest
 * read (a ConfigMap swap to the same bundle, a `touch`) is not parsed. The same files
 * come back, so the build reuses its last decoding of them. Reads with other limits or
 * hidden folders (`key`) share nothing. Memory: one pack's worth of files per bundle, for
 * at most {@link MAX_ROOTS} bundles, as the folder reader keeps.
 */
export class BundleReuse {
  #kept = new Map<string, KeptBundle>();

  /** The read kept for this file, when it is the file read then and had settled. */
  byIdentity(real: string, identity: string, key: string): PackFiles | undefined {
    const kept = this.#kept.get(real);
    return kept?.key === key && kept.settled && kept.identity === identity ? copy(kept.read) : undefined;
  }

  /** The read kept for this file, when its bytes have the same digest. */
  byDigest(real: string, digest: string, key: string): PackFiles | undefined {
    const kept = this.#kept.get(real);
    return kept?.key === key && kept.digest === digest ? copy(kept.read) : undefined;
  }

  /**
   * Keeps a read of the file at `real`: its identity, its digest, whether it had settled
   * (`changedMs` before `readAtMs` by more than {@link SETTLED_MS}).
   */
  keep(
    real: string,
    entry: {
      identity: string;
      digest: string;
      key: string;
      changedMs: number;
      readAtMs: number;
      read: PackFiles;
    },
  ): void {
    const { identity, digest, key, read } = entry;
    this.#kept.delete(real);
    this.#kept.set(real, {
      identity,
      digest,
      key,
      read,
      settled: entry.changedMs < entry.readAtMs - SETTLED_MS,
    });
    while (this.#kept.size > MAX_ROOTS) this.#kept.delete(this.#kept.keys().next().value!);
  }

  /** Forgets everything (tests, and a process that stops serving a pack). */
  clear(): void {
    this.#kept.clear();
  }
}

/** The process's bundle reuse, shared by every bundle read. */
export const bundleReuse = new BundleReuse();

// --- internal ---

interface KeptBundle {
  identity: string;
  digest: string;
  key: string;
  settled: boolean;
  read: PackFiles;
}

/** The read as it was (its files shared, never changed), in lists of its own. */
function copy(read: PackFiles): PackFiles {
  const made: PackFiles = { ...read, refused: new Set(read.refused), diagnostics: [...read.diagnostics] };
  if (read.gone) made.gone = new Set(read.gone);
  if (read.blocked) made.blocked = new Set(read.blocked);
  return made;
}
