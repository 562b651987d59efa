import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file atomically: the bytes go to a temporary file in the same folder, are
 * flushed to disk, and the temporary file is renamed over the target. Readers see the old
 * file or the new one, never half of either; on any failure the temporary file is removed
 * and the target is untouched. An existing target keeps its permission bits.
 *
 * @example
 * await writeFileAtomic('CLAUDE.md', composed.text);
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
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

/** The reason of a failed file operation, short: the errno code, else the message. */
export function ioReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err?.code ?? (err instanceof Error ? err.message : String(e));
}
