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
  #entries = new Map<string, { value: V; bytes: number; tick: number }>();
  #bytes = 0;
  /** Increases with every store and move: the entries' ticks increase in the map's order. */
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
      this.#entries.delete(key);
      entry.tick = ++this.#tick;
      this.#entries.set(key, entry);
    }
    return entry.value;
  }

  /** Stores a value with its size in bytes, dropping the least recently used entries over the budget. */
  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.#maxBytes) return;
    this.#entries.set(key, { value, bytes, tick: ++this.#tick });
    this.#bytes += bytes;
    this.#evict();
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  // --- internal ---

  #evict(): void {
    if (this.#bytes <= this.#maxBytes) return;
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(key);
      this.#bytes -= entry.bytes;
    }
  }
}

/** Bytes a string may occupy in memory (two per UTF-16 unit: an upper bound). */
export function stringBytes(s: string): number {
  return s.length * 2;
}
