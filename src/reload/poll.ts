import type { PackCheck } from '../source/pack-check.js';

/** How the backstop poll runs. */
export interface PollOptions {
  /** How often the folders are compared, and the shortest time a sweep of every file takes (ms). */
  pollMs: number;
  /** The share of one core the file sweep and whole reads may use, at most (default {@link POLL_SHARE}). */
  share?: number;
  /** The longest the sweep runs at once before the event loop gets a turn (default 4 ms). */
  sliceMs?: number;
}

/** What the poll tells of what it finds, and asks for when it cannot tell: the watcher's schedule. */
export interface PollTarget {
  /** True when no read runs or waits and no event came lately. */
  readonly idle: boolean;
  /** A change found: the path to look at, or none for the whole pack. */
  notify(path: string | undefined, from: 'poll'): void;
  /** Reads the whole pack when idle; resolves once done, undefined when none began. */
  poll(): Promise<void> | undefined;
}

/** What the poll watches beside the folder: a bundle, or files outside the pack. */
export interface PollSubject {
  /** True when the pack is a bundle file: it is read whole instead of compared. */
  bundle?: boolean;
  /** Files outside the pack the served snapshot holds (path settings). */
  external(): Iterable<string>;
}

/**
 * The watcher's backstop for events it missed: compares identities with the last read
 * (see {@link PackCheck}) and reads only what changed, so a pack at rest costs next to
 * nothing whatever its size. Every `pollMs`, when the schedule is idle: the pack's folders
 * (a few system calls per folder) and the files outside the pack; the paths found go to
 * the schedule as events do. A bundle is read whole, as a pack that cannot be compared. Meanwhile every file's identity is swept, a
 * slice of at most `sliceMs` at a time, each slice followed by a pause long enough that
 * the sweep uses at most `share` of a core (a sweep of every file takes `pollMs` or,
 * for a pack too large to sweep in that, as long as the share allows: about 100 s for
 * 150,000 files at 1%). When the last read cannot be compared with (it met a problem,
 * none is kept), the pack is read whole, at most every `pollMs` and never more than the
 * share allows.
 *
 * @example
 * const poll = new PackPoll(new PackCheck(dir), schedule, { external: () => [] }, { pollMs: 10_000 });
 * // … later
 * poll.close();
 */
export class PackPoll {
  readonly #check: PackCheck;
  readonly #target: PollTarget;
  readonly #subject: PollSubject;
  readonly #pollMs: number;
  readonly #share: number;
  readonly #sliceMs: number;
  #tick: ReturnType<typeof setTimeout> | undefined;
  #step: ReturnType<typeof setTimeout> | undefined;
  /** When the sweep under way began (undefined: none). */
  #sweepStarted: number | undefined;
  #lastSweepStarted = Number.NEGATIVE_INFINITY;
  /** No whole read before this time (its share of the last one's cost). */
  #wholeNotBefore = Number.NEGATIVE_INFINITY;
  #closed = false;
  /** True while the folders are being compared (a check spans turns of the event loop). */
  #checking = false;

  constructor(check: PackCheck, target: PollTarget, subject: PollSubject, options: PollOptions) {
    this.#check = check;
    this.#target = target;
    this.#subject = subject;
    this.#pollMs = options.pollMs;
    this.#share = options.share ?? POLL_SHARE;
    this.#sliceMs = options.sliceMs ?? 4;
    this.#armTick();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#tick);
    clearTimeout(this.#step);
  }

  // --- internal ---

  #armTick(): void {
    this.#tick = setTimeout(() => void this.#onTick(), this.#pollMs);
    this.#tick.unref();
  }

  async #onTick(): Promise<void> {
    if (this.#closed) return;
    this.#armTick();
    if (!this.#target.idle || this.#checking) return;
    // A bundle is one file: read again whole (its read is one `stat` when it is unchanged).
    if (this.#subject.bundle) {
      this.#whole();
      return;
    }
    // A file outside the pack changed (or cannot be compared: gone, never read): a whole read.
    if (!this.#check.sameFiles(this.#subject.external())) {
      this.#whole();
      return;
    }
    this.#checking = true;
    const found = await this.#check.folders().finally(() => {
      this.#checking = false;
    });
    if (this.#closed) return;
    if (found === undefined) {
      this.#whole();
      return;
    }
    for (const path of found) this.#target.notify(path, 'poll');
    const now = performance.now();
    if (this.#sweepStarted === undefined && now - this.#lastSweepStarted >= this.#pollMs) {
      this.#sweepStarted = this.#lastSweepStarted = now;
      this.#onStep();
    }
  }

  /** One slice of the sweep, then a pause so the sweep keeps to its share. */
  #onStep(): void {
    this.#step = undefined;
    if (this.#closed) return;
    if (!this.#target.idle) {
      // Reads are under way: the sweep waits (what it compares with is changing).
      this.#armStep(this.#sliceMs / this.#share);
      return;
    }
    const started = performance.now();
    const slice = this.#check.sweep(started + this.#sliceMs);
    const took = performance.now() - started;
    if (slice.changed === undefined) this.#target.notify(undefined, 'poll');
    else for (const path of slice.changed) this.#target.notify(path, 'poll');
    if (slice.done) this.#sweepStarted = undefined;
    else this.#armStep(took * (1 / this.#share - 1));
  }

  #armStep(ms: number): void {
    this.#step = setTimeout(() => this.#onStep(), Math.max(1, ms));
    this.#step.unref();
  }

  /** A whole read, when its share allows. */
  #whole(): void {
    const started = performance.now();
    if (started < this.#wholeNotBefore) return;
    const read = this.#target.poll();
    if (!read) return;
    void read.then(() => {
      const now = performance.now();
      this.#wholeNotBefore = now + (now - started) * (1 / this.#share - 1);
    });
  }
}

/** The share of one core the backstop poll uses at most, by default. */
export const POLL_SHARE = 0.01;
