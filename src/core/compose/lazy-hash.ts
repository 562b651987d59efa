import type { PackFile } from '../build/pack-file.js';
import { Stamped } from '../text/stamped.js';
import { sha256 } from '../text/text.js';
import type { ComposeResult, LayerPart, LayerResult } from './types.js';

// A result's sha256, and each layer's (or chain part's), is an enumerable property
// computed on first read, so JSON, spreads and equality see it as always; composing does
// not pay for it. One shared
// getter reads the hash source, kept in a private field stamped onto the object (a class
// constructor that returns the object it is given): invisible to keys, spreads and
// equality, and much cheaper than a second defineProperty.
//
// A result's `layers` is an enumerable property too, finished on first read: each included
// layer (its hash source already stamped on it) gets its `sha256` getter then, and, when
// the result is frozen (a shared result is), the layers are frozen with it. A caller that
// reads only the text never pays for either.

/**
 * Included layers and chain parts and their hash sources (a file, or a text's own), in
 * pairs; and layers with the work that finishes them when the list is first read.
 */
export type HashPairs = (LayerResult | LayerPart | PackFile | { hash(): string } | LayerFinish)[];

/** Work on a layer deferred to the first read of its result's layers (a text layer's segments). */
export interface LayerFinish {
  finish(layer: LayerResult): void;
}

/** The hash of the characters [from, to) of the result text, once it is joined. */
export class SliceHash {
  #hash: string | undefined;
  constructor(
    private readonly joined: { text: string },
    private readonly from: number,
    private readonly to: number,
  ) {}
  hash(): string {
    this.#hash ??= sha256(this.joined.text.slice(this.from, this.to));
    return this.#hash;
  }
}

/** Gives `target` a `sha256` property computed from `source` on first read. */
export function lazyHash(target: LayerResult | LayerPart, source: { hash(): string }): void {
  new HashSource(target, source);
  defineGetter(target, 'sha256', hashGetter);
}

/**
 * Gives a result its `sha256` property, computed from `source` (a file whose prompt the
 * text is, or the text's own hash) on first read, and keeps its layers for
 * {@link attachLayers} (one stamp for both: each costs as much as a property).
 */
export function promptHash(
  result: ComposeResult,
  source: PackFile | { hash(): string },
  layers: LayerResult[],
  hashes: HashPairs,
): void {
  new ResultSources(result, source, layers, hashes);
  defineGetter(result, 'sha256', resultHashGetter);
}

/**
 * Gives a result (given its layers by {@link promptHash}) its `layers` property: the
 * layers, each included one's `sha256` (from the hashes, in pairs) defined when the list
 * is first read.
 */
export function attachLayers(result: ComposeResult): void {
  defineGetter(result, 'layers', layersGetter);
}

/** Freezes a result's layers, their parts and segments, and the list; returns the list. */
export function freezeLayers<L extends { parts?: object[]; segments?: { inputs?: object[] }[] }>(
  layers: L[],
): readonly L[] {
  for (const layer of layers) {
    if (layer.parts) {
      for (const part of layer.parts) Object.freeze(part);
      Object.freeze(layer.parts);
    }
    if (layer.segments) {
      for (const segment of layer.segments) {
        if (segment.inputs) {
          for (const input of segment.inputs) Object.freeze(input);
          Object.freeze(segment.inputs);
        }
        Object.freeze(segment);
      }
      Object.freeze(layer.segments);
    }
    Object.freeze(layer);
  }
  return Object.freeze(layers);
}

// --- internal ---

/** The hash of a text that is a file's prompt: the file computes it once, for every compose. */
class FileHashSource extends Stamped {
  #file: PackFile;
  constructor(target: object, file: PackFile) {
    super(target);
    this.#file = file;
  }
  static hash(target: object): string | undefined {
    return #file in target ? (target as FileHashSource).#file.promptSha256 : undefined;
  }
}

/** The hash of any other text (a slice of the result, an appended text). */
class HashSource extends Stamped {
  #source: { hash(): string };
  constructor(target: object, source: { hash(): string }) {
    super(target);
    this.#source = source;
  }
  static hash(target: object): string {
    return (target as HashSource).#source.hash();
  }
}

/**
 * Gives `target` an own enumerable accessor `key`, as `Object.defineProperty` with
 * `{ enumerable: true, configurable: true, get }` would: through Annex B's
 * `__defineGetter__`, which takes no descriptor object to read and defines it in about
 * two thirds of the time (every compose defines two).
 */
function defineGetter(target: object, key: 'sha256' | 'layers', get: (this: object) => unknown): void {
  (target as { __defineGetter__(key: string, get: () => unknown): void }).__defineGetter__(key, get);
}

function hashGetter(this: object): string {
  return FileHashSource.hash(this) ?? HashSource.hash(this);
}

/** A result's hash source and its layers. */
class ResultSources extends Stamped {
  #source: PackFile | { hash(): string };
  #layers: LayerResult[];
  /** Each included layer and its hash source, in pairs; undefined once the list is finished. */
  #hashes: HashPairs | undefined;
  constructor(
    target: object,
    source: PackFile | { hash(): string },
    layers: LayerResult[],
    hashes: HashPairs,
  ) {
    super(target);
    this.#source = source;
    this.#layers = layers;
    this.#hashes = hashes;
  }
  static hash(target: object): string {
    const source = (target as ResultSources).#source;
    return 'promptSha256' in source ? source.promptSha256 : source.hash();
  }
  static read(target: object): LayerResult[] {
    const list = target as ResultSources;
    const hashes = list.#hashes;
    if (hashes !== undefined) {
      list.#hashes = undefined;
      for (let i = 0; i < hashes.length; i += 2) {
        const layer = hashes[i] as LayerResult;
        const source = hashes[i + 1] as PackFile | { hash(): string } | LayerFinish;
        if ('finish' in source) {
          source.finish(layer);
          continue;
        }
        if ('promptSha256' in source) new FileHashSource(layer, source);
        else new HashSource(layer, source);
        defineGetter(layer, 'sha256', hashGetter);
      }
      if (Object.isFrozen(target)) freezeLayers(list.#layers);
    }
    return list.#layers;
  }
}

function resultHashGetter(this: object): string {
  return ResultSources.hash(this);
}

function layersGetter(this: object): LayerResult[] {
  return ResultSources.read(this);
}
