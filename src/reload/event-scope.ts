import { lstatSync } from 'node:fs';
import { type ReadScope, readScopeOf } from '../core/read-scope.js';
import type { Snapshot } from '../core/snapshot.js';

/**
 * Whether a file event is about the served pack at all, by the pack's read scope (see
 * `readScopeOf`): a file the pack cannot select (build output beside a project's
 * AGENTS.md files) is no part of it, and its events start no reload — a build writing
 * thousands of files delays nothing. A folder counts (it may hold files that are), and so
 * does a symlink, and a path that is gone or is a file but was a watched folder (moved
 * away or replaced: what it held went with it). The scope follows the served snapshot.
 *
 * @example
 * const scope = new EventScope();
 * if (scope.counts(snapshot, 'target/debug/main.o', '/repo/target/debug/main.o', watched)) reload();
 */
export class EventScope {
  #snapshot: Snapshot | undefined;
  #scope: ReadScope | undefined;

  /**
   * `rel`: the event's pack-relative path; `path`: the same on disk; `watched`: whether a
   * folder is watched now (one that just went still is when its event is reported).
   */
  counts(snapshot: Snapshot, rel: string, path: string, watched: (path: string) => boolean): boolean {
    if (snapshot !== this.#snapshot) {
      this.#snapshot = snapshot;
      this.#scope = readScopeOf(snapshot.manifest);
    }
    if (!this.#scope || this.#scope.has(rel)) return true;
    const st = lstatSync(path, { throwIfNoEntry: false });
    return (st !== undefined && !st.isFile()) || watched(path);
  }
}
