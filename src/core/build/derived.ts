import type { Substitution } from '../layout.js';
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

/**
 * The folders holding a file of the pack (read or not, `.git` entries included), each with
 * the ones above it: every folder on the way to one of them is one too. A build of a pack
 * with chain layers makes it (they look folders up on their first compose); a patched
 * build, which keeps every path, carries it over.
 */
export function packFolders(snapshot: Snapshot): ReadonlySet<string> {
  return derived(snapshot, PACK_FOLDERS, collectFolders);
}

/** The slot of {@link packFolders}. */
export const PACK_FOLDERS = 'pack-folders';

/**
 * The texts the pack's layout replaces in each file (Claude Code plugins'
 * `${CLAUDE_PLUGIN_ROOT}`), by file path; undefined when its layout replaces none. Its
 * rule reads every path of the pack: a build makes it, a patched build (which keeps every
 * path) carries it over.
 */
export function pathSubstitutions(snapshot: Snapshot): SubstitutionsOf | undefined {
  return derived(snapshot, PATH_SUBSTITUTIONS, substitutionsOf);
}

/** The slot of {@link pathSubstitutions}. */
export const PATH_SUBSTITUTIONS = 'path-substitutions';

/** A file's substitutions, by its path. */
export type SubstitutionsOf = (path: string) => readonly Substitution[];

// --- internal ---

const SLOTS: unique symbol = Symbol('derived look-ups');

interface WithSlots {
  [SLOTS]?: Map<string, unknown>;
}

function collectFolders(snapshot: Snapshot): ReadonlySet<string> {
  const known = new Set<string>();
  const add = (path: string) => {
    for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1)) {
      const folder = path.slice(0, at);
      if (known.has(folder)) break;
      known.add(folder);
    }
  };
  for (const path of snapshot.files.keys()) add(path);
  for (const path of snapshot.unreadable ?? []) add(path);
  for (const folder of snapshot.gitFolders ?? []) add(`${folder}/.git`);
  return known;
}

function substitutionsOf(snapshot: Snapshot): SubstitutionsOf | undefined {
  const rule = snapshot.preset ? snapshot.layouts?.get(snapshot.preset)?.substitutions : undefined;
  return rule?.forPaths([...snapshot.files.keys()]);
}
