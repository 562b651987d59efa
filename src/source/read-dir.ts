import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import { resolve, sep } from 'node:path';
import { presetHiddenFolders } from '../core/build/detect.js';
import type { ReadScope } from '../core/build/read-scope.js';
import { hiddenEntryAllowed } from '../core/pack/select.js';
import { type Diagnostic, error } from '../core/text/diagnostics.js';
import { byteOrder } from '../core/text/text.js';
import { sameContent } from '../engine/incremental/same-bytes.js';
import { LAYOUTS } from '../layouts/registry.js';
import { changedSince, EntryHash, FILE_LIKE, isDirect, kind, oddKey } from './entry-identity.js';
import { errnoReason, isNotFound, unreadable } from './errno.js';
import { FolderStamps } from './folder-stamps.js';
import { insidePack, openPackRoot, type PackRoot, rootIdentity, throughData } from './layout.js';
import {
  fileTooLarge,
  type PackLimits,
  packTooLarge,
  readTimeout,
  resolveLimits,
  specialFile,
  tooManyFiles,
} from './limits.js';
import { readFully, readRegularFileSync, Slab } from './read-file.js';
import { readHinted } from './read-hinted.js';
import type { Listing, Reading, WalkState } from './read-state.js';
import { type FileReuse, fileReuse, KeptFiles, type ReadBase, type ReadSeen } from './reuse.js';
import { Slices, withDeadline } from './slices.js';

// Reads a pack directory from disk: the only place the core touches the file system.

export { DEFAULT_MAX_FILE_BYTES } from './limits.js';
export { readRegularFile, readRegularFileSync } from './read-file.js';

/** Limits of one read (see {@link PackLimits}). */
export type ReadPackOptions = PackLimits & {
  /**
   * Hidden folder names (`.claude`) walked into (default: those a built-in preset reads);
   * a snapshot keeps their files only when its manifest opts in with `hidden:`.
   */
  hidden?: readonly string[];
  /** Where unchanged files' bytes are kept between reads (default: the process's cache). */
  reuse?: FileReuse;
  /**
   * Take each file's change time again just after reading it into `newestChangeMs` (one
   * more `fstat` per file read): the consistent read's quiet rule then also covers a write
   * made while the file was read. Folders' change times are always taken just after they
   * are listed.
   */
  recheck?: boolean;
  /**
   * The paths (`/`-separated, relative to the pack) that may have changed since the last
   * complete read of this folder in this process (a watcher's events): when that read
   * is kept and it is safe, only these are looked at (see {@link readPackDir}).
   */
  hints?: readonly string[];
  /**
   * Only the files a pack can select (see `readScopeOf`): others are not read, counted
   * against the limits nor part of the read's identity. Folders are all walked.
   */
  scope?: ReadScope;
};

export interface PackFiles {
  /** The pack's real (symlink-free) absolute path. */
  root: string;
  files: ReadonlyMap<string, Uint8Array>;
  refused: Set<string>;
  /**
   * The refused paths that are symlinks to nothing: no file there, for a chain (a
   * `READ_ERROR` all the same).
   */
  gone?: Set<string>;
  /**
   * Paths that could not be looked at (a lookup that fails for another reason than a
   * missing entry: a symlink loop), `.git` markers among them: a chain's walk that meets
   * one reads no file, as a walker that fails there stops.
   */
  blocked?: Set<string>;
  diagnostics: Diagnostic[];
}

/** A read from disk, with what the consistency check needs. */
export interface DiskPackFiles extends PackFiles {
  /**
   * Every entry the read saw, by identity (path, real path, kind, inode, size, change
   * times), as listed before the contents were read: equal identities before and after a
   * read mean no file of the pack was replaced, resized or written in between. A sha256
   * over the entries (see `EntryHash`; '' for a pack with no entries), so a read of a large
   * pack keeps nothing per file for it.
   */
  identity: string;
  /**
   * Latest modification or status change among the files (as listed, and as found just
   * after reading them with `recheck`) and the folders (just after listing them), in ms
   * since the epoch (0: none).
   */
  newestChangeMs: number;
  /** True when only hinted paths were looked at, on top of the last complete read. */
  hinted?: boolean;
  /** How many files this read opened to read their bytes (the others' bytes were reused). */
  filesRead: number;
  /**
   * Folders below the pack root that hold a `.git` entry (a folder or a file: a nested
   * repository, a submodule), in walk order: where Codex's AGENTS.md discovery starts.
   */
  gitFolders?: string[];
  /** Every folder walked below the root (where a working directory may be). */
  folders?: string[];
}

