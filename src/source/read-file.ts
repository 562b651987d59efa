import { Buffer } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { type Diagnostic, error } from '../core/text/diagnostics.js';
import { kind } from './entry-identity.js';
import { errnoReason } from './errno.js';
import type { KeptFiles } from './kept-files.js';
import { fileTooLarge, specialFile } from './limits.js';

// Reading one file of a pack, and where a first read puts small files' bytes.

/**
 * Reads one file of a pack without ever blocking on it: opened with O_NONBLOCK and
 * O_NOFOLLOW (a FIFO swapped in since the listing opens at once, a symlink swapped in
 * fails), then the opened handle must be a regular file, and at most the size it has then
 * is read. Returns the bytes, or the diagnostic for why not.
 */
export async function readRegularFile(
  real: string,
  rel: string,
  maxBytes: number,
): Promise<{ bytes: Uint8Array } | { problem: Diagnostic }> {
  return readRegularFileSync(real, rel, maxBytes);
}

/**
 * {@link readRegularFile} as one synchronous step. Synchronous reads cost a fraction of
 * the thread-pool round trips of `fs.promises` (open, stat, read and close are four);
 * the folder reader runs them in short slices between which the event loop gets a turn.
 */
export function readRegularFileSync(
  real: string,
  rel: string,
  maxBytes: number,
): { bytes: Uint8Array } | { problem: Diagnostic } {
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    return { problem: error('READ_ERROR', `cannot read file: ${errnoReason(e)}`, { file: rel }) };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { problem: specialFile(rel, `is a ${kind(st)}`) };
    const { size } = st;
    if (size > maxBytes) return { problem: fileTooLarge(rel, size, maxBytes) };
    const bytes = new Uint8Array(size);
    return { bytes: readFully(fd, bytes) };
  } catch (e) {
    return { problem: error('READ_ERROR', `cannot read file: ${errnoReason(e)}`, { file: rel }) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Allocates small files' bytes as views of shared blocks: one typed array per file
 * instead of a typed array, an array buffer and a native allocation each. A block lives
 * while any file in it does (at most one pack's worth: only a first read uses blocks).
 * Blocks grow with the read, from 64 KiB to 1 MiB (each as large as all before it), so a
 * small pack does not pay for, and hold, a whole 1 MiB block. Block memory is not zeroed:
 * a view covers only bytes a read filled.
 */
export class Slab {
  #block = new Uint8Array(0);
  #used = 0;
  #total = 0;

  take(size: number): Uint8Array {
    if (size > SLAB_MAX_FILE) return new Uint8Array(size);
    if (this.#used + size > this.#block.length) {
      const bytes = Math.min(SLAB_BYTES, Math.max(SLAB_FIRST_BYTES, this.#total));
      this.#block = new Uint8Array(Buffer.allocUnsafeSlow(bytes).buffer, 0, bytes);
      this.#total += bytes;
      this.#used = 0;
    }
    const view = new Uint8Array(this.#block.buffer, this.#used, size);
    this.#used += size;
    return view;
  }

  /**
   * Once the read is complete, gives back the unused end of the last block (up to half of
   * it: blocks grow as large as all before them): its files move to a buffer of their
   * size, a copy of the block's used part, and the block goes.
   */
  fit(kept: KeptFiles): void {
    const block = this.#block;
    const used = this.#used;
    if (used === 0 || block.length - used < SLAB_SPARE_KEPT) return;
    const exact = Buffer.allocUnsafeSlow(used);
    exact.set(block.subarray(0, used));
    kept.rehome(block.buffer, exact.buffer);
    this.#block = new Uint8Array(0);
    this.#used = 0;
  }
}

/**
 * Fills `bytes` from the start of an open file, as far as the file goes: the bytes, or
 * the part of them read when the file is shorter than it was when it was measured.
 */
export function readFully(fd: number, bytes: Uint8Array): Uint8Array {
  const size = bytes.length;
  let filled = 0;
  while (filled < size) {
    const bytesRead = readSync(fd, bytes, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === size ? bytes : bytes.subarray(0, filled);
}

/** Unused room at the end of a read's last block that is kept rather than copied away. */
const SLAB_SPARE_KEPT = 2 ** 14;

const SLAB_FIRST_BYTES = 2 ** 16;
const SLAB_BYTES = 2 ** 20;
const SLAB_MAX_FILE = 2 ** 16;
