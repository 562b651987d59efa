import { createRequire } from 'node:module';
import { DEFAULT_TOKENIZER, type EncodingName, type TokenizerName } from './tokenizer-names.js';

export * from './tokenizer-names.js';

/**
 * The tokenizer wrapper: gpt-tokenizer's offline BPE encodings behind one small
 * synchronous interface. An encoding's tables load on its first count (o200k_base takes
 * a few hundred milliseconds), so commands that never count tokens never pay for them.
 */

/** A tokenizer: counts are synchronous. */
export interface Tokenizer {
  /** The name it was asked for (`o200k_base`, `cl100k_base`, `claude`). */
  readonly name: TokenizerName;
  /** The encoding that does the counting. */
  readonly encoding: EncodingName;
  /** True when the figures only approximate the model family's own tokenizer. */
  readonly estimate: boolean;
  /** Tokens in `text`; special-token strings such as `<|endoftext|>` count as plain text. */
  count(text: string): number;
}

/**
 * The tokenizer for a name (one per process and name; the encoding loads on first use).
 *
 * @example
 * getTokenizer('cl100k_base').count('hello world'); // 2
 * getTokenizer('claude').estimate; // true: counted with o200k_base
 */
export function getTokenizer(name: TokenizerName = DEFAULT_TOKENIZER): Tokenizer {
  let tokenizer = tokenizers.get(name);
  if (!tokenizer) {
    const encoding: EncodingName = name === 'claude' ? 'o200k_base' : name;
    tokenizer = {
      name,
      encoding,
      estimate: name === 'claude',
      // Text is data, not control: never refuse or specially encode `<|endoftext|>` and kin.
      count: (text: string) => (text === '' ? 0 : encodingCounter(encoding)(text, PLAIN_TEXT)),
    };
    tokenizers.set(name, tokenizer);
  }
  return tokenizer;
}

// --- internal ---

type CountFn = (text: string, options: { disallowedSpecial: Set<string> }) => number;

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
const tokenizers = new Map<TokenizerName, Tokenizer>();
const counters = new Map<EncodingName, CountFn>();
const load = createRequire(import.meta.url);

function encodingCounter(encoding: EncodingName): CountFn {
  let counter = counters.get(encoding);
  if (!counter) {
    const mod = load(`gpt-tokenizer/cjs/encoding/${encoding}`) as { countTokens: CountFn };
    counter = mod.countTokens;
    counters.set(encoding, counter);
  }
  return counter;
}
