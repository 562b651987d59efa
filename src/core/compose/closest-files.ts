import { filesByFolder, fleetById, fleetNames } from '../build/derived.js';
import type { Snapshot } from '../build/snapshot.js';
import { closestNames } from '../text/suggest.js';

// The pack's files closest to a path it lacks: what a missing layer file was maybe meant to be.

/**
 * The files of `snapshot` in the folder of `path` whose names are closest to its name
 * (`roles/qaa.md` for a missing `roles/qa.md`), as whole paths. A file named for a role,
 * agent or team the pack declares elsewhere (its registry and fleet) is that one's file,
 * not a misspelling: `identities/w1.md` is never offered for a missing `identities/c1.md`.
 * Reads the files of that folder only (the pack's files by folder are made with it).
 */
export function closestFiles(snapshot: Snapshot, path: string): string[] {
  const [folder, name] = split(path);
  const paths = filesByFolder(snapshot).get(folder);
  if (!paths) return [];
  const fleet = fleetNames(snapshot);
  const members = fleetById(snapshot);
  const names: string[] = [];
  for (const file of paths) {
    const own = folder === '' ? file : file.slice(folder.length + 1);
    const named = stem(own);
    // (A role its own file declares, as a discovered one, is no other role's name; a
    // fleet role the registry declares elsewhere is left out by the registry.)
    const role = snapshot.roles.get(named);
    if (role !== undefined && role.source !== file) continue;
    if (!members.has(named) && !fleet.roles.has(named) && !fleet.teams.has(named)) names.push(own);
  }
  return closestNames(name, names).map((n) => (folder === '' ? n : `${folder}/${n}`));
}

// --- internal ---

/** A file name without its last extension. */
function stem(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? name : name.slice(0, dot);
}

function split(path: string): [folder: string, name: string] {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? ['', path] : [path.slice(0, slash), path.slice(slash + 1)];
}
