import type { Agent } from './fleet.js';
import type { Snapshot } from './snapshot-types.js';

// Look-ups derived from a snapshot (its fleet by id, its folders, its warnings by file, the
// names it knows) are worked out when first needed and kept with the snapshot object itself:
// a snapshot never changes, so neither do they, and they go when the snapshot goes. Nothing
// is kept between snapshots or in the module.

/**
 * `compute(snapshot)`, worked out once per snapshot and slot `name` (a constant naming what
 * it is, unique across callers).
 *
 * @example
 * const byId = derived(snapshot, 'fleet-by-id', (s) => new Map(s.fleet.map((a) => [a.id, a])));
 */
export function derived<T>(snapshot: Snapshot, name: string, compute: (snapshot: Snapshot) => T): T {
  let slots = (snapshot as WithSlots)[SLOTS];
  if (slots === undefined) {
    slots = new Map();
    // A frozen snapshot cannot keep its look-ups: they are worked out each time.
    if (!Object.isExtensible(snapshot)) return compute(snapshot);
    Object.defineProperty(snapshot, SLOTS, { value: slots });
  }
  const known = slots.get(name);
  if (known !== undefined || slots.has(name)) return known as T;
  const value = compute(snapshot);
  slots.set(name, value);
  return value;
}

/**
 * Gives `to` the look-up `from` holds in slot `name`, when it has one: for a snapshot
 * that shares what the look-up is derived from (a patched build shares its fleet).
 */
export function carryDerived(from: Snapshot, to: Snapshot, name: string): void {
  const held = (from as WithSlots)[SLOTS];
  if (held?.has(name)) derived(to, name, () => held.get(name));
}

/** The fleet of a snapshot by agent id (the last of a repeated id). */
export function fleetById(snapshot: Snapshot): ReadonlyMap<string, Agent> {
  return derived(snapshot, FLEET_BY_ID, (s) => new Map(s.fleet.map((a) => [a.id, a])));
}

/** The slot of {@link fleetById}: a build fills it, a patched build carries it over. */
export const FLEET_BY_ID = 'fleet-by-id';

// --- internal ---

const SLOTS: unique symbol = Symbol('derived look-ups');

interface WithSlots {
  [SLOTS]?: Map<string, unknown>;
}
