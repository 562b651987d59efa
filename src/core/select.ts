import { globMatch } from './glob.js';
import type { Manifest } from './manifest.js';

// Which files of a directory belong to a pack: `files:` globs and `hidden:` folders.

/**
 * Whether a pack-relative path is part of the pack: every folder or file name starting
 * with `.` must be one of the manifest's `hidden:` names, and with `files:` the path must
 * match one of its globs.
 */
export function selectPath(manifest: Pick<Manifest, 'files' | 'hidden'>, path: string): boolean {
  if (!hiddenAllowed(manifest.hidden, path)) return false;
  return !manifest.files || manifest.files.some((g) => globMatch(g, path));
}

/** Whether every hidden name in a path (`.claude/agents/x.md`) is one of `names`. */
export function hiddenAllowed(names: readonly string[], path: string): boolean {
  // Most paths have no hidden segment: no split for them.
  if (path.charCodeAt(0) !== 46 && !path.includes('/.')) return true;
  for (const seg of path.split('/')) if (seg.startsWith('.') && !names.includes(seg)) return false;
  return true;
}
