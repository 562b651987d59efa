// Long pure work (building a large pack's snapshot, comparing two versions) runs in steps;
// a caller that must keep answering requests meanwhile passes a yielder, which the work
// asks between steps and awaits when the slice is used up.

/**
 * Lets long work give the event loop a turn: `due` is asked between steps, and `pause()`
 * awaited when it is true (the source layer's `Slices` is one).
 */
export interface Yielder {
  readonly due: boolean;
  pause(): Promise<void>;
}

/**
 * Runs a stepped computation to its end: at once without a yielder, else pausing
 * whenever the yielder says the slice is used up.
 */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** {@link runSteps}, giving the event loop a turn whenever `yielder` is due. */
export async function runStepsSliced<T>(steps: Generator<void, T>, yielder: Yielder): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (yielder.due) await yielder.pause();
  }
}
