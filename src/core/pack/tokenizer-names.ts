// The names of the tokenizers strata knows: data the manifest parser checks `tokenizer:`
// against (the tokenizers themselves live in src/tokens/).

/** The BPE encodings strata can count with. */
export const ENCODINGS = ['o200k_base', 'cl100k_base'] as const;
export type EncodingName = (typeof ENCODINGS)[number];

/**
 * What a caller may ask to count for: an encoding, or a model family. `claude` has no
 * public tokenizer: its figures come from o200k_base and are labelled estimates.
 */
export const TOKENIZER_NAMES = ['o200k_base', 'cl100k_base', 'claude'] as const;
export type TokenizerName = (typeof TOKENIZER_NAMES)[number];

export const DEFAULT_TOKENIZER: TokenizerName = 'o200k_base';

export function isTokenizerName(value: unknown): value is TokenizerName {
  return typeof value === 'string' && (TOKENIZER_NAMES as readonly string[]).includes(value);
}
