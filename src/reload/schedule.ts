import { PathHints } from './hints.js';

/** What a reload found, as far as scheduling the next one goes. */
export type ReadResult =
  /** The read was consistent (whatever it then did: swapped, unchanged, failed validation). */
  | 'settled'
  /** The read saw the pack changing and decided nothing: the pack must be read again. */
  | 'unstable';

export interface ScheduleOptions {
  /** The pack must be quiet this long after the last event before it is read. */
  debounceMs: number;
  /** Longest a stream of events may postpone a read. */
  maxWaitMs: number;
  /** First pause before re-reading after an unstable read; doubles on each one after. */
  minRetryMs: number;
  /** Longest pause before re-reading after an unstable read. */
  maxRetryMs: number;
  /** Time and timers (default: the process's own). */
  clock?: Clock;
}

/** The time and timers a {@link ReloadSchedule} runs on. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Decides when the watcher reads the pack, one read at a time, so that a read of the
 * final state always follows the last change. Every file event marks the pack dirty; a
 * read clears the mark as it begins, so an event during a read (or during a pause after
 * an unstable one) leaves it set and forces one more read once that read is done. Reads
 * wait for `debounceMs` of quiet, but never longer than `maxWaitMs` after the first
 * pending event. A read that saw the pack changing is repeated after a pause that doubles
 * up to `maxRetryMs`; an event brings the pause forward.
 *
 * Events may name the pack path they concern: a read takes the paths named since the
 * last read began as its hints (see {@link PathHints}: over a bound, or after an event
 * naming no path, it is a full read), and events during a read go to the next read's
 * hints. A read that found the pack changing is retried with its hints and any new ones,
 * so no path is lost. The backstop poll tells the schedule what it found as events do
 * (`notify(path, 'poll')`: a read only the poll asked for is a `poll` read); its whole
 * read ({@link poll}, when it cannot tell) runs only on an idle, quiet pack.
 *
 * @example
 * const schedule = new ReloadSchedule(
 *   async (trigger) => ((await store.reload(trigger)).outcome === 'superseded' ? 'unstable' : 'settled'),
 *   { debounceMs: 100, maxWaitMs: 1000, minRetryMs: 100, maxRetryMs: 5000 },
 * );
 * watcher.on('all', (_event, path) => schedule.notify(relative(dir, path)));
 */
export class ReloadSchedule {
  #read: ScheduledRead;
  #options: ScheduleOptions;
  #clock: Clock;
  #timer: unknown;
  /** `debounce`: waiting for quiet after events; `retry`: pausing after an unstable read. */
  #waiting: 'debounce' | 'retry' | undefined;
  #reading = false;
  #dirty = false;
  #hints = new PathHints();
  #events = 0;
  #lastEventAt = Number.NEGATIVE_INFINITY;
  #pendingSince: number | undefined;
  #retryMs = 0;
  #closed = false;
  /** Whether every notification since the last read began came from the poll. */
  #fromPoll = false;

  constructor(read: ScheduledRead, options: ScheduleOptions) {
    this.#read = read;
    this.#options = options;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
  }

  /**
   * A file event: the pack may have changed since the last read began. `path` is the
   * pack-relative path (`/`-separated) the event concerns; without one the next read
   * reads the whole pack. `from` says who saw the change: the watcher's events, or the
   * poll comparing identities (a read only the poll asked for is a `poll` read).
   */
  notify(path?: string, from: 'watch' | 'poll' = 'watch'): void {
    if (this.#closed) return;
    this.#fromPoll = from === 'poll' && (this.#fromPoll || !this.#dirty);
    this.#events++;
    this.#dirty = true;
    this.#hints.add(path);
    this.#lastEventAt = this.#clock.now();
    this.#pendingSince ??= this.#lastEventAt;
    // A read in progress re-arms when it ends; a retry pause is brought forward.
    if (this.#reading || this.#waiting === 'debounce') return;
    this.#arm(this.#options.debounceMs, 'debounce');
  }

  /**
   * The backstop poll's whole read: reads the pack when nothing is pending, running or
   * recent ({@link idle}). Resolves once that read is done; undefined when none began.
   */
  poll(): Promise<void> | undefined {
    if (!this.idle) return undefined;
    return this.#start('poll', true);
  }

  /** True when no read runs or waits and no event came within the debounce. */
  get idle(): boolean {
    if (this.#closed || this.#reading || this.#waiting) return false;
    return this.#clock.now() - this.#lastEventAt >= this.#options.debounceMs;
  }

  /** How many file events there have been: a read compares it before and after. */
  get events(): number {
    return this.#events;
  }

  /** True while a read runs or one is waiting to run. */
  get busy(): boolean {
    return this.#reading || this.#waiting !== undefined;
  }

  /** Stops scheduling; a read in progress finishes but starts nothing after it. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#waiting = undefined;
  }

  // --- internal ---

  #arm(delay: number, waiting: 'debounce' | 'retry'): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#waiting = waiting;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), Math.max(delay, 0));
  }

  #fire(): void {
    this.#timer = undefined;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (this.#closed || this.#reading) return;
    if (waiting === 'debounce') {
      const now = this.#clock.now();
      const quiet = now - this.#lastEventAt;
      const waited = now - (this.#pendingSince ?? now);
      const { debounceMs, maxWaitMs } = this.#options;
      if (quiet < debounceMs && waited < maxWaitMs) {
        this.#arm(Math.min(debounceMs - quiet, maxWaitMs - waited), 'debounce');
        return;
      }
    }
    this.#start(this.#fromPoll ? 'poll' : 'watch');
  }

  /** Starts a read: `whole` (the poll's) reads everything, otherwise the paths named. */
  #start(trigger: 'watch' | 'poll', whole = false): Promise<void> {
    this.#dirty = false;
    this.#fromPoll = false;
    this.#pendingSince = undefined;
    this.#reading = true;
    // A full read covers every path named so far.
    const taken = this.#hints.take();
    const hints = whole ? undefined : taken;
    let read: Promise<ReadResult>;
    try {
      read = this.#read(trigger, hints);
    } catch {
      read = Promise.resolve('unstable');
    }
    // A read that threw decided nothing: it is retried like an unstable one.
    return read.catch((): ReadResult => 'unstable').then((result) => this.#finished(result, hints));
  }

  #finished(result: ReadResult, hints: readonly string[] | undefined): void {
    this.#reading = false;
    // A read that decided nothing still owes its paths to the next one.
    if (result === 'unstable') this.#hints.merge(hints);
    if (this.#closed) return;
    const { debounceMs, minRetryMs, maxRetryMs } = this.#options;
    this.#retryMs = result === 'unstable' ? Math.min(Math.max(this.#retryMs * 2, minRetryMs), maxRetryMs) : 0;
    // Events during the read: read again once the pack is quiet (the read may predate them).
    if (this.#dirty) this.#arm(debounceMs - (this.#clock.now() - this.#lastEventAt), 'debounce');
    else if (result === 'unstable') this.#arm(this.#retryMs, 'retry');
  }
}

/**
 * One read of the pack: `hints` are the pack paths events named since the last read
 * began (undefined: read everything).
 */
export type ScheduledRead = (trigger: 'watch' | 'poll', hints?: readonly string[]) => Promise<ReadResult>;

const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