/**
 * Reads every file of a pack. Containment is decided on real paths: the pack root is the
 * real path of the folder named, and every symlink must resolve inside it
 * (PATH_OUTSIDE_PACK otherwise). Entries whose name starts with `.` are skipped. On a
 * Kubernetes ConfigMap volume (a `..data` symlink to a timestamped folder, which must
 * itself lie in the pack) the visible symlinks through `..data` are read from the folder
 * `..data` pointed to when the read began, so a swap during the read cannot mix two
 * versions. Files are opened without blocking and checked to be regular files: FIFOs,
 * sockets and devices (and folders named like files) are SPECIAL_FILE. Limits: a file
 * over `maxFileBytes` is FILE_TOO_LARGE, a pack over `maxPackBytes` PACK_TOO_LARGE, more
 * than `maxFiles` entries TOO_MANY_FILES, a read longer than `readTimeoutMs` READ_TIMEOUT.
 *
 * @example
 * const read = await readPackDir('examples/roboco');
 * const { snapshot } = buildSnapshot({ files: read.files, readDiagnostics: read.diagnostics });
 */
export async function readPackDir(dir: string, options: ReadPackOptions = {}): Promise<DiskPackFiles> {
  const limits = readLimits(options);
  const timedOut = () => ({ ...empty(resolve(dir)), diagnostics: [readTimeout(limits.readTimeoutMs)] });
  const slices = new Slices(performance.now() + limits.readTimeoutMs);
  return withDeadline(
    readAll(dir, limits, slices).catch((e) => {
      if (e === Slices.TIMED_OUT) return timedOut();
      throw e;
    }),
    limits.readTimeoutMs,
    timedOut,
  );
}

/**
 * The identity of a pack as {@link readPackDir} would list it (no file is opened): equal
 * to a read's `identity` when nothing changed since that read listed the pack.
 */
export async function packIdentity(dir: string, options: ReadPackOptions = {}): Promise<string> {
  const limits = readLimits(options);
  const pack = await openPackRoot(dir);
  const out = empty(pack.root);
  if (pack.diagnostics.length > 0) return rootIdentity(pack);
  const listing = await list(out, pack, limits, new Slices(Number.POSITIVE_INFINITY));
  return listing.identity;
}

// --- internal ---

/** The limits of one read, and the hidden folder names it walks into. */
type ReadLimits = Required<PackLimits> & {
  hidden: ReadonlySet<string>;
  reuse: FileReuse;
  recheck: boolean;
  hints?: readonly string[];
  scope?: ReadScope;
};

function readLimits(options: ReadPackOptions): ReadLimits {
  const limits: ReadLimits = {
    ...resolveLimits(options),
    hidden: new Set(options.hidden ?? presetHiddenFolders(LAYOUTS)),
    reuse: options.reuse ?? fileReuse,
    recheck: options.recheck ?? false,
  };
  if (options.hints) limits.hints = options.hints;
  if (options.scope) limits.scope = options.scope;
  return limits;
}

/** The options a base was read with: a hinted read builds only on a read with the same. */
function baseKey(limits: ReadLimits): string {
  const { maxFileBytes, maxPackBytes, maxFiles } = limits;
  return [maxFileBytes, maxPackBytes, maxFiles, limits.scope?.key ?? '*', ...[...limits.hidden].sort()].join(
    '\0',
  );
}

