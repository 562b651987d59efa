import type { Diagnostic } from '../text/diagnostics.js';

// Shared compose outcomes are frozen, deeply, so no caller can change what the next one
// gets. The walk follows the outcome's known shape instead of reading every property:
// reading would compute the layer hashes, which are computed only when a caller asks. A
// result's `layers` is not read either: it is finished on its first read, and frozen then
// (with freezeLayers) when the result is.

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

/** The diagnostics of a result without any: one shared frozen list. */
export const NO_DIAGNOSTICS = Object.freeze([]) as unknown as Diagnostic[];

/** Freezes a result's layers, their parts, and the list; returns the list. */
export function freezeLayers<L extends FreezableLayer>(layers: L[]): readonly L[] {
  for (const layer of layers) freezeLayer(layer);
  return Object.freeze(layers);
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

interface FreezableLayer {
  parts?: object[];
}

// --- internal ---

function freezeResult(result: FreezableResult, settled: SettledSettings | undefined): void {
  if (result.settings !== settled?.values) Object.freeze(result.settings);
  if (result.settingSources !== settled?.sources) Object.freeze(result.settingSources);
  if (result.inputs) Object.freeze(result.inputs);
  if (result.inputSources) Object.freeze(result.inputSources);
  freezeDiagnostics(result.diagnostics);
  Object.freeze(result);
}

function freezeLayer(layer: FreezableLayer): void {
  if (layer.parts) {
    for (const part of layer.parts) Object.freeze(part);
    Object.freeze(layer.parts);
  }
  Object.freeze(layer);
}

function freezeDiagnostics(diagnostics: Diagnostic[]): void {
  if (diagnostics === NO_DIAGNOSTICS) return;
  for (const d of diagnostics) {
    if (d.suggestions) Object.freeze(d.suggestions);
    Object.freeze(d);
  }
  Object.freeze(diagnostics);
}
