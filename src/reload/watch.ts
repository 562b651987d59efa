import type { Dirent } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import type { SnapshotStore } from './store.js';

export interface WatchOptions {
  /** The pack must be quiet this long after the last file event before it is read (default 100 ms). */
  debounceMs?: number;
  /** Longest a stream of events may postpone a read (default 10 × debounceMs). */
  maxWaitMs?: number;
  /** Backstop: re-hash the pack this often even without events; 0 disables (default 10 s). */
  pollMs?: number;
  /** After a read, how long to wait for late file events before trusting it (default 20 ms). */
  graceMs?: number;
  /** Watcher failures (the poll keeps working). */
  onError?: (e: unknown) => void;
}

/** A running watcher; `ready` resolves once the initial scan is done. */
export interface PackWatcher {
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Watches a pack directory and asks the store to reload after changes. chokidar events
 * (any file, folder or symlink, including a ConfigMap's `..data` swap and editors'
 * rename-saves) are debounced: the pack is read once it has been quiet for `debounceMs`
 * (or after `maxWaitMs` of continuous changes). In a plain folder, a read during which
 * more events arrived is dropped (the store swaps nothing) and retried, so files written
 * one after another are not served half-updated; a ConfigMap volume is read from one
 * `..data` folder and needs no such check. A slow poll re-hashes the pack as a backstop
 * for missed events.
 *
 * @example
 * const watcher = watchPack('/etc/strata/prompts', store);
 * await watcher.ready;
 * // … later
 * await watcher.close();
 */
export function watchPack(dir: string, store: SnapshotStore, options: WatchOptions = {}): PackWatcher {
  const debounceMs = options.debounceMs ?? 100;
  const pollMs = options.pollMs ?? 10_000;
  const graceMs = options.graceMs ?? 20;
  const maxWaitMs = options.maxWaitMs ?? debounceMs * 10;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;
  let lastEventAt = 0;
  let pendingSince: number | undefined;
  let closed = false;

  // A read is stale when any file event arrived since it began (late events get a grace
  // period), or when any file's identity (inode, size, times) differs between just before
  // and just after it — which catches changes whose events are late, however late. A
  // ConfigMap volume is read from one ..data folder, which never changes: no read of it
  // can be stale.
  const reloadUnlessChanged = async (trigger: 'watch' | 'poll') => {
    if (await isConfigMapVolume(dir)) return store.reload(trigger);
    const at = generation;
    const before = await treeIdentity(dir);
    const stale = async () => {
      await new Promise((resolve) => setTimeout(resolve, graceMs));
      return generation !== at || (await treeIdentity(dir)) !== before;
    };
    return store.reload(trigger, { stale });
  };
  const schedule = (delay: number) => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, delay);
  };
  const fire = () => {
    timer = undefined;
    const now = Date.now();
    const quiet = now - lastEventAt;
    const waited = now - (pendingSince ?? now);
    if (quiet < debounceMs && waited < maxWaitMs)
      return schedule(Math.min(debounceMs - quiet, maxWaitMs - waited));
    pendingSince = undefined;
    // A dropped read (files changed meanwhile) is retried once the pack is quiet again.
    void reloadUnlessChanged('watch').then((o) => {
      if (o.outcome === 'superseded' && !timer) schedule(debounceMs);
    });
  };
  const onEvent = () => {
    generation++;
    lastEventAt = Date.now();
    pendingSince ??= lastEventAt;
    if (!timer) schedule(debounceMs);
  };

  const watcher: FSWatcher = watch(dir, {
    ignoreInitial: true,
    followSymlinks: true,
    // Report every event at once (chokidar's atomic mode holds unlinks back 100 ms).
    atomic: false,
    ignored: (path: string) => /(^|[/\\])\.git([/\\]|$)/.test(path),
  });
  watcher.on('all', onEvent);
  watcher.on('error', (e) => options.onError?.(e));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  const poll =
    pollMs > 0
      ? setInterval(() => {
          // While files are changing the watcher is on it; poll only a quiet pack.
          if (!closed && !timer && Date.now() - lastEventAt >= debounceMs) void reloadUnlessChanged('poll');
        }, pollMs)
      : undefined;
  poll?.unref();

  return {
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (poll) clearInterval(poll);
      await watcher.close();
    },
  };
}

// --- internal ---

/**
 * One string naming every file of a plain folder by identity: path, inode, size and
 * modification times. A rename-save or an in-place write changes it.
 */
async function treeIdentity(dir: string): Promise<string> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return '';
  }
  const parts = await Promise.all(
    entries
      .filter((e) => !e.isDirectory())
      .map(async (e) => {
        const path = join(e.parentPath, e.name);
        const st = await stat(path, { bigint: true }).catch(() => undefined);
        return st ? `${path}\0${st.ino}\0${st.size}\0${st.mtimeNs}\0${st.ctimeNs}` : `${path}\0gone`;
      }),
  );
  return parts.sort().join('\n');
}

async function isConfigMapVolume(dir: string): Promise<boolean> {
  try {
    return (await lstat(join(dir, '..data'))).isSymbolicLink();
  } catch {
    return false;
  }
}
