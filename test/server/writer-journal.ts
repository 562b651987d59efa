import { join } from 'node:path';
import type { Snapshot } from '../../src/core/build/snapshot.js';
import { loadPack } from '../../src/source/load.js';

// What a writer that is not atomic left a pack folder in, and for how long at most. The
// reload rule (docs/operations.md, "One consistency rule for every reload") takes a state
// of the pack only once it has stood unchanged for the quiet period; a writer whose steps
// come closer together than that is never caught mid-way. But on a machine whose cores
// other work keeps busy, the writer itself may be descheduled between two steps for
// longer than the quiet period: the state between them then stood that long, and serving
// it is what the rule says. A consistency test asks the journal which states stood long
// enough, and allows an answer from one of those besides the whole versions; on a quiet
// machine there are none, and every answer must be a whole version.

/** The changing files of a pack in one state (path → text; null: no such file). */
export type PackState = Readonly<Record<string, string | null>>;

/**
 * Records each step of a writer (a synchronous write, rename or swap) and the state it
 * leaves the pack in, and keeps every state that may have stood for the quiet period:
 * a state stands from the end of the step that made it (not before that step began) to
 * the end of the next step (not after that one ended).
 */
export class WriterJournal {
  readonly #quietMs: number;
  #state: PackState;
  /** When the step that made the current state began. */
  #since = Number.NEGATIVE_INFINITY;
  readonly #standing: PackState[] = [];

  /** `initial`: the changing files as the pack holds them before the first step. */
  constructor(quietMs: number, initial: PackState) {
    this.#quietMs = quietMs;
    this.#state = { ...initial };
  }

  /**
   * Runs one step that changes `changes` (path → new text), and records the state it
   * leaves. `during` is what a reader may see while the step runs (a file written in
   * place is empty between its truncation and its write), kept when the step itself
   * took the quiet period.
   */
  step(changes: PackState, run: () => void, during?: PackState): void {
    const began = performance.now();
    run();
    const ended = performance.now();
    if (this.#stood(ended - this.#since)) this.#standing.push(this.#state);
    if (during && this.#stood(ended - began)) this.#standing.push({ ...this.#state, ...during });
    this.#state = { ...this.#state, ...changes };
    this.#since = began;
  }

  /**
   * The states that may have stood for the quiet period, each once: those the steps so
   * far ended, and the current one when it has stood that long by now.
   */
  standing(): readonly PackState[] {
    const states = [...this.#standing];
    if (this.#stood(performance.now() - this.#since)) states.push(this.#state);
    const seen = new Map<string, PackState>();
    for (const state of states) seen.set(JSON.stringify(Object.entries(state).sort()), state);
    return [...seen.values()];
  }

  /** Whether a state that lasted at most `ms` may have stood for the quiet period. */
  #stood(ms: number): boolean {
    // File times advance in ticks of a few milliseconds: a change may look that much older.
    return ms >= this.#quietMs - TICK_MS;
  }
}

/**
 * The keys (`key` of its snapshot) under which the pack in each state would be served,
 * each state written to a folder of its own under `base` by `write`; a state that does
 * not load (an empty file) has none: it is never served.
 */
export async function keysOfStates(
  states: readonly PackState[],
  base: string,
  write: (dir: string, state: PackState) => Promise<void>,
  key: (snapshot: Snapshot) => string,
): Promise<Set<string>> {
  const out = new Set<string>();
  for (const [i, state] of states.entries()) {
    const dir = join(base, `standing-${i}`);
    await write(dir, state);
    const { snapshot } = await loadPack(dir, { env: {} });
    try {
      if (snapshot) out.add(key(snapshot));
    } catch {
      // A state whose prompt does not compose is never served as one.
    }
  }
  return out;
}

// --- internal ---

/** The coarsest tick of file times the reader may compare (a kernel's jiffy, at 100 Hz). */
const TICK_MS = 10;
