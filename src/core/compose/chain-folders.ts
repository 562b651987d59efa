import { derived, listedFolders, packFolders } from '../build/derived.js';
import type { Snapshot } from '../build/snapshot-types.js';
import { closestNames } from '../text/suggest.js';

// The folder a chain's path means when it names one the pack does not have.

/**
 * For a chain's folder path (pack-relative, normalised), the first folder on the way that
 * the pack does not have (no file of the pack lies in or below it) and the folder of the
 * pack it differs from only in letter case, Unicode normalisation (NFC `é` against NFD
 * `e` + U+0301) or Windows separators (`backend\api`), when there is one: a path written so
 * reads none of that folder's files. Undefined when every folder is the pack's, or when no
 * folder is that close (a working directory without files of its own is common).
 *
 * @example
 * misnamedFolder(snapshot, 'Backend/api'); // { given: 'Backend', meant: 'backend' }
 * misnamedFolder(snapshot, 'café'); // { given: 'café', meant: 'café', spelled: 'caf\u00e9 is written cafe\u0301 in the pack' }
 */
export function misnamedFolder(
  snapshot: Snapshot,
  dir: string,
): { given: string; meant: string; spelled?: string } | undefined {
  if (dir === '') return undefined;
  const known = packFolders(snapshot);
  for (let at = dir.indexOf('/'); ; at = dir.indexOf('/', at + 1)) {
    const folder = at === -1 ? dir : dir.slice(0, at);
    if (!known.has(folder)) {
      const meant = foldedFolders(snapshot)
        .get(fold(folder))
        ?.find((f) => f !== folder);
      if (meant === undefined) return undefined;
      // Two spellings that look alike: said in code points.
      return folder.normalize('NFC') === meant.normalize('NFC')
        ? {
            given: folder,
            meant,
            spelled: `${codePoints(folder)} is written ${codePoints(meant)} in the pack`,
          }
        : { given: folder, meant };
    }
    if (at === -1) return undefined;
  }
}

/**
 * When the reader listed every folder of the pack (`snapshot.folders`): the first folder
 * of `dir`'s path that is not one of them, with the closest folder paths that are, else
 * undefined (the pack root, a folder there, or folders not listed).
 *
 * @example
 * missingFolder(snapshot, 'frontend/scr'); // { folder: 'frontend/scr', suggestions: ['frontend/src'] }
 */
export function missingFolder(
  snapshot: Snapshot,
  dir: string,
): { folder: string; suggestions: string[] } | undefined {
  const listed = dir === '' ? undefined : listedFolders(snapshot);
  if (listed === undefined) return undefined;
  for (let at = dir.indexOf('/'); ; at = dir.indexOf('/', at + 1)) {
    const folder = at === -1 ? dir : dir.slice(0, at);
    if (!listed.has(folder)) {
      const parent = folder.slice(0, Math.max(folder.lastIndexOf('/'), 0));
      const siblings = [...listed].filter((f) => f.slice(0, Math.max(f.lastIndexOf('/'), 0)) === parent);
      return { folder, suggestions: closestNames(folder, siblings) };
    }
    if (at === -1) return undefined;
  }
}

/** Whether `dir` is the pack root or a folder holding a file of the pack (read or not). */
export function isPackFolder(snapshot: Snapshot, dir: string): boolean {
  return dir === '' || packFolders(snapshot).has(dir);
}

// --- internal ---

/** The pack's folders by their {@link fold}ed paths: made once per snapshot, when a path names a folder the pack does not have. */
function foldedFolders(snapshot: Snapshot): ReadonlyMap<string, string[]> {
  return derived(snapshot, 'folded-folders', (s) => {
    const byFold = new Map<string, string[]>();
    for (const folder of packFolders(s)) {
      const key = fold(folder);
      const list = byFold.get(key);
      if (list) list.push(folder);
      else byFold.set(key, [folder]);
    }
    return byFold;
  });
}

/** Non-ASCII characters as `\u` escapes: `café` as `caf\u00e9`, its NFD form as `cafe\u0301`. */
function codePoints(text: string): string {
  return [...text]
    .map((c) => (c.charCodeAt(0) < 0x80 ? c : `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`))
    .join('');
}

/** A folder path as a case-blind, normalisation-blind reader with Windows separators sees it. */
function fold(path: string): string {
  return path.normalize('NFC').toLowerCase().replace(/\\/g, '/');
}
