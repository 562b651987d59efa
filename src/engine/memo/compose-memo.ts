import type { Snapshot } from '../../core/build/snapshot-types.js';
import type { EngineCache, SnapshotCache } from '../cache.js';
import { findRecent, type RecentRequest, recentKey, withRecent } from './recent-requests.js';

// The compose memo: a snapshot never changes and compose is pure, so the outcome of a
// (snapshot, request) pair is computed once and shared. Entries live in the engine's one
// byte-bounded cache (with the service's rendered answers and token counts), and shared
// outcomes are frozen (by `freeze`, deeply), so no caller can change what the next one gets.

/**
 * An engine's memo of compose outcomes.
 *
 * @example
 * const memo = new ComposeMemo(cache);
 * const outcome = memo.outcome(snapshot, request, tryCompose, sizeOf, freezeOutcome);
 */
export class ComposeMemo {
  #cache: EngineCache;
  #memo: SnapshotCache<object>;
  /** Snapshots some request of which was kept under its short key (see `recent-requests.ts`). */
  #withRecent = new WeakSet<Snapshot>();

  constructor(cache: EngineCache) {
    this.#cache = cache;
    this.#memo = cache.view<object>('compose');
  }

  /**
   * The memoised outcome of `compute` for a snapshot and request: computed (and frozen) on
   * the first call, the same frozen object on later calls while the cache keeps it. The
   * key covers every field of the request, canonically (key order does not matter).
   * Requests with `ambient` text are not memoised (computed and frozen on every call).
   */
  outcome<Q extends object, R extends object>(
    snapshot: Snapshot,
    request: Q,
    compute: (snapshot: Snapshot, request: Q) => R,
    bytes: (outcome: R, snapshot: Snapshot) => number,
    freeze: (outcome: R, snapshot: Snapshot) => R,
  ): R {
    // A request with ambient text is composed every time, as the service's render cache
    // does: that text is one-off and the client's (up to a whole request body), so keying
    // on it would copy and compare it on every call and let one client evict everyone's
    // entries.
    if ((request as { ambient?: unknown }).ambient !== undefined || this.#cache.maxBytes === 0)
      return freeze(compute(snapshot, request), snapshot);
    const names = namesKey(request);
    if (names !== undefined)
      return this.#keyed(this.#memo.key(snapshot, names), snapshot, request, compute, bytes, freeze);
    // A request with settings or vars: first among the few kept under its short key (its
    // names and values as written), compared field by field; its canonical key only when
    // none is equal to it (then the outcome is shared by every way of writing the request).
    // No short key is looked up on a snapshot none of whose requests was asked twice (a
    // fresh one: a reload's, a CLI call's).
    const recentOn = this.#withRecent.has(snapshot);
    let recentAt: string | undefined;
    let recent: RecentRequest[] | undefined;
    if (recentOn) {
      const short = recentKey(request);
      recentAt = short === undefined ? undefined : this.#memo.key(snapshot, short);
      recent =
        recentAt === undefined ? undefined : (this.#memo.getKeyed(recentAt) as RecentRequest[] | undefined);
      const known = recent === undefined ? undefined : findRecent(recent, request);
      if (known !== undefined) return known as R;
    }
    const fields = generalKey(request);
    // A value with no canonical form (a cycle, a Date, deep nesting) is composed every time.
    if (fields === undefined) return freeze(compute(snapshot, request), snapshot);
    const key = this.#memo.key(snapshot, fields);
    const hit = this.#memo.getKeyed(key) as R | undefined;
    if (hit === undefined) {
      // Asked once so far: kept under its full key only (most one-off requests stay so).
      const outcome = freeze(compute(snapshot, request), snapshot);
      this.#memo.setKeyed(key, outcome, bytes(outcome, snapshot));
      return outcome;
    }
    // Asked again: kept under its short key too, for the next time.
    if (!recentOn) {
      const short = recentKey(request);
      recentAt = short === undefined ? undefined : this.#memo.key(snapshot, short);
    }
    if (recentAt !== undefined) {
      const next = withRecent(recent, request, hit, bytes(hit, snapshot));
      this.#memo.setKeyed(recentAt, next.recent, next.bytes);
      this.#withRecent.add(snapshot);
    }
    return hit;
  }

  /** The outcome kept under a full key, computed and kept when there is none. */
  #keyed<Q extends object, R extends object>(
    key: string,
    snapshot: Snapshot,
    request: Q,
    compute: (snapshot: Snapshot, request: Q) => R,
    bytes: (outcome: R, snapshot: Snapshot) => number,
    freeze: (outcome: R, snapshot: Snapshot) => R,
  ): R {
    const hit = this.#memo.getKeyed(key) as R | undefined;
    if (hit !== undefined) return hit;
    const outcome = freeze(compute(snapshot, request), snapshot);
    this.#memo.setKeyed(key, outcome, bytes(outcome, snapshot));
    return outcome;
  }
}

/**
 * A canonical key for a request: every field, object keys sorted, values JSON-quoted (so
 * parts cannot run into each other); undefined fields are left out, as absent ones. A
 * request of names only (the usual one) has a shorter key (see {@link namesKey}): the two
 * forms never meet, as one ends with `;` and the other never does. Undefined for a request
 * holding a value with no canonical form: a function, a symbol, an object that is no plain
 * object or array (a Date, a Map), or one nested deeper than {@link MAX_KEY_NESTING} (a
 * cycle too).
 */
export function requestKey(request: object): string | undefined {
  return namesKey(request) ?? generalKey(request);
}

/** {@link requestKey} of a request that is not of names only. */
function generalKey(request: object): string | undefined {
  try {
    return fieldsKey(request);
  } catch (e) {
    if (e === NO_KEY) return undefined;
    throw e;
  }
}

/** How deep a request's values may nest and still be memoised. */
export const MAX_KEY_NESTING = 128;

// --- internal ---

/**
 * The key of a request whose only fields are `role`, `team` and `agent` (strings without
 * the characters U+0000 and U+0001; undefined ones count as absent): each of the three
 * in this order, as its value followed by U+0000, or U+0001 when absent. Undefined for
 * any other request. Made without a list of keys, and short (cheap to look up).
 */
function namesKey(request: object): string | undefined {
  let role: string | undefined;
  let team: string | undefined;
  let agent: string | undefined;
  // `for…in` also sees inherited fields, which compose reads too (`request.role`).
  for (const name in request) {
    const value = (request as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !plainName(value)) return undefined;
    if (name === 'role') role = value;
    else if (name === 'team') team = value;
    else if (name === 'agent') agent = value;
    else return undefined;
  }
  return `${nameKey(role)}${nameKey(team)}${nameKey(agent)}`;
}

function nameKey(value: string | undefined): string {
  return value === undefined ? '\u0001' : `${value}\u0000`;
}

/** Whether a string holds neither U+0000 nor U+0001 (one pass). */
function plainName(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) < 2) return false;
  return true;
}