async function readAll(dir: string, limits: ReadLimits, slices: Slices): Promise<DiskPackFiles> {
  const pack = await openPackRoot(dir);
  const out = empty(pack.root);
  const key = baseKey(limits);
  const { ticket, base } = limits.reuse.begin(resolve(dir), pack.root, key);
  if (pack.diagnostics.length > 0) {
    out.diagnostics.push(...pack.diagnostics);
    out.identity = rootIdentity(pack);
    return out;
  }
  // Only the paths that may have changed, on top of the last complete read, when safe.
  if (limits.hints && base && !pack.data) {
    const hinted = await readHinted(pack.root, limits.hints, base, limits, slices);
    if (hinted) {
      const seen: ReadSeen = {
        folders: hinted.folders,
        problems: false,
        linked: false,
        gitFolders: base.base.gitFolders ?? [],
        hidden: limits.hidden,
      };
      if (limits.scope) seen.scope = limits.scope;
      limits.reuse.keep(pack.root, hinted.entries, hinted.base, ticket, seen);
      return {
        ...out,
        files: hinted.files,
        identity: hinted.identity,
        newestChangeMs: hinted.newestChangeMs,
        hinted: true,
        filesRead: hinted.filesRead,
        ...(base.base.gitFolders ? { gitFolders: base.base.gitFolders } : {}),
        folders: [...base.base.folders],
      };
    }
  }
  // A pack read before: list it (stat only), then take unchanged files from the reuse
  // cache and read the rest. A pack read for the first time: read each regular file as it
  // is listed, its identity from the opened file (one stat fewer per file).
  const cold = !limits.reuse.has(pack.root);
  const reading: Reading | undefined = cold
    ? { kept: new KeptFiles(), problems: [], refused: [], slab: new Slab(), readAtMs: Date.now() }
    : undefined;
  const listing = await list(out, pack, limits, slices, reading);
  out.identity = listing.identity;
  out.newestChangeMs = listing.newestChangeMs;
  out.folders = [...listing.folders];
  if (out.diagnostics.some((d) => d.code === 'TOO_MANY_FILES' || d.code === 'PACK_TOO_LARGE')) {
    // As when nothing is read after such a listing: no files, no reading problems.
    out.files = new Map();
    return out;
  }
  // A simple read (no symlink, no ConfigMap, no problem) is a base for hinted reads.
  const simple = (): ReadBase | undefined => {
    if (pack.data || listing.linked || out.diagnostics.length > 0 || out.refused.size > 0) return undefined;
    let bytes = 0;
    out.files.forEach((b) => {
      bytes += b.length;
    });
    const made: ReadBase = { folders: listing.folders, key, files: out.files, bytes };
    if (out.gitFolders) made.gitFolders = out.gitFolders;
    return made;
  };
  // What the read saw beside the files: what the poll compares the disk with.
  const seen = (): ReadSeen => {
    const made: ReadSeen = {
      folders: listing.stamps,
      problems: out.diagnostics.length > 0 || out.refused.size > 0,
      linked: listing.linked || pack.data !== undefined,
      gitFolders: out.gitFolders ?? [],
      hidden: limits.hidden,
    };
    if (limits.scope) made.scope = limits.scope;
    return made;
  };
  // The files kept for the next read are the read's files.
  if (reading) {
    reading.slab.fit(reading.kept);
    for (const rel of reading.refused) out.refused.add(rel);
    out.diagnostics.push(...reading.problems);
    out.files = reading.kept;
    limits.reuse.keep(pack.root, reading.kept, simple(), ticket, seen());
    return out;
  }
  // Unchanged files come from the reuse cache; the rest are read (and kept for next time).
  // An unchanged file had settled when it was read: it has at any later time.
  const kept = new KeptFiles();
  const now = Date.now();
  for (const f of listing.pending) {
    if (slices.due) await slices.pause();
    const reused = limits.reuse.get(pack.root, f.rel, f, f.odd);
    if (reused) {
      kept.add(f.rel, reused, f, now, f.odd);
      continue;
    }
    const readAtMs = Date.now();
    const read = readOne(out, f.rel, f.real, limits.maxFileBytes);
    // The bytes kept, when they are the ones read: the kept range goes on (no change).
    const before = read && limits.reuse.kept(pack.root, f.rel);
    const bytes = before && sameContent(before, read) ? before : read;
    if (bytes) kept.add(f.rel, bytes, f, readAtMs, f.odd);
    if (limits.recheck) out.newestChangeMs = Math.max(out.newestChangeMs, changedSince(f.real));
  }
  out.files = kept;
  limits.reuse.keep(pack.root, kept, simple(), ticket, seen());
  return out;
}

