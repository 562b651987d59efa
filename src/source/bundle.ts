import { type BigIntStats, constants, promises as fs } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { presetHiddenFolders } from '../core/build/detect.js';
import { error } from '../core/text/diagnostics.js';
import { sha256 } from '../core/text/text.js';
import { LAYOUTS } from '../layouts/registry.js';
import { type BundleReuse, bundleReuse } from './bundle-reuse.js';
import { kind } from './entry-identity.js';
import { errnoReason } from './errno.js';
import { inflateBounded } from './inflate.js';
import { type PackLimits, packTooLarge, readTimeout, resolveLimits } from './limits.js';
import type { PackFiles } from './read-dir.js';
import { Slices, withDeadline } from './slices.js';
import { readTar, writeTar } from './tar.js';

// Pack bundles: a whole pack as one gzip'd tar file (`strata bundle`), so a nested pack
// fits one ConfigMap key and is swapped as one unit. Any gzip'd (or plain) tar of a pack
// folder is read the same way.

/** Limits of reading a bundle: the same as a folder's (see {@link PackLimits}). */
export interface BundleReadOptions extends PackLimits {
  /** Hidden folder names to read (default: those a built-in preset reads), as for a folder. */
  hidden?: readonly string[];
}

export interface StableBundleOptions extends BundleReadOptions {
  /** How long the file must have been left alone before a read of it is trusted (default 100 ms). */
  quietMs?: number;
  /** Reads to try before the read fails with PACK_UNSTABLE (default 8). */
  attempts?: number;
  /** First pause after a read that changed under it; doubles up to 4 × quietMs (default 20 ms). */
  backoffMs?: number;
}

/**
 * Builds a bundle from a pack's files: a gzip'd POSIX tar with the entries sorted by
 * path, mode 0644, owner 0, mtime 0 and a gzip header without time or OS, so the same
 * files give the same bytes on every machine.
 *
 * @example
 * const { files } = await readPackDir('examples/roboco');
 * await writeFile('pack.tgz', createBundle(files));
 */
export function createBundle(files: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const tar = writeTar([...files].map(([path, bytes]) => ({ path, bytes })));
  const gz = gzipSync(tar, { level: 9 });
  gz[9] = 0xff; // OS: unknown (the header's only platform-dependent byte)
  return gz;
}

/**
 * Whether `path` is (or links to) something other than a folder: a bundle where a pack
 * folder was expected — or a FIFO, a socket or a device, which the bundle reader refuses
 * (SPECIAL_FILE) without blocking on it.
 */
