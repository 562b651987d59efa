import { type Diagnostic, error } from '../text/diagnostics.js';

// A composed prompt, and each value filled into one, is bounded in bytes: a request's
// inputs cannot make a prompt (or the work and memory behind it) grow without end. The
// limit is the pack's (`--max-prompt-bytes`, `maxPromptBytes` when it is loaded); text is
// checked as it grows, never after it is made.

/** The default limit of a composed prompt: 4 MiB. */
export const DEFAULT_MAX_PROMPT_BYTES = 4 * 1024 * 1024;

/**
 * PROMPT_TOO_LARGE: composing would make more than `limit` bytes (`what`: the text that
 * grew past it).
 */
export function promptTooLarge(limit: number, what: string): Diagnostic {
  return error(
    'PROMPT_TOO_LARGE',
    `${what} would be more than ${limit} bytes, the limit of a composed prompt (--max-prompt-bytes, maxPromptBytes); nothing was composed`,
  );
}
