import type { Snapshot } from '../core/build/snapshot.js';
import type { ComposeResult } from '../core/compose/compose.js';
import { composeMember, type Member, packMembers } from '../core/compose/members.js';
import type { Diagnostic } from '../core/text/diagnostics.js';
import { byteOrder } from '../core/text/text.js';
import { engineOf } from '../engine/default-engine.js';

/** Every member's composed prompt, and the members that failed to compose. */
export interface FleetComposition {
  composed: Array<{ member: Member; result: ComposeResult }>;
  failed: Array<{ member: Member; diagnostics: Diagnostic[] }>;
}

/**
 * Composes every member of the pack (its fleet; every known role without one) with the
 * same setting overrides (none: the snapshot's own settings). Cached per snapshot and
 * overrides in the shared byte-bounded cache, as the service asks for it on every
 * provider-format request.
 */
export function composeFleet(
  snapshot: Snapshot,
  settings?: Readonly<Record<string, unknown>>,
): FleetComposition {
  const key = JSON.stringify(Object.entries(settings ?? {}).sort(([a], [b]) => byteOrder(a, b)));
  const cached = fleets(snapshot).get(snapshot, key);
  if (cached) return cached;
  const composition: FleetComposition = { composed: [], failed: [] };
  for (const member of packMembers(snapshot)) {
    const outcome = composeMember(snapshot, member, settings);
    if (outcome.ok) composition.composed.push({ member, result: outcome.result });
    else composition.failed.push({ member, diagnostics: outcome.diagnostics });
  }
  fleets(snapshot).set(snapshot, key, composition, compositionBytes(composition));
  return composition;
}

// --- internal ---

const fleets = (snapshot: Snapshot) => engineOf(snapshot).cache.view<FleetComposition>('fleet');

/** An upper bound of what a composition holds: its texts, plus a generous amount per layer. */
function compositionBytes(c: FleetComposition): number {
  let bytes = 0;
  for (const { result } of c.composed) bytes += result.text.length * 2 + result.layers.length * 512 + 1024;
  for (const { diagnostics } of c.failed) bytes += diagnostics.length * 512 + 256;
  return bytes;
}
