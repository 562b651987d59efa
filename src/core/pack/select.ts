import { compileGlob } from './glob.js';
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
 * Whether every left-out name in a path (`.config/agents/x.md`, `node_modules/x/NOTES.md`;
 * see {@link leftOut}) is one of `names`.
 */
export function hiddenAllowed(names: readonly string[], path: string): boolean {
  // Most paths have no hidden segment and no dependency folder: no split for them.
  if (path.charCodeAt(0) !== 46 && !path.includes('/.') && !path.includes(DEPENDENCIES)) return true;
  for (const seg of path.split('/')) if (leftOut(seg) && !names.includes(seg)) return false;
  return true;
}

/**
 * Whether a file or folder name is left out of a pack unless `hidden:` names it: a name
 * starting with `.`, or `node_modules` (a project's installed packages: a project root read
 * for a few notes files would otherwise hold tens of thousands of files).
 */
export function leftOut(name: string): boolean {
  return name.charCodeAt(0) === 46 || name === DEPENDENCIES;
}

const DEPENDENCIES = 'node_modules';
