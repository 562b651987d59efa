import type { Diagnostic } from '../../core/text/diagnostics.js';

// Shared compose outcomes are frozen, deeply, so no caller can change what the next one
// gets. The walk follows the outcome's known shape instead of reading every property:
// reading would compute the layer hashes, which are computed only when a caller asks. A
// result's `layers` is not read either: it is finished on its first read, and frozen then
// (by the core's lazy layer list) when the result is.

/**
 * Freezes a compose outcome and everything it holds (result, settings, inputs, diagnostics
 * and their suggestions; the layers when they are first read); returns it. `settled`: the
 * settings objects that are frozen already (the snapshot's), not frozen again.
 */
export function freezeOutcome<O extends FreezableOutcome>(outcome: O, settled?: SettledSettings): O {
  if (outcome.ok) freezeResult(outcome.result, settled);
  else freezeDiagnostics(outcome.diagnostics);
  return Object.freeze(outcome);
}

/** The parts of a compose outcome that hold objects (compose.ts's ComposeOutcome). */
export type FreezableOutcome =
  | { ok: true; result: FreezableResult }
  | { ok: false; diagnostics: Diagnostic[] };

/** Settings objects that are frozen already. */
export interface SettledSettings {
  values: object;
  sources: object;
}

interface FreezableResult {
  settings: object;
  settingSources: object;
  inputs?: object;
  inputSources?: object;
  diagnostics: Diagnostic[];
}

// --- internal ---

function freezeResult(result: FreezableResult, settled: SettledSettings | undefined): void {
  if (result.settings !== settled?.values) Object.freeze(result.settings);
  if (result.settingSources !== settled?.sources) Object.freeze(result.settingSources);
  if (result.inputs) Object.freeze(result.inputs);
  if (result.inputSources) Object.freeze(result.inputSources);
  // Most results have no diagnostics: they share one frozen empty list.
  if (result.diagnostics.length === 0) result.diagnostics = NO_DIAGNOSTICS;
  else freezeDiagnostics(result.diagnostics);
  Object.freeze(result);
}

const NO_DIAGNOSTICS = Object.freeze([]) as unknown as Diagnostic[];

function freezeDiagnostics(diagnostics: Diagnostic[]): void {
  if (Object.isFrozen(diagnostics)) return;
  for (const d of diagnostics) {
    if (d.suggestions) Object.freeze(d.suggestions);
    Object.freeze(d);
  }
  Object.freeze(diagnostics);
}
