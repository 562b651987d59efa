import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * Writes a file atomically: the bytes go to a temporary file in the same folder, are
 * flushed to disk, and the temporary file is renamed over the target. Readers see the old
 * file or the new one, never half of either; on any failure the temporary file is removed
 * and the target is untouched. A target that is a symbolic link (even a dangling one) is
 * written where the link points and the link is kept. An existing target keeps its permission bits. A process
 * killed mid-write (even with SIGKILL, where no handler runs) leaves its temporary file:
 * the next write to the same target removes the temporary files of processes that no
 * longer run.
 *
 * @example
 * await writeFileAtomic('CLAUDE.md', composed.text);
 */
export async function writeFileAtomic(given: string, data: string | Uint8Array): Promise<void> {
  // A target that is a symlink (CLAUDE.md → AGENTS.md) is written where it points, and
  // the link is kept: renaming over the link itself would leave the file it points to
  // stale and turn the link into a copy.
  const path = await linkTarget(given);
  await sweepStaleTemps(path);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let mode = 0o644;
  try {
    mode = (await fs.stat(path)).mode & 0o777;
  } catch {
    // A new file: default mode.
  }
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(temp, 'wx', mode);
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await fs.rename(temp, path);
  } catch (e) {
    await handle?.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/**
 * Removes `.<name>.<pid>.<hex>.tmp` files beside `path` whose process is gone (left by
 * a killed write). Temporary files of running processes are left alone.
 */
export async function sweepStaleTemps(path: string): Promise<string[]> {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name.slice(prefix.length));
    if (!m || isRunning(Number(m[1]))) continue;
    await fs.rm(join(dir, name), { force: true }).catch(() => undefined);
    removed.push(name);
  }
  return removed;
}

/** The reason of a failed file operation, short: the errno code, else the message. */
export function ioReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err?.code ?? (err instanceof Error ? err.message : String(e));
}

// --- internal ---

/** Symbolic links followed before a write gives up with ELOOP, as the kernel does. */
const MAX_LINKS = 40;

/** The path a write to `path` lands on: `path` with every symlink at its end followed. */
async function linkTarget(path: string): Promise<string> {
  let at = path;
  for (let i = 0; i < MAX_LINKS; i++) {
    let st: Awaited<ReturnType<typeof fs.lstat>>;
    try {
      st = await fs.lstat(at);
    } catch {
      return at; // a new file (or an unreadable folder: the write says why)
    }
    if (!st.isSymbolicLink()) return at;
    at = resolve(dirname(at), await fs.readlink(at));
  }
  throw Object.assign(new Error(`too many symbolic links at ${path}`), { code: 'ELOOP' });
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
