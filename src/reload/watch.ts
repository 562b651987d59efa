import { type FSWatcher as NodeWatcher, statSync, watch as watchFolder } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, relative, sep } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import { presetHiddenFolders } from '../core/snapshot.js';
import type { ReloadOutcome, SnapshotStore } from './store.js';

export interface WatchOptions {
  /** The pack must be quiet this long after the last file event before it is read (default 100 ms). */
  debounceMs?: number;
  /** Longest a stream of events may postpone a read (default 10 × debounceMs). */
  maxWaitMs?: number;
  /** Backstop: re-read the pack this often even without events; 0 disables (default 10 s). */
  pollMs?: number;
  /** Longest pause before retrying a reload that found the pack changing (default 5 s). */
  maxRetryMs?: number;
  /** Watcher failures (the poll keeps working). */
  onError?: (e: unknown) => void;
}

/** A running watcher; `ready` resolves once the initial scan is done. */
export interface PackWatcher {
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Watches a pack directory and asks the store to reload after changes. File events (any
 * file, folder or symlink of the pack, a ConfigMap's `..data` swap, editors'
 * rename-saves) are debounced: the pack is read once it has been quiet for `debounceMs`
 * (or after `maxWaitMs` of continuous changes). Hidden entries (names starting with `.`,
 * other than `..data`) are not part of the pack: their events are ignored, so churn in
 * them delays nothing. Whether a read is consistent is the loader's rule, the same for
 * every trigger; a reload that found the pack still changing (PACK_UNSTABLE) is retried
 * with a doubling pause until one succeeds. When the pack root is itself a symlink
 * (git-sync `--link`, a `current` release link), the link is watched too, and a swap
 * re-aims the watcher at the new folder. A slow poll reloads as a backstop for missed
 * events. Files outside the pack that the snapshot holds (operator-set path settings)
 * are watched too.
 *
 * A bundle file (`strata bundle`) is watched through its folder's own entries: a write
 * to it, a rename over it, or a ConfigMap `..data` swap beside it (`pack.tgz ->
 * ..data/pack.tgz`) reloads it. A bundle is read through one open handle, so it is never
 * read half-swapped.
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
  const maxWaitMs = options.maxWaitMs ?? debounceMs * 10;
  const maxRetryMs = options.maxRetryMs ?? 5000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastEventAt = 0;
  let pendingSince: number | undefined;
  let retryMs = 0;
  let retrying = false;
  let closed = false;
  const bundle = isFile(dir);

