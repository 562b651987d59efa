import { DEFAULT_MAX_PROMPT_BYTES } from '../core/compose/prompt-limit.js';
import { type Diagnostic, error } from '../core/text/diagnostics.js';

/**
 * Limits on what reading a pack may cost, shared by every pack source (folder, git
 * revision, bundle). Each has a default, a CLI flag and a diagnostic code; see
 * docs/operations.md.
 */
export interface PackLimits {
  /** Files larger than this are refused with FILE_TOO_LARGE (default 1 MiB; `--max-file-bytes`). */
  maxFileBytes?: number;
  /** A pack whose files add up to more bytes is PACK_TOO_LARGE (default 64 MiB; `--max-pack-bytes`). */
  maxPackBytes?: number;
  /** A pack with more files and folders is TOO_MANY_FILES (default 10,000; `--max-files`). */
  maxFiles?: number;
  /** One read of the pack taking longer is READ_TIMEOUT (default 10 s; `--read-timeout`). */
  readTimeoutMs?: number;
  /**
   * A prompt composed from the pack may have at most this many bytes, each value filled
   * into it too: more is PROMPT_TOO_LARGE, said as the text grows (default 4 MiB;
   * `--max-prompt-bytes`).
   */
  maxPromptBytes?: number;
}

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
export const DEFAULT_MAX_PACK_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 10_000;
export const DEFAULT_READ_TIMEOUT_MS = 10_000;
export { DEFAULT_MAX_PROMPT_BYTES };

/**
 * Every limit, with defaults filled in. A limit given as anything but a positive safe
 * integer (a string, NaN, 0, a negative number, Infinity: what untyped code may pass) is
 * a RangeError, as the CLI's flags refuse it: compared as it is, it would turn the limit
 * off without a word.
 */
export function resolveLimits(limits: PackLimits = {}): Required<PackLimits> {
  return {
    maxFileBytes: checked(limits, 'maxFileBytes', DEFAULT_MAX_FILE_BYTES),
    maxPackBytes: checked(limits, 'maxPackBytes', DEFAULT_MAX_PACK_BYTES),
    maxFiles: checked(limits, 'maxFiles', DEFAULT_MAX_FILES),
    readTimeoutMs: checked(limits, 'readTimeoutMs', DEFAULT_READ_TIMEOUT_MS),
    maxPromptBytes: checked(limits, 'maxPromptBytes', DEFAULT_MAX_PROMPT_BYTES),
  };
}

/** FILE_TOO_LARGE for one file. */
export function fileTooLarge(file: string, size: number | bigint, limit: number): Diagnostic {
  return error('FILE_TOO_LARGE', `file is ${size} bytes; the limit is ${limit}`, { file });
}

/** PACK_TOO_LARGE: the files of the pack add up to more than the limit. */
export function packTooLarge(total: number, limit: number): Diagnostic {
  return error(
    'PACK_TOO_LARGE',
    `the pack's files add up to more than ${limit} bytes (at least ${total}); the limit is ${limit} (--max-pack-bytes)`,
  );
}

/** TOO_MANY_FILES: the pack holds more files and folders than the limit. */
export function tooManyFiles(limit: number): Diagnostic {
  return error(
    'TOO_MANY_FILES',
    `the pack holds more than ${limit} files and folders; the limit is ${limit} (--max-files)`,
  );
}

/** SPECIAL_FILE: an entry that is neither a regular file nor a folder (or a folder named like a file). */
export function specialFile(file: string, what: string): Diagnostic {
  return error('SPECIAL_FILE', `${what}; a pack holds only regular files and folders`, { file });
}

/** READ_TIMEOUT: one read of the pack took longer than the limit. */
export function readTimeout(limit: number): Diagnostic {
  return error(
    'READ_TIMEOUT',
    `reading the pack took longer than ${limit} ms (--read-timeout); a file may be on a stalled disk`,
  );
}

// --- internal ---

function checked(limits: PackLimits, name: keyof PackLimits, fallback: number): number {
  const value: unknown = limits[name];
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  throw new RangeError(`pack limit ${name} must be a positive integer, got ${shown}`);
}
