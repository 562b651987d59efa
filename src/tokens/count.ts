import type { Snapshot } from '../core/build/snapshot.js';
import type { ComposeResult, LayerResult } from '../core/compose/compose.js';
import { sha256, utf8Length } from '../core/text/text.js';
import { engineOf } from '../engine/default-engine.js';
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
 * The tokenizer defaults to the manifest's `tokenizer:` (else o200k_base). `known`
 * gives counts already made for some text hashes (see `withTokensOffThread`).
 *
 * @example
 * const { tokens, layers } = withTokens(compose(snapshot, { agent: 'ada' }), snapshot);
 * tokens.total; // 4873
 */
export function withTokens(
  result: ComposeResult,
  snapshot: Snapshot,
  tokenizer?: Tokenizer,
  known?: ReadonlyMap<string, number>,
): TokenizedResult {
  const { budgets, tokenizer: configured } = tokenConfig(snapshot);
  const tk = tokenizer ?? getTokenizer(configured);
  const layerText = layerTexts(result);
  const layers = result.layers.map((layer): TokenizedLayer => {
    if (!layer.included || layer.start === undefined || layer.end === undefined) return layer;
    const hash = layer.sha256 ?? '';
    const tokens = known?.get(hash) ?? countCached(snapshot, tk, hash, () => layerText(layer));
    const out: TokenizedLayer = { ...layer, tokens };
    const max = budgets?.layers[layer.id];
    if (max !== undefined) out.budget = { max, status: budgetStatus(tokens, max, budgets!.warnAt) };
    return out;
  });
  const total = known?.get(result.sha256) ?? countCached(snapshot, tk, result.sha256, () => result.text);
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
 * when known). Any text may be counted: the shared byte-bounded cache keeps the most
 * recently used counts.
 */
export function countTokens(snapshot: Snapshot, tokenizer: Tokenizer, text: string, hash?: string): number {
  return countCached(snapshot, tokenizer, hash ?? sha256(text), () => text);
}

/**
 * The texts {@link withTokens} would count for a result that are not yet in the
 * snapshot's cache, with their hashes (so they can be counted elsewhere, e.g. off the
 * event loop, and handed back through {@link rememberCount}).
 */
export function uncountedTexts(
  result: ComposeResult,
  snapshot: Snapshot,
  tokenizer: Tokenizer,
): Array<{ hash: string; text: string }> {
  const out: Array<{ hash: string; text: string }> = [];
  const seen = new Set<string>();
  const add = (hash: string, text: () => string) => {
    if (hash === '' || seen.has(hash) || counts(snapshot).get(snapshot, key(tokenizer, hash)) !== undefined)
      return;
    seen.add(hash);
    out.push({ hash, text: text() });
  };
  const layerText = layerTexts(result);
  for (const layer of result.layers) {
    if (layer.included && layer.start !== undefined && layer.end !== undefined)
      add(layer.sha256 ?? '', () => layerText(layer));
  }
  add(result.sha256, () => result.text);
  return out;
}

/** Stores a count made elsewhere for a text hash (see {@link uncountedTexts}). */
export function rememberCount(snapshot: Snapshot, tokenizer: Tokenizer, hash: string, count: number): void {
  counts(snapshot).set(snapshot, key(tokenizer, hash), count, 8);
}

// --- internal ---

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Token counts per snapshot, encoding and text hash, in the byte-bounded cache of the snapshot's engine. */
const counts = (snapshot: Snapshot) => engineOf(snapshot).cache.view<number>('tokens');

function key(tokenizer: Tokenizer, hash: string): string {
  return `${tokenizer.encoding}:${hash}`;
}

/**
 * A reader of each included layer's text: the characters of the result text between the
 * layer's UTF-8 byte offsets. They are found walking the text (layers come in order, so
 * each walk goes on from the last), and the text is sliced, not copied; a slice whose
 * UTF-8 length is not the layer's (possible only around lone surrogates) is read from the
 * text's UTF-8 bytes instead, as is one holding a lone surrogate (which those bytes carry
 * as U+FFFD).
 */
function layerTexts(result: ComposeResult): (layer: { start?: number; end?: number }) => string {
  const { text } = result;
  // One byte per character: offsets are byte offsets.
  const ascii = result.bytes === text.length;
  const offsets = new CharOffsets(text);
  let bytes: Uint8Array | undefined;
  return ({ start = 0, end = 0 }) => {
    const slice = ascii ? text.slice(start, end) : text.slice(offsets.at(start), offsets.at(end));
    if (utf8Length(slice) === end - start && !LONE_SURROGATE.test(slice)) return slice;
    bytes ??= encoder.encode(text);
    return decoder.decode(bytes.subarray(start, end));
  };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Character offsets of UTF-8 byte offsets in a text, walking forward from the last one asked. */
class CharOffsets {
  #byte = 0;
  #char = 0;
  constructor(private readonly text: string) {}

  at(byte: number): number {
    if (byte < this.#byte) {
      this.#byte = 0;
      this.#char = 0;
    }
    const t = this.text;
    let b = this.#byte;
    let i = this.#char;
    while (b < byte && i < t.length) {
      const c = t.charCodeAt(i);
      if (c < 0x80) b += 1;
      else if (c < 0x800) b += 2;
      else if (c >= 0xd800 && c < 0xdc00 && (t.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        b += 4;
        i++;
      } else b += 3; // the rest of the BMP, and a lone surrogate (U+FFFD)
      i++;
    }
    this.#byte = b;
    this.#char = i;
    return i;
  }
}

function countCached(snapshot: Snapshot, tokenizer: Tokenizer, hash: string, text: () => string): number {
  const hit = hash === '' ? undefined : counts(snapshot).get(snapshot, key(tokenizer, hash));
  if (hit !== undefined) return hit;
  const count = tokenizer.count(text());
  if (hash !== '') rememberCount(snapshot, tokenizer, hash, count);
  return count;
}