/**
 * What a listing that reads as it goes collects beside the listing: the files to keep for
 * the next read, and the problems of reading files (reported after the listing's own, as
 * when files are read after the listing).
 */
/** Lists the pack (stat only), applying the count and total-size limits. */
async function list(
  out: Building,
  pack: PackRoot,
  limits: ReadLimits,
  slices: Slices,
  reading?: Reading,
): Promise<Listing> {
  const state: WalkState = {
    count: 0,
    total: 0,
    stop: false,
    newest: 0,
    ids: new EntryHash(),
    pending: [],
    reading,
    folders: new Set(),
    linked: false,
    stamps: new FolderStamps(),
    startedAtMs: Date.now(),
  };
  if (pack.data) state.ids.line(`..data\0${pack.data}`);
  const rootStat = statSync(pack.root, { throwIfNoEntry: false });
  if (rootStat) state.stamps.set('', rootStat, state.startedAtMs);
  state.stamps.setEntries(
    '',
    await walk(out, pack, pack.root, '', new Set([pack.root]), state, limits, slices),
  );
  return {
    pending: state.pending,
    identity: state.ids.digest(),
    newestChangeMs: state.newest,
    folders: state.folders,
    linked: state.linked,
    stamps: state.stamps,
  };
}

async function walk(
  out: Building,
  pack: PackRoot,
  realDir: string,
  relDir: string,
  /** The real paths of the folders walked from the root down to this one. */
  above: Set<string>,
  state: WalkState,
  limits: ReadLimits,
  slices: Slices,
): Promise<number> {
  let entries: Dirent[];
  try {
    entries = readdirSync(realDir, { withFileTypes: true });
  } catch (e) {
    out.diagnostics.push(
      error('READ_ERROR', `cannot list folder: ${errnoReason(e)}`, { file: relDir || '.' }),
    );
    state.ids.line(`${relDir}/\0unlistable`);
    return 0;
  }
  /** Entries of this folder the read keeps (files read, folders walked): see `FolderStamps.entries`. */
  let kept = 0;
  // Taken after the listing: an entry added, removed or renamed since the read began
  // shows here (the quiet rule then waits), though the entry itself is not seen.
  state.newest = Math.max(state.newest, changedSince(realDir));
  entries.sort((a, b) => byteOrder(a.name, b.name));
  // A real path and a name without separators: joined without path.join's normalising.
  const inDir = realDir.endsWith(sep) ? realDir : realDir + sep;
  // Whether this folder's real path is where its path leads without symlinks (the reuse
  // cache then keeps only the numbers of its files: see oddKey).
  const direct =
    inDir === (pack.root.endsWith(sep) ? pack.root : pack.root + sep) + (relDir ? relDir + sep : '');
  for (const entry of entries) {
    if (state.stop) return kept;
    if (!hiddenEntryAllowed(limits.hidden, relDir, entry.name)) {
      // A nested repository's root (seen, never read); a `.git` symlink to nothing is no
      // marker, as Codex, which follows it, finds nothing there; one whose lookup fails
      // otherwise (a symlink loop) is blocked: Codex, meeting it, finds no AGENTS.md.
      if (entry.name === '.git') {
        const marker = markerOf(entry, inDir);
        if (marker === 'marker' && relDir !== '') {
          if (out.gitFolders) out.gitFolders.push(relDir);
          else out.gitFolders = [relDir];
          state.ids.line(`${relDir}/.git\0marker`);
        } else if (marker === 'blocked') {
          const at = relDir ? `${relDir}/.git` : '.git';
          out.blocked ??= new Set();
          out.blocked.add(at);
          state.linked = true;
          state.ids.line(`${at}\0blocked`);
        }
      }
      continue;
    }
    const rel = relDir ? [relDir, entry.name].join('/') : entry.name; // flat: kept as a key
    // A file the pack cannot select is not the pack's (a symlink's target is known below).
    if (entry.isFile() && limits.scope && !limits.scope.has(rel)) continue;
    if (slices.due) await slices.pause();
    if (++state.count > limits.maxFiles) {
      state.stop = true;
      out.diagnostics.push(tooManyFiles(limits.maxFiles));
      return kept;
    }
    let real = inDir + entry.name;
    if (state.reading && entry.isFile()) {
      const done = readListed(out, rel, real, direct, state, limits);
      if (done === STOP) return kept;
      if (done) {
        kept++;
        continue;
      }
    }
    let st: Stats;
    if (entry.isSymbolicLink()) state.linked = true;
    // Anything but a folder at a path the pack cannot select is not the pack's: skipped as
    // a build drops it (with any problem it has), and not counted.
    const unselected = limits.scope !== undefined && !limits.scope.has(rel);
    try {
      if (entry.isSymbolicLink()) real = realpathSync(throughData(pack, real, readlinkSync(real)));
      st = statSync(real);
    } catch (e) {
      // A folder that cannot be entered (its name is not UTF-8) is said at `rel/`, as a
      // folder leading out of the pack is: the build keeps it when the pack may select a
      // file in it, whatever its own name.
      const folder = entry.isDirectory();
      if (unselected && !(folder && limits.scope!.holdsBelow(rel))) {
        state.count--;
        continue;
      }
      const at = folder ? `${rel}/` : rel;
      const code = (e as NodeJS.ErrnoException)?.code;
      const what = entry.isSymbolicLink()
        ? code === 'ELOOP'
          ? 'symlink loop (its links lead back to themselves)'
          : 'broken symlink'
        : folder
          ? 'cannot read folder'
          : 'cannot read entry';
      out.diagnostics.push(error('READ_ERROR', `${what}: ${unreadable(entry.name, e)}`, { file: at }));
      // Refused: a pack whose `files:` do not select the path drops the error with it.
      out.refused.add(at);
      if (entry.isSymbolicLink() && isNotFound(e)) {
        out.gone ??= new Set();
        out.gone.add(rel);
      } else if (entry.isSymbolicLink()) {
        // A link whose lookup fails otherwise (a loop): Codex, meeting it, finds no AGENTS.md.
        out.blocked ??= new Set();
        out.blocked.add(rel);
      }
      state.ids.line(`${at}\0gone`);
      continue;
    }
    const outside = entry.isSymbolicLink() && !insidePack(pack.root, real);
    // A folder the pack cannot select files in is not the pack's, even leading out of it.
    if (unselected && (!st.isDirectory() || (outside && !limits.scope!.holdsBelow(rel)))) {
      state.count--;
      continue;
    }
    if (outside) {
      // Said at the path, a folder's as `rel/` (the build keeps it when the pack may
      // select a file in it): never passed over without a word.
      const at = st.isDirectory() ? `${rel}/` : rel;
      out.refused.add(at);
      out.diagnostics.push(
        error('PATH_OUTSIDE_PACK', `symlink points outside the pack (to ${real})`, { file: at }),
      );
      state.ids.line(`${at}\0outside\0${real}`);
      continue;
    }
    state.ids.entry(rel, real, st, real);
    if (st.isDirectory()) {
      // A folder named like a file the pack could select is refused as that file. A pack
      // that selects its files (an AGENTS.md tree) walks it all the same: it is a folder
      // like any other (a web app's `app/sitemap.md/` route), where files may be and an
      // agent may work.
      if (FILE_LIKE.test(entry.name) && !unselected) {
        out.refused.add(rel);
        out.diagnostics.push(specialFile(rel, 'is a folder, but named like a file'));
        if (limits.scope === undefined) continue;
      }
      // A folder on the way down (a symlink to it or to a folder above it) is a loop, not
      // walked again; a symlink to any other folder of the pack reads it under both paths,
      // as the OS shows it.
      if (above.has(real)) continue;
      above.add(real);
      state.folders.add(rel);
      state.stamps.set(rel, st, state.startedAtMs);
      state.stamps.setEntries(rel, await walk(out, pack, real, rel, above, state, limits, slices));
      above.delete(real);
      kept++;
    } else if (st.isFile()) {
      const changedMs = Math.max(st.mtimeMs, st.ctimeMs);
      state.newest = Math.max(state.newest, changedMs);
      const size = st.size;
      if (size > limits.maxFileBytes) {
        out.refused.add(rel);
        out.diagnostics.push(fileTooLarge(rel, size, limits.maxFileBytes));
        continue;
      }
      state.total += size;
      if (state.total > limits.maxPackBytes) {
        state.stop = true;
        out.diagnostics.push(packTooLarge(state.total, limits.maxPackBytes));
        return kept;
      }
      const odd = oddKey(isDirect(pack.root, rel, real), real, st, real);
      if (state.reading) {
        out.filesRead++;
        readNow(rel, real, st, odd, limits.maxFileBytes, state.reading);
        if (limits.recheck) state.newest = Math.max(state.newest, changedSince(real));
      } else {
        const { ino, mtimeMs, ctimeMs } = st;
        state.pending.push({ rel, real, ino, size, mtimeMs, ctimeMs, odd });
      }
      kept++;
    } else {
      out.refused.add(rel);
      out.diagnostics.push(specialFile(rel, `is a ${kind(st)}`));
    }
  }
  return kept;
}

