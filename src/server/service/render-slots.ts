// How many requests of one service may make an answer the cache does not hold at once.
// Each holds a few copies of its prompt (text, JSON, UTF-8 bodies, the text sent to the
// counting worker) until it is answered, so this bounds the memory of requests in flight;
// later requests wait for a slot (within their time budget, which runs from their start).

/** The default of `serve --max-renders`: 4 answers made at once. */
export const DEFAULT_MAX_RENDERS = 4;

/**
 * A service's render slots: at most `max` renders at once, the rest queued in order.
 *
 * @example
 * const slots = new RenderSlots(2);
 * const release = await slots.acquire();
 * try { … } finally { release(); }
 */
export class RenderSlots {
  #max: number;
  #active = 0;
  #waiting: Array<() => void> = [];

  constructor(max = DEFAULT_MAX_RENDERS) {
    this.#max = checked(max);
  }

  /** The most renders at once; raising it lets waiting renders start at once. */
  get max(): number {
    return this.#max;
  }

  set max(n: number) {
    this.#max = checked(n);
    while (this.#active < this.#max && this.#waiting.length > 0) {
      this.#active++;
      this.#waiting.shift()!();
    }
  }

  /** Renders in progress and waiting now (for metrics and tests). */
  load(): { max: number; active: number; waiting: number } {
    return { max: this.#max, active: this.#active, waiting: this.#waiting.length };
  }

  /** Waits for a slot; resolves to its release (which may be called more than once). */
  async acquire(): Promise<() => void> {
    if (this.#active < this.#max) this.#active++;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    return this.#release();
  }

  /** A slot's release if one is free now (none is while renders wait), else undefined. */
  tryAcquire(): (() => void) | undefined {
    if (this.#active >= this.#max) return undefined;
    this.#active++;
    return this.#release();
  }

  #release(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next && this.#active <= this.#max) next();
      else this.#active--;
    };
  }
}

// --- internal ---

function checked(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`maxRenders must be an integer ≥ 1, not ${n}`);
  return n;
}
