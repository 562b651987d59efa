import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { LoadResult } from '../core/snapshot.js';
import { openPack, type PackSource } from '../source/open.js';
import type { PackLoader } from './store.js';

/** Where the service reads its pack from. */
export interface ReloadSource {
  /** The pack directory; undefined serves an empty pack (the chorus fallback). */
  dir?: string;
  preset?: string;
  env?: Readonly<Record<string, string | undefined>>;
  maxFileBytes?: number;
}

export interface StableReadOptions {
  /** Reads to try before accepting the last one (default 5). */
  attempts?: number;
  /** Pause between two reads that disagreed (default 20 ms). */
  settleMs?: number;
}

/**
 * A loader for {@link SnapshotStore} that never returns a pack caught mid-write:
 * - on a Kubernetes ConfigMap volume (a `..data` symlink to a timestamped folder) it
 *   resolves `..data` once and reads every file from that one folder, so a swap during
 *   the read cannot mix two versions;
 * - it reads the pack twice and accepts the result only when both reads agree
 *   (same content hash, or the same errors), retrying while files are still changing.
 *
 * @example
 * const store = new SnapshotStore(stablePackLoader({ dir: '/etc/strata/prompts' }));
 */
export function stablePackLoader(source: ReloadSource, options: StableReadOptions = {}): PackLoader {
  const attempts = options.attempts ?? 5;
  const settleMs = options.settleMs ?? 20;
  return async () => {
    // A ConfigMap volume: the folder ..data points to never changes, so one read is
    // consistent when ..data still points there afterwards.
    const root = source.dir === undefined ? undefined : await fs.realpath(source.dir).catch(() => undefined);
    if (root && (await configMapData(root))) {
      let last: LoadResult | undefined;
      for (let i = 0; i < attempts * 4; i++) {
        const data = await configMapData(root);
        last = await readOnce(source, data);
        if (data && (await configMapData(root)) === data) return last;
        await sleep(settleMs);
      }
      return last!;
    }
    // A plain folder: two reads must agree.
    let last = await readOnce(source);
    for (let i = 1; i < attempts; i++) {
      const again = await readOnce(source);
      if (fingerprint(again) === fingerprint(last)) return again;
      last = again;
      await sleep(settleMs);
    }
    return last;
  };
}

/**
 * Reads the pack once; an undefined dir is an empty pack. On a ConfigMap volume, give
 * `data` (the folder `..data` points to) to read every file from it.
 */
export function readOnce(source: ReloadSource, data?: string): Promise<LoadResult> {
  const options = {
    preset: source.preset,
    env: source.env ?? process.env,
    maxFileBytes: source.maxFileBytes,
  };
  if (source.dir === undefined)
    return openPack({ kind: 'files', files: new Map() }, { ...options, preset: source.preset ?? 'chorus' });
  const dir: PackSource = { kind: 'dir', dir: source.dir };
  if (data !== undefined) dir.data = data;
  return openPack(dir, options);
}

// --- internal ---

/** The folder a ConfigMap volume's `..data` symlink points to, if the pack is one. */
async function configMapData(root: string): Promise<string | undefined> {
  const link = join(root, '..data');
  try {
    if (!(await fs.lstat(link)).isSymbolicLink()) return undefined;
    const target = await fs.realpath(link);
    return (await fs.stat(target)).isDirectory() ? target : undefined;
  } catch {
    return undefined;
  }
}

function fingerprint(result: LoadResult): string {
  return result.snapshot ? `v:${result.snapshot.version}` : `e:${JSON.stringify(result.diagnostics)}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