const STOP = Symbol('stop');

/**
 * Reads a file the listing found (a regular file when listed) as it is listed: opened
 * without blocking or following a symlink, its identity and limits from the opened file,
 * its bytes read at once. Returns true when done with the entry, STOP when the pack is
 * over its byte limit, false to treat the entry as a listing without reading does (it
 * could not be opened, or is no longer a regular file).
 */
function readListed(
  out: Building,
  rel: string,
  real: string,
  direct: boolean,
  state: WalkState,
  limits: ReadLimits,
): boolean | typeof STOP {
  const reading = state.reading!;
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return false;
    out.filesRead++;
    state.ids.entry(rel, real, st, fd);
    const changedMs = Math.max(st.mtimeMs, st.ctimeMs);
    state.newest = Math.max(state.newest, changedMs);
    const size = st.size;
    if (size > limits.maxFileBytes) {
      out.refused.add(rel);
      out.diagnostics.push(fileTooLarge(rel, size, limits.maxFileBytes));
      return true;
    }
    state.total += size;
    if (state.total > limits.maxPackBytes) {
      state.stop = true;
      out.diagnostics.push(packTooLarge(state.total, limits.maxPackBytes));
      return STOP;
    }
    const bytes = reading.slab.take(size);
    const kept = readFully(fd, bytes);
    reading.kept.add(rel, kept, st, reading.readAtMs, oddKey(direct, real, st, fd));
    if (limits.recheck) state.newest = Math.max(state.newest, changedSince(real));
    return true;
  } catch (e) {
    reading.refused.push(rel);
    reading.problems.push(error('READ_ERROR', `cannot read file: ${errnoReason(e)}`, { file: rel }));
    return true;
  } finally {
    closeSync(fd);
  }
}

