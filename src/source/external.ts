import { promises as fs } from 'node:fs';
import type { BuildInput, LoadResult } from '../core/build/snapshot.js';
import { type Diagnostic, error } from '../core/text/diagnostics.js';
import { fileStamps } from './file-stamps.js';
import { DEFAULT_MAX_FILE_BYTES } from './read-dir.js';

/**
 * Builds a snapshot, reading the files outside the pack that operator-set path settings
 * name (CHORUS's `CHORUS_DEFAULT_INSTRUCTIONS_PATH=/etc/org/defaults.md`): the first
 * build says which it needs, they are read (with the same size limit as pack files),
 * and the snapshot is built again with them. A file that cannot be read is an error of
 * the load, so a mistyped path fails at start-up rather than at the first request.
 *
 * @example
 * const result = await buildWithExternal({ files, root, env: process.env });
 */
export async function buildWithExternal<R extends LoadResult>(
  input: BuildInput,
  build: (input: BuildInput) => R | Promise<R>,
  maxFileBytes = DEFAULT_MAX_FILE_BYTES,
): Promise<R> {
  const first = await build(input);
  if (!first.needs?.length) return first;
  const external = new Map(input.external ?? []);
  const diagnostics: Diagnostic[] = [];
  for (const path of first.needs) {
    const read = await readExternal(path, maxFileBytes);
    if (read instanceof Uint8Array) external.set(path, read);
    else diagnostics.push(read);
  }
  if (diagnostics.length > 0) {
    return {
      ...first,
      diagnostics: [...first.diagnostics.filter((d) => d.code !== 'PATH_OUTSIDE_PACK'), ...diagnostics],
    };
  }
  return build({ ...input, external });
}

/** The absolute paths a snapshot's external files are at (what a watcher must watch). */
export function externalPaths(result: LoadResult): string[] {
  return [...(result.snapshot?.external?.keys() ?? [])];
}

// --- internal ---

async function readExternal(path: string, maxBytes: number): Promise<Uint8Array | Diagnostic> {
  try {
    const takenAtMs = Date.now();
    const st = await fs.stat(path, { bigint: true });
    if (!st.isFile())
      return error('REQUIRED_MISSING', 'a path setting names this, but it is not a file', { file: path });
    if (st.size > BigInt(maxBytes))
      return error('FILE_TOO_LARGE', `file is ${st.size} bytes; the limit is ${maxBytes}`, { file: path });
    const bytes = new Uint8Array(await fs.readFile(path));
    // What a poll compares the file with: its identity before it was read.
    fileStamps.set(path, st, takenAtMs);
    return bytes;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code;
    if (code === 'ENOENT')
      return error('REQUIRED_MISSING', 'a path setting names this file, which does not exist', {
        file: path,
      });
    return error('READ_ERROR', `cannot read the file a path setting names: ${code ?? String(e)}`, {
      file: path,
    });
  }
}
