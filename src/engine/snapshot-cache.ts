import type { Snapshot } from '../core/build/snapshot.js';
import { ByteCache } from './byte-cache.js';

// Every cache derived from a snapshot (rendered answers, token counts, fleet
// compositions, appended layer texts, …) lives in ONE byte-bounded LRU with one budget
// (`setCacheBudget`, default `DEFAULT_CACHE_BYTES`), so the service's memory
// for caches stays under that budget whatever clients ask for and however large the
// pack's prompts are. Entries of snapshots that are no longer served are dropped as
// newer entries need the room.

/** The default budget of all snapshot caches together: 64 MiB. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

/** A named cache whose entries belong to a snapshot. */
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

/**
 * A named view of the shared cache. Keys are scoped to the snapshot and the name, so
 * two caches or two snapshots never see each other's entries.
 *
 * @example
 * const counts = snapshotCache<number>('tokens');
 * counts.set(snapshot, hash, 42, 8);
 */
export function snapshotCache<V>(name: string): SnapshotCache<V> {
  // Each snapshot's key prefix (the name's tag and the snapshot's scope), made once per
  // snapshot; short, as a key is hashed on every look-up.
  const tag = tagOf(name);
  const prefixes = new WeakMap<Snapshot, string>();
  const scopedKey = (snapshot: Snapshot, key: string) => {
    let prefix = prefixes.get(snapshot);
    if (prefix === undefined) {
      prefix = `${tag}${scopeOf(snapshot)}\0`;
      prefixes.set(snapshot, prefix);
    }
    return prefix + key;
  };
  return {
    get: (snapshot, key) => shared.get(scopedKey(snapshot, key)) as V | undefined,
    set: (snapshot, key, value, bytes) => {
      const scoped = scopedKey(snapshot, key);
      shared.set(scoped, value, bytes + scoped.length * 2 + ENTRY_OVERHEAD);
    },
    key: scopedKey,
    getKeyed: (scoped) => shared.get(scoped) as V | undefined,
    setKeyed: (scoped, value, bytes) => shared.set(scoped, value, bytes + scoped.length * 2 + ENTRY_OVERHEAD),
  };
}

/** Sets the budget of all snapshot caches together, in bytes (0 disables caching). */
export function setCacheBudget(bytes: number): void {
  shared.maxBytes = bytes;
}

/** The budget and what the snapshot caches hold now. */
export function cacheUsage(): { maxBytes: number; bytes: number; entries: number } {
  return { maxBytes: shared.maxBytes, bytes: shared.bytes, entries: shared.size };
}

// --- internal ---

/** What a Map entry, its record and key costs beyond the value's own bytes (a generous estimate). */
const ENTRY_OVERHEAD = 96;
const shared = new ByteCache<unknown>(DEFAULT_CACHE_BYTES);
const scopes = new WeakMap<Snapshot, number>();
let nextScope = 1;

/** One character per cache name, never a digit (a scope's number follows it): names never meet. */
function tagOf(name: string): string {
  let tag = tags.get(name);
  if (tag === undefined) {
    tag = String.fromCharCode(0x41 + tags.size);
    tags.set(name, tag);
  }
  return tag;
}

const tags = new Map<string, string>();

/** A snapshot's number, the same for every named cache (so keys of two snapshots never meet). */
function scopeOf(snapshot: Snapshot): number {
  let scope = scopes.get(snapshot);
  if (scope === undefined) {
    scope = nextScope++;
    scopes.set(snapshot, scope);
  }
  return scope;
}
