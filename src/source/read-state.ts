import type { Diagnostic } from '../core/text/diagnostics.js';
import type { EntryHash } from './entry-identity.js';
import type { FolderStamps } from './folder-stamps.js';
import type { FileStats, KeptFiles } from './kept-files.js';
import type { Slab } from './read-file.js';

// What one folder read (read-dir.ts) keeps as it goes: the files listed, the files read
// as they are listed, and the walk's running counts.

/** A file listed, to be read or found unchanged: its identity numbers as listed. */
export interface Pending extends FileStats {
  rel: string;
  real: string;
  /** What the reuse cache compares beside the numbers (see `KeptFiles`), for a few files. */
  odd: string | undefined;
}

export interface Listing {
  pending: Pending[];
  identity: string;
  newestChangeMs: number;
  /** Every folder walked (relative paths; the root not included). */
  folders: Set<string>;
  /** Whether any symlink was met. */
  linked: boolean;
  /** Each folder's identity (the root's as `''`), taken before it was listed. */
  stamps: FolderStamps;
}

/** Files read as they are listed (a first read, or one whose files changed). */
export interface Reading {
  kept: KeptFiles;
  problems: Diagnostic[];
  refused: string[];
  /** Where small files' bytes are allocated. */
  slab: Slab;
  /**
   * `Date.now()` when the read began: the time every file of the read is kept as read at
   * (earlier than each file's own, so the reuse cache's settled rule only grows stricter).
   */
  readAtMs: number;
}

/** The walk's running counts and what it has found so far. */
export interface WalkState {
  count: number;
  total: number;
  stop: boolean;
  newest: number;
  ids: EntryHash;
  pending: Pending[];
  /** Set when regular files are read as they are listed. */
  reading: Reading | undefined;
  folders: Set<string>;
  linked: boolean;
  stamps: FolderStamps;
  /** `Date.now()` when the listing began: every folder stamp counts as taken then. */
  startedAtMs: number;
}
