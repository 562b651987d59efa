/**
 * A read-only map made of a base map and a few changed values: what a reload's new
 * version of a large pack is, one edited file over the files of the version before.
 * Building one costs the changes, not the base (no copy of 100,000 entries per edit).
 * Only values change, never the keys: the keys, their order and the size are the base's.
 * Layers do not stack: a map layered over a layered map shares that one's base and merges
 * the changes (copied: a few), so a look-up is at most two; once the changes grow past
 * {@link MAX_LAYERED} they are folded into a new flat base.
 *
 * @example
 * const next = LayeredMap.over(files, new Map([['roles/qa.md', edited]]));
 * next.get('roles/qa.md') === edited; next.get('base.md') === files.get('base.md');
 */
export class LayeredMap<K, V> implements ReadonlyMap<K, V> {
  readonly #base: ReadonlyMap<K, V>;
  readonly #changes: ReadonlyMap<K, V>;

  private constructor(base: ReadonlyMap<K, V>, changes: ReadonlyMap<K, V>) {
    this.#base = base;
    this.#changes = changes;
  }

  /**
   * `map` with the values of `changes` instead (every key of `changes` must be a key of
   * `map`: a layered map never adds or removes keys).
   */
  static over<K, V>(map: ReadonlyMap<K, V>, changes: ReadonlyMap<K, V>): ReadonlyMap<K, V> {
    for (const key of changes.keys())
      if (!map.has(key)) throw new RangeError('a layered map changes values, never keys');
    let base = map;
    let merged = changes;
    if (map instanceof LayeredMap) {
      base = map.#base;
      const all = new Map(map.#changes);
      for (const [k, v] of changes) all.set(k, v);
      merged = all;
    }
    if (merged.size > MAX_LAYERED) return new Map(new LayeredMap(base, merged));
    return new LayeredMap(base, merged);
  }

  /** The flat map a map is layered over (the map itself when it is not layered): the same keys, in the same order. */
  static base<K, V>(map: ReadonlyMap<K, V>): ReadonlyMap<K, V> {
    return map instanceof LayeredMap ? map.#base : map;
  }

  /**
   * The keys whose values may differ between `a` and `b` (a superset of those that do),
   * when both are layered over one base (or one is that base); undefined otherwise.
   */
  static changedKeys<K, V>(a: ReadonlyMap<K, V>, b: ReadonlyMap<K, V>): K[] | undefined {
    if (LayeredMap.base(a) !== LayeredMap.base(b)) return undefined;
    const keys = new Set<K>();
    for (const m of [a, b]) if (m instanceof LayeredMap) for (const k of m.#changes.keys()) keys.add(k);
    return [...keys];
  }

  get size(): number {
    return this.#base.size;
  }

  get(key: K): V | undefined {
    const changed = this.#changes.get(key);
    return changed !== undefined || this.#changes.has(key) ? changed : this.#base.get(key);
  }

  has(key: K): boolean {
    return this.#base.has(key);
  }

  forEach(fn: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    const changes = this.#changes;
    this.#base.forEach((value, key) => {
      fn.call(thisArg, changes.size > 0 && changes.has(key) ? changes.get(key)! : value, key, this);
    });
  }

  *entries(): MapIterator<[K, V]> {
    for (const [key, value] of this.#base)
      yield [key, this.#changes.has(key) ? this.#changes.get(key)! : value];
  }

  keys(): MapIterator<K> {
    return this.#base.keys();
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'LayeredMap';
  }
}

/** Changed values a layered map holds before they are folded into a new flat map. */
export const MAX_LAYERED = 1024;