/** Reads a listed file at once (a symlink to a file, or an entry that changed under the listing). */
function readNow(
  rel: string,
  real: string,
  st: Stats,
  odd: string | undefined,
  maxBytes: number,
  reading: Reading,
): void {
  const read = readRegularFileSync(real, rel, maxBytes);
  if ('bytes' in read) {
    reading.kept.add(rel, read.bytes, st, reading.readAtMs, odd);
  } else {
    reading.refused.push(rel);
    reading.problems.push(read.problem);
  }
}

function readOne(out: Building, rel: string, real: string, maxBytes: number): Uint8Array | undefined {
  out.filesRead++;
  const read = readRegularFileSync(real, rel, maxBytes);
  if ('bytes' in read) return read.bytes;
  out.refused.add(rel);
  out.diagnostics.push(read.problem);
}

/** A read being made (its files are set once it is complete). */
type Building = DiskPackFiles;

function empty(root: string): Building {
  return {
    root,
    files: new Map(),
    refused: new Set(),
    diagnostics: [],
    identity: '',
    newestChangeMs: 0,
    filesRead: 0,
  };
}

/**
 * Whether a `.git` entry marks a repository (one that is there once links are followed),
 * is a symlink to nothing (no marker), or one whose lookup fails otherwise (blocked).
 */
function markerOf(entry: Dirent, inDir: string): 'marker' | 'none' | 'blocked' {
  if (!entry.isSymbolicLink()) return 'marker';
  try {
    return statSync(inDir + entry.name, { throwIfNoEntry: false }) === undefined ? 'none' : 'marker';
  } catch {
    return 'blocked';
  }
}
