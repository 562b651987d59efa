import { derived } from '../build/derived.js';
import type { Snapshot } from '../build/snapshot.js';
import { closestNames } from '../text/suggest.js';

// The pack's files closest to a path it lacks: what a missing layer file was maybe meant to be.

/**
 * The files of `snapshot` in the folder of `path` whose names are closest to its name
 * (`roles/qaa.md` for a missing `roles/qa.md`), as whole paths. A file named for a role,
 * agent or team the pack declares elsewhere (its registry and fleet) is that one's file,
 * not a misspelling: `identities/w1.md` is never offered for a missing `identities/c1.md`. The
 * pack's files are indexed by folder once per snapshot, when first asked.
 */
export function closestFiles(snapshot: Snapshot, path: string): string[] {
  const folders = derived(snapshot, 'closest-files', namesByFolder);
  const [folder, name] = split(path);
  const names = folders.get(folder);
  if (!names) return [];
  return closestNames(name, names).map((n) => (folder === '' ? n : `${folder}/${n}`));
}

// --- internal ---

/** The pack's file names by folder, but those a fleet, role or team name declares. */
function namesByFolder(snapshot: Snapshot): Map<string, string[]> {
  const declared = new Set<string>();
  for (const agent of snapshot.fleet) {
    declared.add(agent.id);
    if (agent.role !== undefined) declared.add(agent.role);
    if (agent.team !== undefined) declared.add(agent.team);
  }
  const folders = new Map<string, string[]>();
  for (const file of snapshot.files.keys()) {
    const [folder, name] = split(file);
    // (A role its own file declares, as a discovered one, is no other role's name.)
    const named = stem(name);
    const role = snapshot.roles.get(named);
    if (declared.has(named) || (role !== undefined && role.source !== file)) continue;
    const names = folders.get(folder);
    if (names) names.push(name);
    else folders.set(folder, [name]);
  }
  return folders;
}

/** A file name without its last extension. */
function stem(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? name : name.slice(0, dot);
}

function split(path: string): [folder: string, name: string] {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? ['', path] : [path.slice(0, slash), path.slice(slash + 1)];
}
