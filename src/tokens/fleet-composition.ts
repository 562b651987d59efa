import type { ComposeResult } from '../core/compose.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { composeMember, type Member, packMembers } from '../core/members.js';
import type { Snapshot } from '../core/snapshot.js';

/** Every member's composed prompt, and the members that failed to compose. */
export interface FleetComposition {
  composed: Array<{ member: Member; result: ComposeResult }>;
  failed: Array<{ member: Member; diagnostics: Diagnostic[] }>;
}

/**
 * Composes every member of the pack (its fleet; every known role without one) with the
 * same setting overrides (none: the snapshot's own settings). Cached per snapshot and
 * overrides, as the service asks for it on every provider-format request.
 */
export function composeFleet(
  snapshot: Snapshot,
  settings?: Readonly<Record<string, unknown>>,
): FleetComposition {
  const key = JSON.stringify(Object.entries(settings ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  let perSnapshot = fleets.get(snapshot);
  if (!perSnapshot) {
    perSnapshot = new Map();
    fleets.set(snapshot, perSnapshot);
  }
  const cached = perSnapshot.get(key);
  if (cached) return cached;
  const composition: FleetComposition = { composed: [], failed: [] };
  for (const member of packMembers(snapshot)) {
    const outcome = composeMember(snapshot, member, settings);
    if (outcome.ok) composition.composed.push({ member, result: outcome.result });
    else composition.failed.push({ member, diagnostics: outcome.diagnostics });
  }
  if (perSnapshot.size >= MAX_CACHED) perSnapshot.delete(perSnapshot.keys().next().value!);
  perSnapshot.set(key, composition);
  return composition;
}

// --- internal ---

/** Distinct setting overrides remembered per snapshot. */
const MAX_CACHED = 64;
const fleets = new WeakMap<Snapshot, Map<string, FleetComposition>>();
