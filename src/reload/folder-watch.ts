import { type FSWatcher, watch } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';

export interface FolderWatchOptions {
  /** `0`: watch only the folders named, not the folders below them (default: every folder below). */
  depth?: 0;
  /** Paths (as reported) left out: their events are not reported, and a folder among them is not watched. */
  ignored?: (path: string) => boolean;
  /** An entry of a watched folder changed: its path (a watched folder joined with the entry's name). */
  onEvent: (path: string) => void;
  /** A folder could not be watched, or its watcher failed (events may have been missed). */
  onError: (e: unknown) => void;
}

/** Watched folders; `ready` resolves once every folder below the roots is watched. */
export interface FolderWatch {
  ready: Promise<void>;
  /** The folders watched now (one kernel watch each). */
  readonly folders: readonly string[];
  /** Whether a folder is watched now (a folder that just went is, until its event is reported). */
  watching(folder: string): boolean;
  close(): void;
}

/**
 * Watches folders with one kernel watch per folder (`fs.watch`: inotify on Linux, FSEvents
 * or kqueue elsewhere), never one per file, and never lists a folder again to find out
 * what changed: every notification is reported as the path it names, at once and
 * unthrottled, and the reader of the pack looks at that path. A pack of 150,000 files in
 * four folders costs four watches. A folder that appears (created, renamed or moved in,
 * or a symlink to a folder) is watched with every folder below it; one that disappears is
 * let go. Symlinked folders are followed (each real folder watched once). A folder whose
 * name the kernel does not give (it moved) is reported as itself.
 *
 * @example
 * const w = watchFolders(['/etc/strata/prompts'], { onEvent: (p) => console.log(p), onError: console.error });
 * await w.ready;
 */
export function watchFolders(roots: readonly string[], options: FolderWatchOptions): FolderWatch {
  const watchers = new Map<string, FSWatcher>();
  /** The real folder each watched path is, so a symlink loop is walked once. */
  const reals = new Map<string, string>();
  const watchedReals = new Set<string>();
  let closed = false;

  const ignored = (path: string) => options.ignored?.(path) ?? false;

  const unwatch = (path: string) => {
    for (const [folder, w] of watchers)
      if (folder === path || folder.startsWith(path + sep)) {
        w.close();
        forget(folder);
      }
  };

  const forget = (folder: string) => {
    watchers.delete(folder);
    const real = reals.get(folder);
    if (real !== undefined) watchedReals.delete(real);
    reals.delete(folder);
  };

  const onChange = (folder: string, name: string | Buffer | null) => {
    if (closed) return;
    const path = name === null || name === '' ? folder : join(folder, name.toString());
    if (path !== folder && ignored(path)) return;
    options.onEvent(path);
    // An entry added, removed or renamed: a folder that appeared is watched, one that
    // went is let go.
    if (options.depth !== 0 && path !== folder) void follow(path);
  };

  /** Watches a folder, then (unless depth 0) every folder below it. */
  const add = async (folder: string, below: boolean): Promise<void> => {
    if (closed || watchers.has(folder)) return;
    const real = await realpath(folder).catch(() => undefined);
    if (real === undefined || closed || watchers.has(folder)) return;
    if (watchedReals.has(real)) return;
    let w: FSWatcher;
    try {
      w = watch(folder, { persistent: false }, (_event, name) => onChange(folder, name));
    } catch (e) {
      options.onError(e);
      return;
    }
    w.on('error', (e) => {
      w.close();
      forget(folder);
      if (!closed) options.onError(e);
    });
    watchers.set(folder, w);
    reals.set(folder, real);
    watchedReals.add(real);
    if (!below) return;
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (ignored(path)) continue;
      if (entry.isDirectory()) await add(path, true);
      else if (entry.isSymbolicLink() && (await isFolder(path))) await add(path, true);
    }
  };

  /** What an entry is now: a folder to watch, or gone (its watchers let go). */
  const follow = async (path: string): Promise<void> => {
    if (await isFolder(path)) {
      if (!watchers.has(path)) {
        await add(path, true);
        // Entries made in it before its watch began are found by the read of `path`.
        if (!closed) options.onEvent(path);
      }
    } else unwatch(path);
  };

  const ready = (async () => {
    for (const root of roots) await add(root, options.depth !== 0);
  })();

  return {
    ready,
    get folders() {
      return [...watchers.keys()];
    },
    watching(folder) {
      return watchers.has(folder);
    },
    close() {
      closed = true;
      for (const w of watchers.values()) w.close();
      watchers.clear();
      reals.clear();
      watchedReals.clear();
    },
  };
}

// --- internal ---

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}
