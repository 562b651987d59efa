import { createRequire } from 'node:module';
import { DEFAULT_TOKENIZER, type EncodingName, type TokenizerName } from '../core/pack/tokenizer-names.js';
import {
  type Diagnostic,
  error,
  info,
  PromptError,
  type Severity,
  warning,
} from '../core/text/diagnostics.js';
import { mergedTokenCount } from './bpe-merge.js';

export * from '../core/pack/tokenizer-names.js';

// The tokenizer wrapper: gpt-tokenizer's offline BPE encodings behind one small
// synchronous interface. An encoding's tables load on its first count (o200k_base takes
// a few hundred milliseconds), so commands that never count tokens never pay for them.
// gpt-tokenizer is an optional peer dependency (30 MB of tables): without it, a count
// throws a PromptError TOKENIZER_MISSING, and the edges that add counts on their own
// (explain, compose --json, the service) leave them out and say so once.
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

/**
 * Whether the optional package that counts tokens (gpt-tokenizer) is installed. Without
 * it every count throws a PromptError `TOKENIZER_MISSING`; see {@link tokenizerMissing}.
 */
export function tokenizerAvailable(): boolean {
  if (available === undefined) {
    try {
      load.resolve(`${PACKAGE}/cjs/encoding/o200k_base`);
      available = true;
    } catch {
      available = false;
    }
  }
  return available;
}

/**
 * The diagnostic that says token counts are off because gpt-tokenizer is not installed,
 * with what was left out (`what`, e.g. "the tokens column") and how to install it.
 */
export function tokenizerMissing(what: string, severity: Severity = 'error'): Diagnostic {
  const message = `${what}: token counts need the optional package ${PACKAGE}, which is not installed (npm install ${PACKAGE}@4)`;
  return { error, warning, info }[severity]('TOKENIZER_MISSING', message);
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

const PACKAGE = 'gpt-tokenizer';
const tokenizers = new Map<TokenizerName, Tokenizer>();
let available: boolean | undefined;
const counters = new Map<EncodingName, CountFn>();
const load = createRequire(import.meta.url);
const utf8 = new TextEncoder();

function encodingCounter(encoding: EncodingName): CountFn {
  let counter = counters.get(encoding);
  if (!counter) {
    if (!tokenizerAvailable()) throw new PromptError([tokenizerMissing(`counting ${encoding} tokens`)]);
    const mod = load(`${PACKAGE}/cjs/encoding/${encoding}`) as {
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
