import { promises as fs } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { CliIO } from './io.js';
import { type PackFlags, packLocation } from './pack-options.js';

// Where a file a command writes lies in the pack it read: a command never writes what the
// pack would read back (a prompt into its own chain, a bundle among its own text files).

/**
 * The pack-relative path of `path` when it lies in the folder of the pack the flags name
 * (compared by real paths, so a link to the pack or a folder of it is seen through);
 * undefined for a path outside it, or a pack read from a bundle or git.
 *
 * @example
 * await packRelativePath('/srv/pack/AGENTS.md', { dir: '/srv/pack' }, io); // 'AGENTS.md'
 */
export async function packRelativePath(
  path: string,
  flags: PackFlags,
  io: CliIO,
): Promise<string | undefined> {
  const { source } = packLocation(flags, io);
  if (source.kind !== 'dir') return undefined;
  const [pack, folder] = await Promise.all([
    fs.realpath(source.dir).catch(() => undefined),
    fs.realpath(dirname(path)).catch(() => undefined),
  ]);
  if (pack === undefined || folder === undefined) return undefined;
  const rel = relative(pack, join(folder, basename(path)))
    .split(sep)
    .join('/');
  if (rel === '' || rel === '..' || rel.startsWith('../') || isAbsolute(rel)) return undefined;
  return rel;
}
