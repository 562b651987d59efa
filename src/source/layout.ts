import { lstatSync, realpathSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { type Diagnostic, error } from '../core/text/diagnostics.js';
import { errnoReason } from './errno.js';

/** Where a pack on disk really is: the one place that tells a ConfigMap volume from a folder. */
export interface PackRoot {
  /** Real path of the folder the operator named: every file read must lie inside it. */
  root: string;
  /**
   * On a Kubernetes ConfigMap volume, the real path of the folder `..data` points to
   * (inside `root`); the visible symlinks through `..data` are read from it.
   */
  data?: string;
  /** PACK_NOT_FOUND, or PATH_OUTSIDE_PACK for a `..data` leading out of the pack. */
  diagnostics: Diagnostic[];
}

/**
 * Resolves a pack folder: its real path (so a pack root that is itself a symlink, as with
 * git-sync or a `current` release link, is contained in the folder it points to now) and,
 * when it is a ConfigMap volume, the folder its `..data` symlink points to. A `..data`
 * that leaves the pack, or is not a folder, is an error: nothing is read through it.
 *
 * @example
 * const { root, data, diagnostics } = await openPackRoot('/etc/strata/prompts');
 */
export async function openPackRoot(dir: string): Promise<PackRoot> {
  // Synchronous calls: three quick system calls, each a thread-pool round trip otherwise.
  let root: string;
  try {
    root = realpathSync.native(dir);
    if (!statSync(root).isDirectory()) throw new Error('not a directory');
  } catch (e) {
    return {
      root: dir,
      diagnostics: [error('PACK_NOT_FOUND', `pack directory ${dir} cannot be read: ${errnoReason(e)}`)],
    };
  }
  const link = join(root, '..data');
  let linked = false;
  try {
    linked = lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  } catch {
    // Unreadable: no ConfigMap volume.
  }
  if (!linked) return { root, diagnostics: [] };
  let data: string;
  try {
    data = realpathSync.native(link);
    if (!statSync(data).isDirectory()) throw new Error('not a directory');
  } catch (e) {
    return {
      root,
      diagnostics: [error('READ_ERROR', `broken ..data symlink: ${errnoReason(e)}`, { file: '..data' })],
    };
  }
  const rel = relative(root, data);
  if (rel === '..' || rel.startsWith(`..${sep}`) || rel.startsWith(sep)) {
    return {
      root,
      diagnostics: [
        error('PATH_OUTSIDE_PACK', `..data points outside the pack (to ${data})`, { file: '..data' }),
      ],
    };
  }
  return { root, data, diagnostics: [] };
}

// --- internal ---

/**
 * The path a symlink leads to, with a leading `..data` (a ConfigMap's visible links)
 * replaced by the folder `..data` pointed to when the read began.
 */
export function throughData(pack: PackRoot, linkPath: string, target: string): string {
  const path = resolve(linkPath, '..', target);
  if (!pack.data) return path;
  const link = join(pack.root, '..data');
  if (path === link) return pack.data;
  return path.startsWith(`${link}${sep}`) ? join(pack.data, path.slice(link.length + 1)) : path;
}

/** Whether a real path lies inside the pack's real root (the root itself included). */
export function insidePack(root: string, real: string): boolean {
  const rel = relative(root, real);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}

/** The identity of a pack root that could not be opened: the same while the problem is. */
export function rootIdentity(pack: PackRoot): string {
  return `!${JSON.stringify(pack.diagnostics)}`;
}
