import type { GateContext } from '../pack/gates.js';
import type { LayerDef } from '../pack/manifest.js';
import { decodeLossy, toBytes, utf8Length } from '../text/text.js';

// A layer's text as its manifest shapes it: trimmed, and cut to a byte budget.

/** The layer's byte budget: a count, or an integer setting's value. */
export function budgetOf(layer: LayerDef, ctx: GateContext): number | undefined {
  if (layer.maxBytes === undefined) return undefined;
  if (typeof layer.maxBytes === 'number') return layer.maxBytes;
  const v = ctx.settings[layer.maxBytes];
  return typeof v === 'number' ? Math.max(0, v) : undefined;
}

/**
 * Text cut to a byte budget and decoded lossily (a cut inside a character leaves U+FFFD).
 * The budget counts `raw`, when given (a raw file's own bytes, `text` their decoding), else
 * the text's UTF-8 bytes (`bytes`, when known). `used`: what the cut takes of the budget.
 */
export function cutToBudget(
  text: string,
  bytes: number | undefined,
  raw: Uint8Array | RawFile | undefined,
  budget: number,
): { text: string; bytes: number; used: number; truncatedFrom?: number } {
  if (raw === undefined) {
    // Text that is not well formed (a lone surrogate from a request) changes when encoded.
    if (!(text as WellFormed).isWellFormed()) {
      const encoded = toBytes(text);
      raw = encoded;
      text = decodeLossy(encoded);
      bytes = undefined;
    } else {
      const length = bytes ?? utf8Length(text);
      if (length <= budget) return { text, bytes: length, used: length };
      const cut = decodeLossy(toBytes(text).subarray(0, budget));
      return { text: cut, bytes: utf8Length(cut), used: budget, truncatedFrom: length };
    }
  }
  const length = raw.byteLength;
  if (length <= budget) return { text, bytes: bytes ?? utf8Length(text), used: length };
  const all = raw instanceof Uint8Array ? raw : raw.raw!;
  const cut = decodeLossy(all.subarray(0, budget));
  return { text: cut, bytes: utf8Length(cut), used: budget, truncatedFrom: length };
}

/** A raw file (see `PackFile`): its length, and its bytes made only when a budget cuts them. */
export interface RawFile {
  readonly byteLength: number;
  readonly raw?: Uint8Array;
}

/** `String.prototype.isWellFormed` (ES2024; Node 20 has it). */
type WellFormed = string & { isWellFormed(): boolean };

/**
 * A layer's text as its `trim` says: `both` as JavaScript's `trim()`; `end` as Python's
 * `str.rstrip()`, whose whitespace is not JavaScript's: it strips U+001C–U+001F and U+0085
 * (NEL) and keeps U+FEFF, which `trimEnd()` strips.
 */
export function trimText(text: string, mode: LayerDef['trim']): string {
  return mode === 'both' ? text.trim() : mode === 'end' ? rstrip(text) : text;
}

/** Python's `str.rstrip()`: the text without the characters `str.isspace()` holds at its end. */
function rstrip(text: string): string {
  let end = text.length;
  while (end > 0 && PYTHON_SPACE.includes(text[end - 1]!)) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** What Python's `str.isspace()` is true for (all in the Basic Multilingual Plane). */
const PYTHON_SPACE =
  '\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';
