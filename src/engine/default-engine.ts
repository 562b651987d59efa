import type { BuildInput, LoadResult, Snapshot } from '../core/build/snapshot-types.js';
import type { Yielder } from '../core/build/yielder.js';
import type { ComposeOutcome, ComposeRequest, ComposeResult } from '../core/compose/compose.js';
import type { Diagnostic } from '../core/text/diagnostics.js';
import { builtBy, createEngine, type Engine } from './engine.js';
import type { PackComparison } from './incremental/pack-compare.js';

// The engine the library's plain functions use (`compose`, `tryCompose`, `buildSnapshot`,
// `loadPack`, …): made with the default options. A service or a test that wants its own
// limits makes its own with `createEngine`.

/** The shared engine behind the library's plain functions. */
export const defaultEngine: Engine = createEngine();

/**
 * The engine whose cache a snapshot's work goes to: the one that built it (a service's own,
 * made with its `cacheBytes`), else the default engine. The plain functions below that take
 * a snapshot use it, so a snapshot served by a service is composed within its budget.
 */
export function engineOf(snapshot: Snapshot): Engine {
  return builtBy(snapshot) ?? defaultEngine;
}

/**
 * Composes a prompt (docs/pack-format.md), throwing a `PromptError` for a bad request.
 * Outcomes are memoised per snapshot and request in the default engine's byte-bounded
 * cache, and frozen: read-only, shared between callers.
 *
 * @example
 * const snapshot = await loadPackStrict('examples/roboco');
 * const { text, layers } = compose(snapshot, { agent: 'ada', settings: { fable_mode_enabled: 'on' } });
 */
export function compose(snapshot: Snapshot, request: ComposeRequest): ComposeResult {
  return engineOf(snapshot).compose(snapshot, request);
}

/**
 * Composes a prompt without throwing: bad requests come back as diagnostics (see
 * {@link compose}).
 */
export function tryCompose(snapshot: Snapshot, request: ComposeRequest): ComposeOutcome {
  return engineOf(snapshot).tryCompose(snapshot, request);
}

/**
 * Builds a snapshot from a pack's files in memory (pure: no I/O). Collects every problem
 * as a diagnostic; returns a snapshot only when there is no error.
 */
export function buildSnapshot(input: BuildInput): LoadResult {
  return defaultEngine.buildSnapshot(input);
}

/**
 * Why a pack is not fit to serve strictly: its load warnings, then every warning or error
 * of composing each member with the pack's own settings. Empty when every member composes
 * cleanly.
 */
export function packProblems(snapshot: Snapshot): Diagnostic[] {
  return engineOf(snapshot).packProblems(snapshot);
}

/** {@link packProblems} in steps, giving the event loop a turn when `yielder` is due. */
export function packProblemsSliced(snapshot: Snapshot, yielder: Yielder): Promise<Diagnostic[]> {
  return engineOf(snapshot).packProblemsSliced(snapshot, yielder);
}

/**
 * Compares two versions of a pack once, for the reload guard and the change report (which
 * members' prompts change, and what the new version takes away from them).
 */
export function comparePacks(
  current: Snapshot | undefined,
  next: Snapshot,
  yielder?: Yielder,
): Promise<PackComparison> {
  return engineOf(next).comparePacks(current, next, yielder);
}

/** Works out which pack files each member of a snapshot reads, for a later {@link comparePacks}. */
export function indexPack(
  snapshot: Snapshot,
  yielder?: Yielder,
): Promise<ReadonlyMap<string, readonly string[]>> {
  return engineOf(snapshot).indexPack(snapshot, yielder);
}
