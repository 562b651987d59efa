/**
 * A cache bounded by bytes: each entry is stored with its size, and the least recently
 * used entries are dropped once the sizes add up to more than the budget. A hit moves its
 * entry to the recent end only when the entry is in the older half of the order, so a hot
 * entry costs one look-up per hit while an entry in the newer half is still never dropped
 * before the older half. An entry larger
 * than the whole budget is not kept. Sizes are the caller's estimate of what the entry
 * holds in memory (key included); they only need to be an upper bound for the budget to
 * bound memory.
 *
 * @example
 * const cache = new ByteCache<string>(1024);
 * cache.set('a', 'x'.repeat(100), 200 + 2);
 * cache.get('a'); // 'xxx…'
 */
export class ByteCache<V> {
  #entries = new Map<string, Entry<V>>();
  /**
   * The entries from least to most recently used, linked (`older`, `newer`): dropping the
   * least recently used is one step. (Iterating the map from its start would step over
   * every entry deleted since the map last compacted itself: with entries stored and
   * dropped in turn, a store cost as many steps as the cache holds entries.)
   */
  #oldest: Entry<V> | undefined;
  #newest: Entry<V> | undefined;
  #bytes = 0;
  /** Increases with every store and move: the entries' ticks increase from oldest to newest. */
  #tick = 0;
  #maxBytes: number;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The budget in bytes; lowering it drops entries at once. */
  get maxBytes(): number {
    return this.#maxBytes;
  }

  set maxBytes(bytes: number) {
    this.#maxBytes = bytes;
    this.#evict();
  }

  /** Bytes held (the sum of the entries' sizes). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Entries held. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value for a key, marking it recently used. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // At most `tick - entry.tick` entries follow it: within the newer half it stays put.
    if (this.#tick - entry.tick > this.#entries.size >> 1) {
      this.#unlink(entry);
      entry.tick = ++this.#tick;
      this.#append(entry);
    }
    return entry.value;
  }

  /** Stores a value with its size in bytes, dropping the least recently used entries over the budget. */
  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.#maxBytes) return;
    const entry: Entry<V> = { key, value, bytes, tick: ++this.#tick, older: undefined, newer: undefined };
    this.#entries.set(key, entry);
    this.#append(entry);
    this.#bytes += bytes;
    this.#evict();
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#unlink(entry);
    this.#bytes -= entry.bytes;
  }

  clear(): void {
    this.#entries.clear();
    this.#oldest = undefined;
    this.#newest = undefined;
    this.#bytes = 0;
  }

  // --- internal ---

  #evict(): void {
    while (this.#bytes > this.#maxBytes && this.#oldest !== undefined) {
      const entry = this.#oldest;
      this.#entries.delete(entry.key);
      this.#unlink(entry);
      this.#bytes -= entry.bytes;
    }
  }

  #append(entry: Entry<V>): void {
    entry.older = this.#newest;
    entry.newer = undefined;
    if (this.#newest) this.#newest.newer = entry;
    else this.#oldest = entry;
    this.#newest = entry;
  }

  #unlink(entry: Entry<V>): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.#oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.#newest = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }
}

/** One kept value, linked to its neighbours in the order of use. */
interface Entry<V> {
  readonly key: string;
  value: V;
  bytes: number;
  tick: number;
  older: Entry<V> | undefined;
  newer: Entry<V> | undefined;
}

/** Bytes a string may occupy in memory (two per UTF-16 unit: an upper bound). */
export function stringBytes(s: string): number {
  return s.length * 2;
}
