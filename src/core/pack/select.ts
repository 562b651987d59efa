import { compileGlob, globHoldsBelow } from './glob.js';
import type { Manifest } from './manifest.js';

// Which files of a directory belong to a pack: `files:` globs and `hidden:` folders.

/**
 * Which pack-relative paths are part of the pack: every folder or file name starting
 * with `.` must be one of the manifest's `hidden:` names, and with `files:` the path must
 * match one of its globs or be a file the pack's own manifest names (`named`: its fleet
 * file, role files, layer files). The globs are compiled once, for every path asked.
 */
export function pathSelector(
  manifest: Pick<Manifest, 'files' | 'hidden' | 'named'>,
): (path: string) => boolean {
  const globs = manifest.files && [...manifest.files, ...manifest.named.map((n) => n.glob)].map(compileGlob);
  return (path) => hiddenAllowed(manifest.hidden, path) && (!globs || globs.some((g) => g(path)));
}

/**
 * Which pack-relative folders may hold a path of the pack ({@link pathSelector}): a folder
 * whose name the pack takes, with no `files:` or a glob that can match inside it. A folder
 * the reader cannot enter (a symlink leading out of the pack) is said when it may.
 */
export function folderSelector(
  manifest: Pick<Manifest, 'files' | 'hidden' | 'named'>,
): (folder: string) => boolean {
  const globs =
    manifest.files && [...manifest.files, ...manifest.named.map((n) => n.glob)].map(globHoldsBelow);
  return (folder) => hiddenAllowed(manifest.hidden, folder) && (!globs || globs.some((g) => g(folder)));
}

/**
 * Whether every left-out name in a path (`.config/agents/x.md`, `node_modules/x/NOTES.md`;
 * see {@link leftOut}) is one of `names`, or lies in a folder `names` opens whole
 * (`.config/notes/**`).
 */
export function hiddenAllowed(names: readonly string[], path: string): boolean {
  // Most paths have no hidden segment and no dependency folder: no split for them.
  if (path.charCodeAt(0) !== 46 && !path.includes('/.') && !DEPENDENCIES.some((d) => path.includes(d)))
    return true;
  let at = 0;
  for (const seg of path.split('/')) {
    if (leftOut(seg) && !names.includes(seg) && !openedBelow(names, path.slice(0, at))) return false;
    at += seg.length + 1;
  }
  return true;
}

/**
 * Whether a reader walking the folder `folder` (pack-relative, '' for the root) takes its
 * entry `name`: a name not left out, one of `names`, or any name in a folder below one
 * `names` opens whole (`.config/notes/**`: every file and folder there, hidden ones too).
 */
export function hiddenEntryAllowed(names: ReadonlySet<string>, folder: string, name: string): boolean {
  if (!leftOut(name) || names.has(name)) return true;
  for (const n of names) if (n.endsWith('/**') && `${folder}/`.startsWith(n.slice(0, -2))) return true;
  return false;
}

/**
 * Whether a file or folder name is left out of a pack unless `hidden:` names it: a name
 * starting with `.`, or a folder of a project's installed packages — `node_modules`, or
 * Python's `site-packages` and `dist-packages` (a virtual environment such as
 * `venv/lib/python3.12/site-packages` inside the project): a project root read for a few
 * notes files would otherwise hold tens of thousands of files, and the packages' own agent
 * or notes files, which are no part of the project.
 */
export function leftOut(name: string): boolean {
  return name.charCodeAt(0) === 46 || DEPENDENCIES.includes(name);
}

const DEPENDENCIES = ['node_modules', 'site-packages', 'dist-packages'];

/** Whether `parent` (a folder path ending in `/`) lies in a folder `names` opens whole (`x/**`). */
function openedBelow(names: readonly string[], parent: string): boolean {
  if (parent === '') return false;
  for (const n of names) if (n.endsWith('/**') && parent.startsWith(n.slice(0, -2))) return true;
  return false;
}
