import { type FSWatcher as NodeWatcher, statSync, watch as watchFolder } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, sep } from 'node:path';
import { presetHiddenFolders } from '../core/build/detect.js';
import { leftOut } from '../core/pack/select.js';
import { LAYOUTS } from '../layouts/registry.js';
import { PackCheck } from '../source/pack-check.js';
import { EventScope } from './event-scope.js';
import { type FolderWatch, watchFolders } from './folder-watch.js';
import { PackPoll } from './poll.js';
import { ReloadSchedule } from './schedule.js';
import type { ReloadOptions, ReloadOutcome, SnapshotStore } from './store.js';

export interface WatchOptions {
  /** The pack must be quiet this long after the last file event before it is read (default 100 ms). */
  debounceMs?: number;
  /** Longest a stream of events may postpone a read (default 10 × debounceMs). */
  maxWaitMs?: number;
  /**
   * Backstop for missed events: compare the pack with its last read this often, and read
   * what changed (see {@link PackPoll}); 0 disables (default 10 s).
   */
  pollMs?: number;
  /**
   * `false`: no kernel watches, the poll alone finds changes (a file system that sends no
   * events, such as NFS). Default true.
   */
  events?: boolean;
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
 * them delays nothing. Every folder of the pack has one kernel watch (no watch per
 * file, see {@link watchFolders}); every notification it sends counts, at once, as the
 * path it names (the next read may look only at those), and a read of the final state
 * always follows the last change: an event during a read, or a read
 * that found the pack changing, forces one more read once it is done (see
 * {@link ReloadSchedule}). Whether a read is consistent is the loader's rule, the same
 * for every trigger; a reload that found the pack still changing (PACK_UNSTABLE) is
 * retried with a doubling pause (at most `maxRetryMs`) until one succeeds. When the pack
 * root is itself a symlink (git-sync `--link`, a `current` release link), the link is
 * watched too, and a swap re-aims the watcher at the new folder. A poll is the backstop
 * for missed events: it compares the pack's identities with its last read and reads only
 * what changed, so a pack at rest costs next to nothing (see {@link PackPoll}). Files
 * outside the pack that the snapshot holds (operator-set path settings) are watched too.
 *
 * The watches do not keep the process alive on their own (a service's server does); a
 * process that only watches keeps something else running, or calls `close()` when done.
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
  const events = options.events ?? true;
  const pollMs = options.pollMs ?? 10_000;
  const bundle = isFile(dir);
  let closed = false;
  const schedule = new ReloadSchedule(
    async (trigger, hints) => {
      const events = schedule.events;
      const reload: ReloadOptions = {};
      if (hints) {
        reload.hints = hints;
        // A hinted read trusts that no other path changed: one that did during the read
        // (its event arrives by the time the read is done) may have been read half-way,
        // so the read is dropped and done again with that path too.
        reload.stale = async (read) => {
          if (read !== 'hinted') return false;
          await loopTurns();
          return schedule.events !== events;
        };
      }
      return needsReread(await store.reload(trigger, reload)) ? 'unstable' : 'settled';
    },
    {
      debounceMs,
      maxWaitMs: options.maxWaitMs ?? debounceMs * 10,
      minRetryMs: Math.max(debounceMs, 20),
      maxRetryMs: options.maxRetryMs ?? 5000,
    },
  );
  // An event names a path of the pack (the next read may look only at it), or nothing:
  // the pack root, a ConfigMap's `..data` swap, a root-link swap, a file outside the
  // pack, a bundle (the next read reads everything).
  const onEvent = (path?: string) => {
    if (path !== undefined && !bundle && unselected(path)) return;
    schedule.notify(path === undefined || bundle ? undefined : packPath(dir, path));
  };
  // Events of files the served pack cannot select start no reload (see EventScope).
  const scope = new EventScope();
  const unselected = (path: string): boolean => {
    const snapshot = store.state?.snapshot;
    const rel = packPath(dir, path);
    if (snapshot === undefined || rel === undefined) return false;
    const failed = store.lastError?.manifest;
    return !scope.counts(snapshot, rel, path, (p) => files?.watching(p) ?? false, failed);
  };
  // The folder's watcher; re-created when the root link is aimed elsewhere.
  let files: FolderWatch | undefined;
  let ready: Promise<void> = Promise.resolve();
  const watchFiles = () => {
    const previous = files;
    const folder = bundle ? dirname(dir) : dir;
    const current = watchFolders([folder], {
      // A bundle: the file itself, and a ConfigMap's ..data link and timestamped folders.
      ...(bundle ? { depth: 0 as const } : {}),
      ignored: bundle
        ? (path: string) => !bundleEntry(folder, basename(dir), path)
        : (path: string) => hidden(dir, path),
      onEvent: (path) => onEvent(path),
      // A folder that could not be watched, or a watcher that failed, may have missed
      // events: the next read is a full one.
      onError: (e) => {
        options.onError?.(e);
        if (!closed) schedule.notify();
      },
    });
    files = current;
    // Changes made before the watcher covered every folder were not reported: once it
    // does, the whole pack is read (later reads may look only at the paths events name).
    ready = current.ready.then(() => {
      if (!closed && current === files) schedule.notify();
    });
    previous?.close();
  };
  if (events) watchFiles();

  // Files outside the pack that operator-set path settings name: their folders are
  // watched one level deep (a ConfigMap's ..data swap happens there), and only events on
  // those files or on `..` entries count. The set follows each swapped-in snapshot.
  const externalFiles = () => [...(store.state?.snapshot.external?.keys() ?? [])];
  let outside: FolderWatch | undefined;
  let outsideReady: Promise<void> = Promise.resolve();
  let outsideDirs = new Set<string>();
  const syncOutside = () => {
    const dirs = new Set(externalFiles().map((f) => dirname(f)));
    const same = dirs.size === outsideDirs.size && [...dirs].every((d) => outsideDirs.has(d));
    outsideDirs = dirs;
    if (same) return;
    outside?.close();
    outside = undefined;
    if (dirs.size === 0) return;
    const counts = (path: string) => externalFiles().includes(path) || basename(path).startsWith('..');
    outside = watchFolders([...dirs], {
      depth: 0,
      ignored: (path) => !counts(path),
      onEvent: () => onEvent(),
      onError: (e) => options.onError?.(e),
    });
    outsideReady = outside.ready;
  };
  if (events) syncOutside();
  const unsubscribeOutside = store.subscribe((event) => {
    if (event.type === 'reload' && !closed && events) syncOutside();
  });

  // A pack root that is a symlink: watch the link's folder for the link being replaced.
  let rootLink: NodeWatcher | undefined;
  const rootReady = (async () => {
    if (!events || bundle || !(await lstat(dir).catch(() => undefined))?.isSymbolicLink()) return;
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

  // While files are changing the watcher is on it; the poll compares only a quiet pack.
  const poll =
    pollMs > 0
      ? new PackPoll(new PackCheck(dir), schedule, { bundle, external: externalFiles }, { pollMs })
      : undefined;

  return {
    ready: Promise.all([rootReady, Promise.resolve().then(() => ready), outsideReady]).then(() => ready),
    async close() {
      closed = true;
      schedule.close();
      poll?.close();
      unsubscribeOutside();
      rootLink?.close();
      files?.close();
      outside?.close();
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
  const read = presetHiddenFolders(LAYOUTS);
  return rel.split(/[/\\]/).some((part) => leftOut(part) && part !== '..data' && !read.includes(part));
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

/**
 * The pack-relative path (`/`-separated) of an event's path, or undefined when it is no
 * plain path inside the pack: the root itself, a path outside it, or one through a
 * `..`-prefixed entry (a ConfigMap's `..data` and timestamped folders).
 */
function packPath(root: string, path: string): string | undefined {
  const rel = relative(root, path);
  if (rel === '' || isAbsolute(rel)) return undefined;
  const parts = rel.split(sep);
  return parts.some((p) => p === '' || p.startsWith('..')) ? undefined : parts.join('/');
}

/**
 * Lets the event loop poll for I/O at least once: a file event the kernel queued before
 * this call is delivered (to the watcher, and so to the schedule) when it resolves.
 */
async function loopTurns(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}

/** A reload that decided nothing because the pack was changing (or too slow to read). */
function needsReread(outcome: ReloadOutcome): boolean {
  if (outcome.outcome === 'superseded') return true;
  return (
    outcome.outcome === 'failed' &&
    outcome.diagnostics.some((d) => d.code === 'PACK_UNSTABLE' || d.code === 'READ_TIMEOUT')
  );
}
