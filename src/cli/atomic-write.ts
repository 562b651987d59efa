import { randomBytes } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
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
  const path = await linkTarget(given).catch((e) => {
    throw failure(e, given, 'create');
  });
  // Only a regular file is replaced: a rename over /dev/null (as root) would turn the
  // device into a file, and a folder or a FIFO is no place for a prompt.
  const refused = await notWritable(path);
  if (refused) throw refused;
  await sweepStaleTemps(path);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let mode = 0o644;
  try {
    mode = (await fs.stat(path)).mode & 0o777;
  } catch {
    // A new file: default mode.
  }
  let handle: fs.FileHandle | undefined;
  let step: 'create' | 'write' | 'replace' = 'create';
  try {
    handle = await fs.open(temp, 'wx', mode);
    step = 'write';
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    handle = undefined;
    step = 'replace';
    await fs.rename(temp, path);
  } catch (e) {
    await handle?.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw failure(e, path, step);
  }
}

/**
 * Why a write to `path` (a symlink's target already followed) cannot be made, checked
 * before anything is written: it exists and is no regular file (a folder, a device such as
 * /dev/null, a FIFO, a socket), or the folder it would be in is missing or is no folder.
 * Undefined when a write may go ahead. The error's `code` is the errno (`EISDIR`,
 * `ENOENT`, `ENOTDIR`) or `ENOTREG` for a device, FIFO or socket; its message says it in words.
 */
export async function notWritable(path: string): Promise<WriteFailure | undefined> {
  const st = await fs.stat(path).catch((e: NodeJS.ErrnoException) => e);
  if (st instanceof Error) {
    if (st.code !== 'ENOENT') return failure(st, path, 'create');
  } else if (st.isDirectory()) return new WriteFailure('EISDIR', 'it is a folder, not a file (EISDIR)');
  else if (!st.isFile())
    return new WriteFailure(
      'ENOTREG',
      `it is ${kindOf(st)}, not a regular file; only a regular file is replaced`,
    );
  else return undefined;
  // A new file: its folder must be there.
  const folder = dirname(path);
  const parent = await fs.stat(folder).catch((e: NodeJS.ErrnoException) => e);
  if (parent instanceof Error) {
    if (parent.code === 'ENOENT')
      return new WriteFailure('ENOENT', `the folder ${folder} does not exist (ENOENT)`);
    if (parent.code === 'ENOTDIR')
      return new WriteFailure('ENOTDIR', `a part of ${folder} is not a folder (ENOTDIR)`);
    return failure(parent, path, 'create');
  }
  if (!parent.isDirectory()) return new WriteFailure('ENOTDIR', `${folder} is not a folder (ENOTDIR)`);
  return undefined;
}

/** A write that could not be made: `code` the errno (or ENOTREG), the message in words with the path. */
export class WriteFailure extends Error {
  override name = 'WriteFailure';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
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

/**
 * The reason of a failed file operation, short: a {@link WriteFailure}'s words, else the
 * errno code, else the message.
 */
export function ioReason(e: unknown): string {
  if (e instanceof WriteFailure) return e.message;
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

/** A failed step of a write, said in words with the path and the errno. */
function failure(e: unknown, path: string, step: 'create' | 'write' | 'replace'): WriteFailure {
  if (e instanceof WriteFailure) return e;
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code === undefined) return new WriteFailure('EIO', e instanceof Error ? e.message : String(e));
  const folder = dirname(path);
  const words: Record<string, string> = {
    EACCES: step === 'replace' ? 'no permission to replace it' : `no permission to write in ${folder}`,
    EPERM: step === 'replace' ? 'it may not be replaced' : `no permission to write in ${folder}`,
    EROFS: `${folder} is on a read-only file system`,
    ENOSPC: `no space left on the device of ${folder}`,
    EDQUOT: `the disk quota of ${folder} is used up`,
    EBUSY: 'it is in use and cannot be replaced (a mount point?)',
    ELOOP: 'too many symbolic links',
    ENOTDIR: `a part of ${folder} is not a folder`,
    // The folder is there (checked first) but takes no new file: /proc, /sys.
    ENOENT: `the folder ${folder} takes no new files (the file is written beside its target, then renamed over it)`,
  };
  return new WriteFailure(code, `${words[code] ?? `cannot ${step} the file`} (${code})`);
}

function kindOf(st: Stats): string {
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  return 'a special file';
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
