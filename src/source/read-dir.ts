import { type Dirent, promises as fs } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { type Diagnostic, error } from '../core/diagnostics.js';

/** Reads a pack directory from disk: the only place the core touches the file system. */

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

export interface ReadPackOptions {
  /** Files larger than this are refused with FILE_TOO_LARGE (default 1 MiB). */
  maxFileBytes?: number;
}

export interface PackFiles {
  /** The pack's real (symlink-free) absolute path. */
  root: string;
  files: Map<string, Uint8Array>;
  refused: Set<string>;
  diagnostics: Diagnostic[];
}

/**
 * Reads every file of a pack. Entries whose name starts with `.` are skipped (this is
 * also how a Kubernetes ConfigMap's `..data` folders stay out of the listing; the
 * visible symlinks into them are followed). A symlink whose target leaves the pack is
 * refused with PATH_OUTSIDE_PACK; a file over the size limit with FILE_TOO_LARGE.
 */
export async function readPackDir(dir: string, options: ReadPackOptions = {}): Promise<PackFiles> {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const out: PackFiles = { root: resolve(dir), files: new Map(), refused: new Set(), diagnostics: [] };
  try {
    out.root = await fs.realpath(dir);
    if (!(await fs.stat(out.root)).isDirectory()) throw new Error('not a directory');
  } catch (e) {
    out.diagnostics.push(error('PACK_NOT_FOUND', `pack directory ${dir} cannot be read: ${reason(e)}`));
    return out;
  }
  const pending: Array<{ rel: string; real: string }> = [];
  await walk(out, out.root, '', new Set([out.root]), pending);
  const BATCH = 64;
  for (let i = 0; i < pending.length; i += BATCH) {
    await Promise.all(pending.slice(i, i + BATCH).map((f) => readOne(out, f.rel, f.real, maxBytes)));
  }
  return out;
}

// --- internal ---

async function walk(
  out: PackFiles,
  realDir: string,
  relDir: string,
  seen: Set<string>,
  pending: Array<{ rel: string; real: string }>,
): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await fs.readdir(realDir, { withFileTypes: true });
  } catch (e) {
    out.diagnostics.push(error('READ_ERROR', `cannot list folder: ${reason(e)}`, { file: relDir || '.' }));
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
    let real = join(realDir, entry.name);
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      try {
        real = await fs.realpath(real);
        const st = await fs.stat(real);
        isDir = st.isDirectory();
        isFile = st.isFile();
      } catch (e) {
        out.diagnostics.push(error('READ_ERROR', `broken symlink: ${reason(e)}`, { file: rel }));
        continue;
      }
      if (!inside(out.root, real)) {
        out.refused.add(rel);
        out.diagnostics.push(
          error('PATH_OUTSIDE_PACK', `symlink points outside the pack (to ${real})`, { file: rel }),
        );
        continue;
      }
    }
    if (isDir) {
      if (seen.has(real)) continue;
      seen.add(real);
      await walk(out, real, rel, seen, pending);
    } else if (isFile) {
      pending.push({ rel, real });
    }
  }
}

async function readOne(out: PackFiles, rel: string, real: string, maxBytes: number): Promise<void> {
  try {
    const handle = await fs.open(real, 'r');
    try {
      const { size } = await handle.stat();
      if (size > maxBytes) {
        out.refused.add(rel);
        out.diagnostics.push(
          error('FILE_TOO_LARGE', `file is ${size} bytes; the limit is ${maxBytes}`, { file: rel }),
        );
        return;
      }
      const bytes = new Uint8Array(size);
      let filled = 0;
      while (filled < size) {
        const { bytesRead } = await handle.read(bytes, filled, size - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      out.files.set(rel, filled === size ? bytes : bytes.subarray(0, filled));
    } finally {
      await handle.close();
    }
  } catch (e) {
    out.refused.add(rel);
    out.diagnostics.push(error('READ_ERROR', `cannot read file: ${reason(e)}`, { file: rel }));
  }
}

function inside(root: string, real: string): boolean {
  const rel = relative(root, real);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}

function reason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err?.code ?? (err instanceof Error ? err.message : String(e));
}
