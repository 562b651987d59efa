import type { Substitution } from '../layout.js';
import type { Agent } from './fleet.js';
import type { Snapshot } from './snapshot-types.js';

// Look-ups derived from a snapshot (its fleet by id, its folders, its warnings by file, the
// names it knows) are kept with the snapshot object itself: a snapshot never changes, so
// neither do they, and they go when the snapshot goes. Nothing is kept between snapshots or
// in the module. Most are worked out when first needed; those a first compose would make by
// walking every path or fleet member (the ones below) are made by the build, so that a
// request's first compose costs what the request reads, and a patched build carries them.

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
 * The teams the fleet's members have, and the roles they have that a file of the pack may
 * be named for without the registry saying so: a role the registry lacks, or one whose
 * record comes from a file of its own name (a discovered role's file). A build makes them;
 * a patched build, which shares the fleet and the registry, carries them over.
 */
export function fleetNames(snapshot: Snapshot): FleetNames {
  return derived(snapshot, FLEET_NAMES, (s) => {
    const teams = new Set<string>();
    const roles = new Set<string>();
    for (const agent of s.fleet) {
      const { role, team } = agent;
      if (team !== undefined) teams.add(team);
      if (role === undefined || roles.has(role)) continue;
      const source = s.roles.get(role)?.source;
      if (source === undefined || fileStem(source) === role) roles.add(role);
    }
    return { teams, roles };
  });
}

/** What {@link fleetNames} gives. */
export interface FleetNames {
  teams: ReadonlySet<string>;
  roles: ReadonlySet<string>;
}

/** The slot of {@link fleetNames}. */
export const FLEET_NAMES = 'fleet-names';

/**
 * The pack's file paths by folder ('' for the root), in the order of the pack's files. A
 * build of a pack with file layers makes it (a missing file's warning names the closest
 * files in its folder); a patched build, which keeps every path, carries it over.
 */
export function filesByFolder(snapshot: Snapshot): ReadonlyMap<string, readonly string[]> {
  return derived(snapshot, FILES_BY_FOLDER, (s) => {
    const folders = new Map<string, string[]>();
    let folder: string | undefined;
    let paths: string[] = [];
    for (const path of s.files.keys()) {
      const slash = path.lastIndexOf('/');
      // A folder's files mostly come one after another: its list is looked up once per run.
      const same =
        folder !== undefined &&
        (slash === -1 ? folder === '' : slash === folder.length && path.startsWith(folder));
      if (!same) {
        folder = slash === -1 ? '' : path.slice(0, slash);
        let list = folders.get(folder);
        if (list === undefined) {
          list = [];
          folders.set(folder, list);
        }
        paths = list;
      }
      paths.push(path);
    }
    return folders;
  });
}

/** The slot of {@link filesByFolder}. */
export const FILES_BY_FOLDER = 'files-by-folder';

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
 * Every folder below the root, when the reader listed them all (`snapshot.folders`), as a
 * set; undefined when it did not. Made with {@link packFolders}; carried the same way.
 */
export function listedFolders(snapshot: Snapshot): ReadonlySet<string> | undefined {
  if (snapshot.folders === undefined) return undefined;
  return derived(snapshot, LISTED_FOLDERS, (s) => new Set(s.folders));
}

/** The slot of {@link listedFolders}. */
export const LISTED_FOLDERS = 'listed-folders';

/**
 * How many role records each file defines (a registry file, many). A build whose snapshot
 * has warnings about files makes it (a compose tells its files' warnings from a registry
 * file's, which are about other roles); a patched build, which shares the registry,
 * carries it over.
 */
export function recordsByFile(snapshot: Snapshot): ReadonlyMap<string, number> {
  return derived(snapshot, RECORDS_BY_FILE, (s) => {
    const records = new Map<string, number>();
    for (const record of s.roles.values()) records.set(record.source, (records.get(record.source) ?? 0) + 1);
    return records;
  });
}

/** The slot of {@link recordsByFile}. */
export const RECORDS_BY_FILE = 'records-by-file';

/**
 * The texts the pack's layout replaces in each file (`Layout.substitutions`: a plugin's
 * root folder, say), by file path; undefined when its layout replaces none. Its rule reads
 * every path of the pack: a build makes it, a patched build (which keeps every path)
 * carries it over.
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
  return rule?.forPaths([...snapshot.files.keys()], (path) => snapshot.files.get(path)?.text);
}

/** A path's file name without its last extension (`roles/qa.md` → `qa`). */
function fileStem(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? name : name.slice(0, dot);
}
