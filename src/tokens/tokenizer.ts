import { createRequire } from 'node:module';
import { DEFAULT_TOKENIZER, type EncodingName, type TokenizerName } from '../core/pack/tokenizer-names.js';
import { mergedTokenCount } from './bpe-merge.js';

export * from '../core/pack/tokenizer-names.js';

// The tokenizer wrapper: gpt-tokenizer's offline BPE encodings behind one small
// synchronous interface. An encoding's tables load on its first count (o200k_base takes
// a few hundred milliseconds), so commands that never count tokens never pay for them.
//
// Counts are exactly gpt-tokenizer's, in time that grows with the text's length times
// its logarithm, whatever the text: the library merges a pre-token (a run the split
// pattern does not break, such as 64 KB of `x` or `中`) in time quadratic in its length,
// which let one request block the service for seconds. Short pre-tokens still go through
// the library (and its merge cache, held to `MERGE_CACHE_ENTRIES` entries of at
// most `SHORT_PIECE` characters); longer ones are merged by a heap.

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
      count: (text: string) => (text === '' ? 0 : encodingCounter(encoding)(text)),
    };
    tokenizers.set(name, tokenizer);
  }
  return tokenizer;
}

/** Pre-tokens up to this many UTF-16 units go through the library and its merge cache. */
export const SHORT_PIECE = 32;
/** Entries of the library's merge cache (each a pre-token of at most {@link SHORT_PIECE} units). */
export const MERGE_CACHE_ENTRIES = 20_000;

// --- internal ---

type CountFn = (text: string) => number;

/** The parts of gpt-tokenizer's encoder that counting uses (stable across its 4.x line). */
interface BpeCore {
  tokenSplitRegex: RegExp;
  getBpeRankFromString(piece: string): number | undefined;
  getBpeRankFromBytes(bytes: Uint8Array): number | undefined;
  bytePairEncode(piece: string): number[];
  setMergeCacheSize(size: number): void;
}

const tokenizers = new Map<TokenizerName, Tokenizer>();
const counters = new Map<EncodingName, CountFn>();
const load = createRequire(import.meta.url);
const utf8 = new TextEncoder();

function encodingCounter(encoding: EncodingName): CountFn {
  let counter = counters.get(encoding);
  if (!counter) {
    const mod = load(`gpt-tokenizer/cjs/encoding/${encoding}`) as {
      default: { bytePairEncodingCoreProcessor: BpeCore };
    };
    const core = mod.default.bytePairEncodingCoreProcessor;
    core.setMergeCacheSize(MERGE_CACHE_ENTRIES);
    const split = new RegExp(core.tokenSplitRegex.source, core.tokenSplitRegex.flags);
    const rankOf = (bytes: Uint8Array) => core.getBpeRankFromBytes(bytes);
    // Special-token strings are plain text here: the whole text goes through the split.
    counter = (text) => {
      let count = 0;
      for (const [piece] of text.matchAll(split)) {
        if (core.getBpeRankFromString(piece) !== undefined) count++;
        else if (piece.length <= SHORT_PIECE) count += core.bytePairEncode(piece).length;
        else count += mergedTokenCount(utf8.encode(piece), rankOf);
      }
      return count;
    };
    counters.set(encoding, counter);
  }
  return counter;
}
