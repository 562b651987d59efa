import type { ComposeResult, LayerResult } from '../core/compose.js';
import type { Snapshot } from '../core/snapshot.js';
import { sha256 } from '../core/text.js';
import { type BudgetStatus, budgetFor, budgetStatus, nearFrom, tokenConfig } from './config.js';
import { type EncodingName, getTokenizer, type Tokenizer, type TokenizerName } from './tokenizer.js';

/** A layer of a result with its token count (included layers only). */
export interface TokenizedLayer extends LayerResult {
  /** Tokens of the layer's text alone. */
  tokens?: number;
  /** The layer's own maximum from `budgets.layers`, and where the layer stands. */
  budget?: { max: number; status: BudgetStatus };
}

/** Token figures of a whole result. */
export interface TokenSummary {
  /** The encoding that counted. */
  tokenizer: EncodingName;
  /** The model family asked for, when it is not the encoding itself (`claude`). */
  family?: TokenizerName;
  /** True when the figures approximate a tokenizer that is not public. */
  estimate: boolean;
  /**
   * Tokens of the whole text. Separators, and BPE merges across layer boundaries, make
   * this differ a little from the sum of the layers' counts.
   */
  total: number;
  /** The prompt's maximum (role override, else the pack's), when budgets set one. */
  budget?: { max: number; nearFrom: number; status: BudgetStatus };
}

/** A compose result with token counts on its included layers and in total. */
export interface TokenizedResult extends ComposeResult {
  layers: TokenizedLayer[];
  tokens: TokenSummary;
}

/**
 * Adds token counts to a result: `tokens` on every included layer and a `tokens`
 * summary (total, tokenizer, estimate flag, budget status). Counts are cached per
 * snapshot and text hash, so a layer is counted once per snapshot, not per request.
 * The tokenizer defaults to the manifest's `tokenizer:` (else o200k_base).
 *
 * @example
 * const { tokens, layers } = withTokens(compose(snapshot, { agent: 'ada' }), snapshot);
 * tokens.total; // 4873
 */
export function withTokens(
  result: ComposeResult,
  snapshot: Snapshot,
  tokenizer?: Tokenizer,
): TokenizedResult {
  const { budgets, tokenizer: configured } = tokenConfig(snapshot);
  const tk = tokenizer ?? getTokenizer(configured);
  let bytes: Uint8Array | undefined;
  const layers = result.layers.map((layer): TokenizedLayer => {
    if (!layer.included || layer.start === undefined || layer.end === undefined) return layer;
    const { start, end } = layer;
    const tokens = countCached(snapshot, tk, layer.sha256 ?? '', () => {
      bytes ??= encoder.encode(result.text);
      return decoder.decode(bytes.subarray(start, end));
    });
    const out: TokenizedLayer = { ...layer, tokens };
    const max = budgets?.layers[layer.id];
    if (max !== undefined) out.budget = { max, status: budgetStatus(tokens, max, budgets!.warnAt) };
    return out;
  });
  const total = countCached(snapshot, tk, result.sha256, () => result.text);
  const summary: TokenSummary = { tokenizer: tk.encoding, estimate: tk.estimate, total };
  if (tk.name !== tk.encoding) summary.family = tk.name;
  const max = budgetFor(budgets, result.role);
  if (max !== undefined) {
    summary.budget = {
      max,
      nearFrom: nearFrom(max, budgets!.warnAt),
      status: budgetStatus(total, max, budgets!.warnAt),
    };
  }
  return { ...result, layers, tokens: summary };
}

/**
 * Tokens of `text`, cached per snapshot and encoding under the text's sha256 (pass it
 * when known). Any text may be counted: the cache keeps the most recent entries.
 */
export function countTokens(snapshot: Snapshot, tokenizer: Tokenizer, text: string, hash?: string): number {
  return countCached(snapshot, tokenizer, hash ?? sha256(text), () => text);
}

/** How many texts a snapshot's cache holds per encoding before it drops the oldest. */
export const TOKEN_CACHE_SIZE = 20_000;

// --- internal ---

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const caches = new WeakMap<Snapshot, Map<EncodingName, Map<string, number>>>();

function countCached(snapshot: Snapshot, tokenizer: Tokenizer, hash: string, text: () => string): number {
  let perEncoding = caches.get(snapshot);
  if (!perEncoding) {
    perEncoding = new Map();
    caches.set(snapshot, perEncoding);
  }
  let cache = perEncoding.get(tokenizer.encoding);
  if (!cache) {
    cache = new Map();
    perEncoding.set(tokenizer.encoding, cache);
  }
  const hit = hash === '' ? undefined : cache.get(hash);
  if (hit !== undefined) return hit;
  const count = tokenizer.count(text());
  if (hash === '') return count;
  if (cache.size >= TOKEN_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(hash, count);
  return count;
}