  const schedule = (delay: number) => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, delay);
  };
  const afterReload = (outcome: ReloadOutcome) => {
    if (!unstable(outcome)) {
      retryMs = 0;
      return;
    }
    // The pack kept changing: try again later, backing off, until a read is consistent.
    retryMs = Math.min(Math.max(retryMs * 2, debounceMs, 20), maxRetryMs);
    if (!timer) {
      retrying = true;
      schedule(retryMs);
    }
  };
  const fire = () => {
    timer = undefined;
    retrying = false;
    const now = Date.now();
    const quiet = now - lastEventAt;
    const waited = now - (pendingSince ?? now);
    if (quiet < debounceMs && waited < maxWaitMs)
      return schedule(Math.min(debounceMs - quiet, maxWaitMs - waited));
    pendingSince = undefined;
    void store.reload('watch').then(afterReload);
  };
  const onEvent = () => {
    lastEventAt = Date.now();
    pendingSince ??= lastEventAt;
    // A file event brings a backed-off retry forward.
    if (!timer || retrying) {
      retrying = false;
      schedule(debounceMs);
    }
  };

  // The folder's watcher; re-created when the root link is aimed elsewhere.
  let files: FSWatcher | undefined;
  let ready: Promise<void> = Promise.resolve();
  const watchFiles = () => {
    const previous = files;
    const folder = bundle ? dirname(dir) : dir;
    files = watch(folder, {
      ignoreInitial: true,
      followSymlinks: true,
      // Report every event at once (chokidar's atomic mode holds unlinks back 100 ms).
      atomic: false,
      // A bundle: the file itself, and a ConfigMap's ..data link and timestamped folders.
      ...(bundle ? { depth: 0 } : {}),
      ignored: bundle
        ? (path: string) => !bundleEntry(folder, basename(dir), path)
        : (path: string) => hidden(dir, path),
    });
    files.on('all', onEvent);
    files.on('error', (e) => options.onError?.(e));
    const current = files;
    ready = new Promise<void>((resolve) => current.once('ready', () => resolve()));
    void previous?.close();
  };
  watchFiles();

  // Files outside the pack that operator-set path settings name: their folders are
  // watched one level deep (a ConfigMap's ..data swap happens there), and only events on
  // those files or on `..` entries count. The set follows each swapped-in snapshot.
  const externalFiles = () => [...(store.state?.snapshot.external?.keys() ?? [])];
  let outside: FSWatcher | undefined;
  let outsideReady: Promise<void> = Promise.resolve();
  let outsideDirs = new Set<string>();
  const syncOutside = () => {
    const dirs = new Set(externalFiles().map((f) => dirname(f)));
    if (!outside && dirs.size > 0) {
      const w = watch([...dirs], { ignoreInitial: true, followSymlinks: true, atomic: false, depth: 0 });
      w.on('all', (_event: string, path: string) => {
        if (externalFiles().includes(path) || basename(path).startsWith('..')) onEvent();
      });
      w.on('error', (e) => options.onError?.(e));
      outsideReady = new Promise<void>((resolve) => w.once('ready', () => resolve()));
      outside = w;
    } else if (outside) {
      for (const d of dirs) if (!outsideDirs.has(d)) outside.add(d);
      for (const d of outsideDirs) if (!dirs.has(d)) outside.unwatch(d);
    }
    outsideDirs = dirs;
  };
  syncOutside();
  const unsubscribeOutside = store.subscribe((event) => {
    if (event.type === 'reload' && !closed) syncOutside();
  });

  // A pack root that is a symlink: watch the link's folder for the link being replaced.
  let rootLink: NodeWatcher | undefined;
  const rootReady = (async () => {
    if (bundle || !(await lstat(dir).catch(() => undefined))?.isSymbolicLink()) return;
    let target = await realpath(dir).catch(() => '');
    try {
      rootLink = watchFolder(dirname(dir), { persistent: false }, (_event, name) => {
        if (name !== null && name !== basename(dir)) return;
        void realpath(dir)
          .catch(() => '')
          .then((now) => {
            if (closed || now === target) return;
            target = now;
            watchFiles();
            onEvent();
          });
      });
      rootLink.on('error', (e) => options.onError?.(e));
    } catch (e) {
      options.onError?.(e);
    }
  })();

  const poll =
    pollMs > 0
      ? setInterval(() => {
          // While files are changing the watcher is on it; poll only a quiet pack.
          if (!closed && !timer && Date.now() - lastEventAt >= debounceMs)
            void store.reload('poll').then(afterReload);
        }, pollMs)
      : undefined;
  poll?.unref();

  return {
    ready: Promise.all([rootReady, Promise.resolve().then(() => ready), outsideReady]).then(() => ready),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (poll) clearInterval(poll);
      unsubscribeOutside();
      rootLink?.close();
      await files?.close();
      await outside?.close();
    },
  };
}

// --- internal ---

/**
 * A path under a hidden entry of the pack (other than a ConfigMap's `..data` and the
 * hidden folders a built-in preset reads, such as `.claude`), or `.git`.
 */
function hidden(root: string, path: string): boolean {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith(`..${sep}`)) return false;
  const read = presetHiddenFolders();
  return rel.split(/[/\\]/).some((part) => part.startsWith('.') && part !== '..data' && !read.includes(part));
}

/** The entries of a bundle's folder that can change the bundle: itself and a ConfigMap's own. */
function bundleEntry(folder: string, name: string, path: string): boolean {
  if (path === folder) return true;
  const entry = basename(path);
  return entry === name || entry.startsWith('..');
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function unstable(outcome: ReloadOutcome): boolean {
  return (
    outcome.outcome === 'failed' &&
    outcome.diagnostics.some((d) => d.code === 'PACK_UNSTABLE' || d.code === 'READ_TIMEOUT')
  );
}
