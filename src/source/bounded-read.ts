import { promises as fs } from 'node:fs';
import { type Diagnostic, error } from '../core/text/diagnostics.js';
import { errnoReason } from './errno.js';

// Reading a file a user names on the command line (a lock file, --ambient-file) without
// trusting its size: a huge file, a device that never ends (/dev/zero) or a pipe is never
// read into memory past the limit.

/** What {@link readBoundedFile} gives: the bytes, or why not (READ_ERROR, FILE_TOO_LARGE). */
export type BoundedRead = { bytes: Uint8Array } | { problem: Diagnostic };

/**
 * Reads the file at `path` (symlinks followed) holding at most `maxBytes` bytes. A regular
 * file over the limit is refused before a byte is read; anything else that reads (a pipe,
 * a device such as `/dev/zero`) is read until it ends, and refused as soon as it passes
 * the limit. A folder, a missing file or one that cannot be opened is READ_ERROR
 * (`cannot read <what>: ENOENT`). `shown` is the path as the user gave it (the
 * diagnostic's file); `flag` names the option that raises the limit.
 *
 * @example
 * const read = await readBoundedFile('/ci/strata.lock', 'strata.lock', 64 * 1024 * 1024, {
 *   flag: '--max-lock-bytes',
 *   what: 'lock file',
 * });
 */
export async function readBoundedFile(
  path: string,
  shown: string,
  maxBytes: number,
  options: { flag: string; what?: string },
): Promise<BoundedRead> {
  const { flag, what = 'file' } = options;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path, 'r');
  } catch (e) {
    return { problem: error('READ_ERROR', `cannot read ${what}: ${errnoReason(e)}`, { file: shown }) };
  }
  try {
    const st = await handle.stat();
    if (st.isDirectory())
      return { problem: error('READ_ERROR', `cannot read ${what}: EISDIR`, { file: shown }) };
    const tooLarge = (size: string) =>
      error('FILE_TOO_LARGE', `file is ${size} bytes; the limit is ${maxBytes} (${flag})`, { file: shown });
    if (st.isFile() && st.size > maxBytes) return { problem: tooLarge(String(st.size)) };
    // Read until the end, holding at most one byte past the limit.
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const room = maxBytes + 1 - total;
      // A regular file in one read of its size (and one more to see its end).
      const want = st.isFile() && total === 0 ? st.size + 1 : CHUNK;
      const chunk = new Uint8Array(Math.min(want, room));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return { problem: tooLarge(`more than ${maxBytes}`) };
    }
    return { bytes: join(chunks, total) };
  } catch (e) {
    return { problem: error('READ_ERROR', `cannot read ${what}: ${errnoReason(e)}`, { file: shown }) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

// --- internal ---

const CHUNK = 64 * 1024;

function join(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
