import { globMatch } from './glob.js';
import type { Manifest } from './manifest.js';

// Which files of a directory belong to a pack: `files:` globs and `hidden:` folders.

/**
 * Whether a pack-relative path is part of the pack: every folder or file name starting
 * with `.` must be one of the manifest's `hidden:` names, and with `files:` the path must
 * match one of its globs or be a file the pack's own manifest names (`named`: its fleet
 * file, role files, layer files).
 */
export function selectPath(manifest: Pick<Manifest, 'files' | 'hidden' | 'named'>, path: string): boolean {
  if (!hiddenAllowed(manifest.hidden, path)) return false;
  return (
    !manifest.files ||
    manifest.files.some((g) => globMatch(g, path)) ||
    manifest.named.some((n) => globMatch(n.glob, path))
  );
}

/**
 * Whether every left-out name in a path (`.claude/agents/x.md`, `node_modules/x/AGENTS.md`;
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
 * for its AGENTS.md files would otherwise hold tens of thousands of files).
 */
export function leftOut(name: string): boolean {
  return name.charCodeAt(0) === 46 || name === DEPENDENCIES;
}

const DEPENDENCIES = 'node_modules';
