import type { Snapshot } from '../core/build/snapshot-types.js';
import { ByteCache } from './byte-cache.js';

// Every cache an engine keeps of a snapshot (composed outcomes, rendered answers, token
// counts, fleet compositions, …) lives in ONE byte-bounded LRU with one budget (the
// engine's `cacheBytes`, default `DEFAULT_CACHE_BYTES`), so memory for caches stays under
// that budget whatever clients ask for and however large the pack's prompts are. Entries
// of snapshots that are no longer served are dropped as newer entries need the room.

/** The default budget of all of an engine's caches together: 64 MiB. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

/** A named view of an engine's cache whose entries belong to a snapshot. */
export interface SnapshotCache<V> {
  get(snapshot: Snapshot, key: string): V | undefined;
  /** Stores a value; `bytes` is an upper bound of the memory it holds (the key is added). */
  set(snapshot: Snapshot, key: string, value: V, bytes: number): void;
  /** The full key of an entry, for a look-up followed by a store without making it twice. */
  key(snapshot: Snapshot, key: string): string;
  /** `get` by a full key from {@link SnapshotCache.key}. */
  getKeyed(key: string): V | undefined;
  /** `set` by a full key from {@link SnapshotCache.key}. */
  setKeyed(key: string, value: V, bytes: number): void;
}

/** What a cache holds now, against its budget. */
export interface CacheUsage {
  maxBytes: number;
  bytes: number;
  entries: number;
}

/**
 * One engine's byte-bounded cache of snapshot-derived values, shared by named views.
 *
 * @example
 * const cache = new EngineCache(8 * 1024 * 1024);
 * const counts = cache.view<number>('tokens');
 * counts.set(snapshot, hash, 42, 8);
 */
export class EngineCache {
  #lru: ByteCache<unknown>;
  #scopes = new WeakMap<Snapshot, number>();
  #nextScope = 1;
  #tags = new Map<string, string>();
  #views = new Map<string, SnapshotCache<unknown>>();

  constructor(maxBytes = DEFAULT_CACHE_BYTES) {
    this.#lru = new ByteCache<unknown>(maxBytes);
  }

  /** The budget in bytes (0 keeps nothing); lowering it drops entries at once. */
  get maxBytes(): number {
    return this.#lru.maxBytes;
  }

  set maxBytes(bytes: number) {
    this.#lru.maxBytes = bytes;
  }

  /** The budget and what the cache holds now. */
  usage(): CacheUsage {
    return { maxBytes: this.#lru.maxBytes, bytes: this.#lru.bytes, entries: this.#lru.size };
  }

  /**
   * A named view. Keys are scoped to the snapshot and the name, so two views or two
   * snapshots never see each other's entries. The same name gives the same view.
   */
  view<V>(name: string): SnapshotCache<V> {
    let view = this.#views.get(name);
    if (view === undefined) {
      view = this.#makeView<unknown>(name);
      this.#views.set(name, view);
    }
    return view as SnapshotCache<V>;
  }

  // --- internal ---

  #makeView<V>(name: string): SnapshotCache<V> {
    // Each snapshot's key prefix (the name's tag and the snapshot's scope), made once per
    // snapshot; short, as a key is hashed on every look-up.
    const tag = this.#tagOf(name);
    const prefixes = new WeakMap<Snapshot, string>();
    const lru = this.#lru;
    const scopedKey = (snapshot: Snapshot, key: string) => {
      let prefix = prefixes.get(snapshot);
      if (prefix === undefined) {
        prefix = `${tag}${this.#scopeOf(snapshot)}\0`;
        prefixes.set(snapshot, prefix);
      }
      return prefix + key;
    };
    return {
      get: (snapshot, key) => lru.get(scopedKey(snapshot, key)) as V | undefined,
      set: (snapshot, key, value, bytes) => {
        const scoped = scopedKey(snapshot, key);
        lru.set(scoped, value, bytes + scoped.length * 2 + ENTRY_OVERHEAD);
      },
      key: scopedKey,
      getKeyed: (scoped) => lru.get(scoped) as V | undefined,
      setKeyed: (scoped, value, bytes) => lru.set(scoped, value, bytes + scoped.length * 2 + ENTRY_OVERHEAD),
    };
  }

  /** One character per view name, never a digit (a scope's number follows it): names never meet. */
  #tagOf(name: string): string {
    let tag = this.#tags.get(name);
    if (tag === undefined) {
      tag = String.fromCharCode(0x41 + this.#tags.size);
      this.#tags.set(name, tag);
    }
    return tag;
  }

  /** A snapshot's number, the same for every view (so keys of two snapshots never meet). */
  #scopeOf(snapshot: Snapshot): number {
    let scope = this.#scopes.get(snapshot);
    if (scope === undefined) {
      scope = this.#nextScope++;
      this.#scopes.set(snapshot, scope);
    }
    return scope;
  }
}

/** What a Map entry, its record and key costs beyond the value's own bytes (a generous estimate). */
const ENTRY_OVERHEAD = 96;
