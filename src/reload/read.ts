import type { LoadResult, Snapshot } from '../core/build/snapshot.js';
import type { Engine } from '../engine/engine.js';
import type { PackLimits } from '../source/limits.js';
import { openPack } from '../source/open.js';
import type { PackLoader } from './store.js';

/** Where the service reads its pack from, and the limits of reading it. */
export interface ReloadSource extends PackLimits {
  /** The pack directory; undefined serves an empty pack (the chorus fallback). */
  dir?: string;
  preset?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * How long the pack's files must have been left alone before a read is trusted
   * (default 100 ms; the service uses its debounce).
   */
  quietMs?: number;
  /** Operator-set settings (`serve --set`): over env, below requests. */
  settings?: Readonly<Record<string, unknown>>;
  /** The engine that builds each version (default: the library's shared one). */
  engine?: Engine;
}

export interface StableReadOptions {
  /** Reads to try before the reload fails with PACK_UNSTABLE (default 8). */
  attempts?: number;
  /** First pause after a read that changed under it; doubles up to 4 × quietMs (default 20 ms). */
  settleMs?: number;
}

/**
 * A loader for {@link SnapshotStore} that never returns a pack caught mid-write, whatever
 * asked for the reload (start-up, file events, the poll, `POST /api/prompts/reload`): it
 * reads through the consistent folder read (`readStablePack`), which accepts a read only
 * when no file changed across it and the pack had been quiet, retries with a growing
 * pause, and otherwise fails with PACK_UNSTABLE (the store keeps the last good version).
 * A request's hints (the paths file events named) make it a hinted read: only those
 * paths are looked at, on top of the last complete read, whenever that is safe (see
 * `readPackDir`); otherwise, and without hints, the whole pack is read.
 *
 * @example
 * const store = new SnapshotStore(stablePackLoader({ dir: '/etc/strata/prompts' }));
 */
export function stablePackLoader(source: ReloadSource, options: StableReadOptions = {}): PackLoader {
  // The last snapshot built, held weakly: the next build starts from it while it is still
  // alive (the served version usually is), and never keeps one alive on its own.
  let last: WeakRef<Snapshot> | undefined;
  return async (request) => {
    if (source.dir === undefined) return readOnce(source);
    const previous = last?.deref();
    const result = await openPack(
      { kind: 'dir', dir: source.dir },
      {
        ...openOptions(source),
        stable: { quietMs: source.quietMs, attempts: options.attempts, backoffMs: options.settleMs },
        ...(request?.hints ? { hints: request.hints } : {}),
        ...(previous ? { previous } : {}),
      },
    );
    if (result.snapshot) last = new WeakRef(result.snapshot);
    return result;
  };
}

/** Reads the pack once, with no consistency check; an undefined dir is an empty pack. */
export function readOnce(source: ReloadSource): Promise<LoadResult> {
  if (source.dir === undefined)
    return openPack(
      { kind: 'files', files: new Map() },
      { ...openOptions(source), preset: source.preset ?? 'chorus' },
    );
  return openPack({ kind: 'dir', dir: source.dir }, openOptions(source));
}

// --- internal ---

function openOptions(source: ReloadSource) {
  return {
    preset: source.preset,
    env: source.env ?? process.env,
    maxFileBytes: source.maxFileBytes,
    maxPackBytes: source.maxPackBytes,
    maxFiles: source.maxFiles,
    readTimeoutMs: source.readTimeoutMs,
    maxPromptBytes: source.maxPromptBytes,
    settings: source.settings,
    engine: source.engine,
  };
}