export async function isBundlePath(path: string): Promise<boolean> {
  try {
    return !(await fs.stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** True when `bytes` start like a gzip stream. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * Reads a bundle into the same shape as a pack folder's read: the files, the refused
 * paths and the diagnostics, under the folder's limits (FILE_TOO_LARGE per entry,
 * PACK_TOO_LARGE for the file or its unpacked archive, TOO_MANY_FILES for its entries,
 * every tar entry counted, READ_TIMEOUT for a read past `readTimeoutMs`). A hostile or
 * damaged archive is refused with a code (BUNDLE_BAD_PATH, BUNDLE_LINK, SPECIAL_FILE,
 * BUNDLE_BAD_ENTRY, BUNDLE_CORRUPT, BUNDLE_TRUNCATED); nothing is written to disk. The
 * file is opened without blocking and must be a regular file (a FIFO, a socket or a
 * device swapped in for it is SPECIAL_FILE, at once), and read through that one handle,
 * so a file replaced while it is read is read whole, old or new. The archive is read in
 * short slices between which the event loop gets a turn, and an unchanged bundle is not
 * read again (see {@link BundleReuse}).
 *
 * @example
 * const { files, diagnostics } = await readPackBundle('/etc/strata/prompts/pack.tgz');
 */
export async function readPackBundle(file: string, options: BundleReadOptions = {}): Promise<PackFiles> {
  return (await readIdentified(file, options)).read;
}

/**
 * Reads a bundle in a consistent state, or fails, by the folder's rule: the file's
 * identity (inode, size, times) is the same before and after the read, and it had not
 * changed for `quietMs` (or two reads `quietMs` apart agree). A file still being written
 * in place is retried with a doubling pause; after `attempts` reads the result is a
 * PACK_UNSTABLE error and no files, so a reloader keeps its last good version.
 */
export async function readStableBundle(file: string, options: StableBundleOptions = {}): Promise<PackFiles> {
  const quietMs = Math.max(options.quietMs ?? 100, 20);
  const attempts = Math.max(options.attempts ?? 8, 1);
  let backoff = options.backoffMs ?? 20;
  let previous: { identity: string; at: number } | undefined;
  let last: PackFiles | undefined;
  for (let i = 0; i < attempts; i++) {
    const at = Date.now();
    const { read, identity, changedMs } = await readIdentified(file, options);
    last = read;
    const after = await identityOf(file);
    if (identity === undefined) return read;
    if (after?.identity !== identity) {
      previous = undefined;
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 4 * quietMs);
      continue;
    }
    if (changedMs <= at - quietMs) return read;
    if (previous && at - previous.at >= quietMs && previous.identity === identity) return read;
    previous = { identity, at };
    await sleep(Math.min(Math.max(changedMs + quietMs - Date.now(), quietMs), 4 * quietMs));
  }
  return {
    root: last!.root,
    files: new Map(),
    refused: new Set(),
    diagnostics: [
      error(
        'PACK_UNSTABLE',
        `the bundle kept changing while it was read (${attempts} reads, none consistent); the last good version is kept`,
      ),
    ],
  };
}

// --- internal ---

/** A read with the identity of the file it came from (undefined when it could not be opened). */
interface Identified {
  read: PackFiles;
  identity?: string;
  changedMs: number;
}

/** One read of the bundle, given up (READ_TIMEOUT) past `readTimeoutMs`. */
function readIdentified(file: string, options: BundleReadOptions): Promise<Identified> {
  const limits = resolveLimits(options);
  const hidden = new Set(options.hidden ?? presetHiddenFolders(LAYOUTS));
  const slices = new Slices(performance.now() + limits.readTimeoutMs);
  const timedOut = (): Identified => ({
    read: {
      root: file,
      files: new Map(),
      refused: new Set(),
      diagnostics: [readTimeout(limits.readTimeoutMs)],
    },
    changedMs: 0,
  });
  const work = readWithin(file, limits, hidden, slices).catch((e) => {
    if (e === Slices.TIMED_OUT) return timedOut();
    throw e;
  });
  return withDeadline(work, limits.readTimeoutMs, timedOut);
}

async function readWithin(
  file: string,
  limits: Required<PackLimits>,
  hidden: ReadonlySet<string>,
  slices: Slices,
): Promise<Identified> {
  const out: PackFiles = { root: file, files: new Map(), refused: new Set(), diagnostics: [] };
  const readAtMs = Date.now();
  const key = [limits.maxFileBytes, limits.maxPackBytes, limits.maxFiles, ...[...hidden].sort()].join('\0');
  let raw: Uint8Array;
  let identity: string;
  let changedMs: number;
  let handle: fs.FileHandle;
  try {
    out.root = await fs.realpath(file);
    // Without blocking: a FIFO swapped in since opens at once (and is refused below); a
    // symlink swapped in since is not followed.
    handle = await fs.open(out.root, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    out.diagnostics.push(error('PACK_NOT_FOUND', `pack bundle ${file} cannot be read: ${errnoReason(e)}`));
    return { read: out, changedMs: 0 };
  }
  try {
    const st = await handle.stat({ bigint: true });
    if (!st.isFile()) {
      out.diagnostics.push(
        error('SPECIAL_FILE', `${file} is a ${kind(st)}: a pack is a folder or a bundle, a regular file`),
      );
      return { read: out, changedMs: 0 };
    }
    identity = identityString(st);
    changedMs = Math.max(Number(st.mtimeNs / 1_000_000n), Number(st.ctimeNs / 1_000_000n));
    const kept = bundleReuse.byIdentity(out.root, identity, key);
    if (kept) return { read: kept, identity, changedMs };
    if (st.size > BigInt(limits.maxPackBytes)) {
      out.diagnostics.push(packTooLarge(Number(st.size), limits.maxPackBytes));
      return { read: out, identity, changedMs };
    }
    raw = await readSize(handle, Number(st.size));
  } catch (e) {
    out.diagnostics.push(error('PACK_NOT_FOUND', `pack bundle ${file} cannot be read: ${errnoReason(e)}`));
    return { read: out, changedMs: 0 };
  } finally {
    await handle.close().catch(() => undefined);
  }
  const digest = sha256(raw);
  const same = bundleReuse.byDigest(out.root, digest, key);
  const read = same ?? (await parse(raw, out, limits, hidden, slices));
  bundleReuse.keep(out.root, { identity, digest, key, changedMs, readAtMs, read });
  return { read, identity, changedMs };
}

/** The files of a bundle's bytes, under the limits, into `out`. */
async function parse(
  raw: Uint8Array,
  out: PackFiles,
  limits: Required<PackLimits>,
  hidden: ReadonlySet<string>,
  slices: Slices,
): Promise<PackFiles> {
  // Unpacked: the files plus a header per entry, at most.
  const tar = await unpack(raw, limits.maxPackBytes + (limits.maxFiles + 2) * 1024, out, limits.maxPackBytes);
  if (!tar) return out;
  const read = await readTar(
    tar,
    { maxFileBytes: limits.maxFileBytes, maxEntries: limits.maxFiles, maxBytes: limits.maxPackBytes, hidden },
    slices,
  );
  out.files = read.files;
  out.refused = read.refused;
  out.diagnostics.push(...read.diagnostics);
  return out;
}

/** `size` bytes from the start of an open file (fewer when it is shorter now). */
async function readSize(handle: fs.FileHandle, size: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(bytes, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === size ? bytes : bytes.subarray(0, filled);
}

async function identityOf(file: string): Promise<{ identity: string } | undefined> {
  const st = await fs.stat(file, { bigint: true }).catch(() => undefined);
  return st ? { identity: identityString(st) } : undefined;
}

function identityString(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The tar bytes of a gzip'd or plain bundle, or undefined (with a diagnostic). */
async function unpack(
  raw: Uint8Array,
  maxOutput: number,
  out: PackFiles,
  maxPackBytes: number,
): Promise<Uint8Array | undefined> {
  if (!isGzip(raw)) {
    if (raw.length >= 512 && new TextDecoder().decode(raw.subarray(257, 262)) === 'ustar') return raw;
    out.diagnostics.push(
      error(
        'BUNDLE_CORRUPT',
        'the file is neither a gzip’d tar nor a tar archive: a pack is read from its folder, or from a bundle strata bundle writes (for a file of a pack, name its folder)',
      ),
    );
    return undefined;
  }
  try {
    return await inflateBounded(raw, maxOutput);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      out.diagnostics.push(packTooLarge(maxOutput, maxPackBytes));
    } else if (err.code === 'Z_BUF_ERROR' || /unexpected end/i.test(err.message)) {
      out.diagnostics.push(error('BUNDLE_TRUNCATED', 'the gzip stream ends early: the bundle is cut short'));
    } else {
      out.diagnostics.push(error('BUNDLE_CORRUPT', `the gzip stream is damaged: ${err.message}`));
    }
    return undefined;
  }
}
