import type { ComposeResult } from '../core/compose/compose.js';
import type { Manifest } from '../core/pack/manifest.js';

// Shared prefixes at layer granularity: the leading included layers that are the same
// (same id, same text) in every member's prompt. A provider's prefix cache can serve
// those for every member; the first layer that differs ends what can be shared.

/** The stable layers at the head of every member's prompt. */
export interface SharedPrefix {
  /** Their ids, in order. */
  layers: string[];
  /** Their texts' sha256, in order. */
  hashes: string[];
  /** UTF-8 bytes of the prefix text (the layers and the separators between them). */
  bytes: number;
}

/** Whether a manifest layer is the same for every member, differs, or is in no prompt. */
export type LayerStability = 'stable' | 'varying' | 'absent';

/** The longest run of leading included layers every result shares. */
export function sharedPrefix(results: readonly ComposeResult[]): SharedPrefix {
  const prefix: SharedPrefix = { layers: [], hashes: [], bytes: 0 };
  const heads = results.map((r) => r.layers.filter((l) => l.included));
  const first = heads[0];
  if (!first) return prefix;
  for (let i = 0; i < first.length; i++) {
    const layer = first[i]!;
    if (!heads.every((h) => h[i]?.id === layer.id && h[i]?.sha256 === layer.sha256)) break;
    prefix.layers.push(layer.id);
    prefix.hashes.push(layer.sha256!);
    prefix.bytes = layer.end!;
  }
  return prefix;
}

/** How many of `prefix`'s layers `result` starts with (0 when it shares none). */
export function sharedLayerCount(result: ComposeResult, prefix: SharedPrefix): number {
  const included = result.layers.filter((l) => l.included);
  let n = 0;
  while (
    n < prefix.layers.length &&
    included[n]?.id === prefix.layers[n] &&
    included[n]?.sha256 === prefix.hashes[n]
  )
    n++;
  return n;
}

/**
 * Splits a result's text after its first `count` included layers: the head (no
 * trailing separator) and the rest (separator first). `head + rest === result.text`.
 */
export function splitAfterLayers(result: ComposeResult, count: number): { head: string; rest: string } {
  if (count === 0) return { head: '', rest: result.text };
  const included = result.layers.filter((l) => l.included);
  const end = included[count - 1]?.end;
  if (end === undefined || count >= included.length) return { head: result.text, rest: '' };
  const head = decoder.decode(encoder.encode(result.text).subarray(0, end));
  return { head, rest: result.text.slice(head.length) };
}

/** Each manifest layer's stability across the members' prompts, in manifest order. */
export function layerStability(
  manifest: Manifest,
  results: readonly ComposeResult[],
): Array<{ id: string; state: LayerStability }> {
  return manifest.layers.map(({ id }) => {
    const hashes = results.map((r) => r.layers.find((l) => l.id === id && l.included)?.sha256);
    if (hashes.every((h) => h === undefined)) return { id, state: 'absent' };
    const same = hashes.every((h) => h !== undefined && h === hashes[0]);
    return { id, state: same ? 'stable' : 'varying' };
  });
}

/**
 * The order that lets a prefix cache serve the most: the stable layers first, then the
 * others, each group in manifest order. Undefined when the order already does that
 * (no varying layer stands before a stable one).
 */
export function betterOrder(
  stability: ReadonlyArray<{ id: string; state: LayerStability }>,
): string[] | undefined {
  const lastStable = stability.findLastIndex((l) => l.state === 'stable');
  const defeating = stability.slice(0, Math.max(lastStable, 0)).some((l) => l.state === 'varying');
  if (!defeating) return undefined;
  return [
    ...stability.filter((l) => l.state === 'stable'),
    ...stability.filter((l) => l.state !== 'stable'),
  ].map((l) => l.id);
}

/** The text of an included layer, cut from its result by byte range. */
export function layerText(result: ComposeResult, id: string): string | undefined {
  const layer = result.layers.find((l) => l.id === id && l.included);
  if (layer?.start === undefined || layer.end === undefined) return undefined;
  return decoder.decode(encoder.encode(result.text).subarray(layer.start, layer.end));
}

// --- internal ---

const encoder = new TextEncoder();
const decoder = new TextDecoder();