/** The general key: `name=value;` for each field (inherited ones too, as compose reads them), names sorted. */
function fieldsKey(request: object): string {
  // Most requests list their fields in order: one pass, no list of names.
  let key = '';
  let last: string | undefined;
  for (const name in request) {
    if (last !== undefined && last > name) return sortedFieldsKey(request);
    last = name;
    const value = (request as Record<string, unknown>)[name];
    if (value !== undefined) key += `${name}=${canonical(value, 0)};`;
  }
  return key;
}

/** {@link fieldsKey} for a request whose fields are not in order. */
function sortedFieldsKey(request: object): string {
  const names: string[] = [];
  for (const name in request) names.push(name);
  names.sort();
  let key = '';
  for (const name of names) {
    const value = (request as Record<string, unknown>)[name];
    if (value !== undefined) key += `${name}=${canonical(value, 0)};`;
  }
  return key;
}

/** An object's keys in sorted order (most requests already list them so: no sort then). */
function sortedKeys(value: object): string[] {
  return inOrder(Object.keys(value));
}

/** Names sorted in place, when they are not in order already; returns them. */
function inOrder(names: string[]): string[] {
  for (let i = 1; i < names.length; i++) if (names[i - 1]! > names[i]!) return names.sort();
  return names;
}

/** Whether a string holds no quote and no backslash (one pass). */
function plainString(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

/** A string JSON-quoted: as it is when it holds no quote and no backslash (then the two forms never meet). */
function quoted(value: string): string {
  return plainString(value) ? `"${value}"` : JSON.stringify(value);
}

/** Thrown by {@link canonical} for a value with no canonical form. */
const NO_KEY = Symbol('no canonical key');

function canonical(value: unknown, depth: number): string {
  // A string without quotes or backslashes is quoted as it is; any other is JSON-escaped
  // (so it holds a backslash): the two forms never meet.
  if (typeof value === 'string') return quoted(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function' || typeof value === 'symbol') throw NO_KEY;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (depth >= MAX_KEY_NESTING) throw NO_KEY;
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, depth + 1)).join(',')}]`;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw NO_KEY;
  let out = '{';
  for (const name of sortedKeys(value)) {
    const v = (value as Record<string, unknown>)[name];
    if (v !== undefined) out += `${quoted(name)}:${canonical(v, depth + 1)},`;
  }
  return `${out}}`;
}
