import { lstatSync } from 'node:fs';
import { type ReadScope, readScopeOf } from '../core/build/read-scope.js';
import type { Snapshot } from '../core/build/snapshot.js';
import type { Manifest } from '../core/pack/manifest.js';
import { LAYOUTS } from '../layouts/registry.js';

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
  #failed: Manifest | undefined;
  #failedScope: ReadScope | undefined;

  /**
   * `rel`: the event's pack-relative path; `path`: the same on disk; `watched`: whether a
   * folder is watched now (one that just went still is when its event is reported).
   * `failed`: the manifest of the last reload that failed (a `strata.yaml` naming a fleet
   * file that is not there yet): what it can select counts too, so the file's arrival is
   * read although the served version does not select it.
   */
  counts(
    snapshot: Snapshot,
    rel: string,
    path: string,
    watched: (path: string) => boolean,
    failed?: Manifest,
  ): boolean {
    if (snapshot !== this.#snapshot) {
      this.#snapshot = snapshot;
      this.#scope = readScopeOf(snapshot.manifest, snapshot.layouts ?? LAYOUTS);
    }
    if (!this.#scope || this.#scope.has(rel)) return true;
    if (failed !== this.#failed) {
      this.#failed = failed;
      this.#failedScope = failed && readScopeOf(failed, snapshot.layouts ?? LAYOUTS);
    }
    if (failed && (!this.#failedScope || this.#failedScope.has(rel))) return true;
    const st = lstatSync(path, { throwIfNoEntry: false });
    return (st !== undefined && !st.isFile()) || watched(path);
  }
}
