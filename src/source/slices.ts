import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Runs synchronous file-system work in short slices: the worker asks {@link Slices.due}
 * between steps and, when the slice is used up, awaits {@link Slices.pause}, which gives
 * the event loop a turn (so a service keeps answering while it reads a large pack) and
 * throws {@link Slices.TIMED_OUT} once the deadline has passed.
 *
 * @example
 * const slices = new Slices(performance.now() + 30_000);
 * for (const file of files) {
 *   if (slices.due) await slices.pause();
 *   read(file);
 * }
 */
export class Slices {
  /** Thrown by {@link Slices.pause} after the deadline. */
  static readonly TIMED_OUT = Symbol('read timed out');
  #started = performance.now();

  /**
   * @param deadline `performance.now()` time after which the work stops.
   * @param sliceMs how long one slice may run before the event loop gets a turn.
   */
  constructor(
    readonly deadline: number,
    readonly sliceMs = 8,
  ) {}

  /** True when this slice is used up. */
  get due(): boolean {
    return performance.now() - this.#started >= this.sliceMs;
  }

  /** Gives the event loop a turn, then starts the next slice (or throws after the deadline). */
  async pause(): Promise<void> {
    await nextTurn();
    this.#started = performance.now();
    if (this.#started > this.deadline) throw Slices.TIMED_OUT;
  }
}

/**
 * `work`, or `late()` once `ms` have passed without it settling: a read waiting on a
 * stalled disk is given up (its system call may still finish later, unseen).
 */
export function withDeadline<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
  return new Promise<T>((done, fail) => {
    const timer = setTimeout(() => done(late()), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        done(value);
      },
      (e) => {
        clearTimeout(timer);
        fail(e);
      },
    );
  });
}
