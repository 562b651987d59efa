/**
 * The pack paths file events named since a read began, so that the read can look only
 * at them (a hinted read) on top of the last complete one. Bounded: past
 * {@link MAX_HINTS} paths, or after any event that named no path of the pack (the root,
 * a ConfigMap `..data` swap, a root-link swap, a file outside the pack, a bundle), the
 * next read is a full one. An empty set also means a full read: a hinted read is only
 * ever asked for paths an event named.
 *
 * @example
 * const hints = new PathHints();
 * hints.add('roles/writer.md');
 * const paths = hints.take(); // ['roles/writer.md']; undefined: read everything
 */
export class PathHints {
  #paths = new Set<string>();
  #full = false;

  /** One event: a pack-relative path (`/`-separated), or undefined when there is none. */
  add(path?: string): void {
    if (this.#full) return;
    if (path === undefined || path === '' || this.#paths.size >= MAX_HINTS) {
      this.#full = true;
      this.#paths.clear();
    } else this.#paths.add(path);
  }

  /** Adds a whole request's hints (undefined: a full read). */
  merge(paths: readonly string[] | undefined): void {
    if (paths === undefined || paths.length === 0) this.add(undefined);
    else for (const p of paths) this.add(p);
  }

  /** Whether nothing has been added since the last {@link take}. */
  get empty(): boolean {
    return !this.#full && this.#paths.size === 0;
  }

  /**
   * The paths to read (sorted), or undefined for a full read; starts a new set. A set
   * with no path at all is a full read too.
   */
  take(): readonly string[] | undefined {
    const paths = this.#full || this.#paths.size === 0 ? undefined : [...this.#paths].sort();
    this.#paths = new Set();
    this.#full = false;
    return paths;
  }
}

/** Paths kept for one read before it becomes a full read. */
export const MAX_HINTS = 256;
