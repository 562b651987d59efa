// A memo hit of a request with settings or vars, without its canonical key. The general
// key (`requestKey`) costs about as much as the rest of a hit: every field quoted and
// joined, then the fresh string hashed by the map. The requests a service sees again are
// few per agent, so the memo also keeps, under a short key of the request's names, the
// last few such requests it answered: a plain copy of each with its full key. A request
// equal, field by field, to one of them has that full key, whose hash the map keeps.

/** A request the memo answered, copied, with its full key in the cache. */
export interface RecentRequest {
  /** The request's defined fields, deeply copied (plain objects and arrays, primitives). */
  readonly copy: Readonly<Record<string, unknown>>;
  /** How many defined fields the request has. */
  readonly fields: number;
  /** The request's full key in the cache (`SnapshotCache.key`). */
  readonly key: string;
}

/** How many requests are kept under one short key: the newest first. */
export const RECENT_PER_NAMES = 8;

/**
 * The short key of a request: its three names, each followed by U+0000 (absent: U+0001),
 * then U+0002, so it never meets a full key (names keys end with U+0000 or U+0001, general
 * ones with `;`). Undefined when a name is there but is not a string (such a request is
 * refused by compose; it is looked up by its full key).
 */
export function recentKey(request: { role?: unknown; team?: unknown; agent?: unknown }): string | undefined {
  const { role, team, agent } = request;
  if (role !== undefined && typeof role !== 'string') return undefined;
  if (team !== undefined && typeof team !== 'string') return undefined;
  if (agent !== undefined && typeof agent !== 'string') return undefined;
  return `${role === undefined ? '\u0001' : `${role}\u0000`}${team === undefined ? '\u0001' : `${team}\u0000`}${agent === undefined ? '\u0001' : `${agent}\u0000`}\u0002`;
}

/** The full key of the recent request equal to `request`, if one is. */
export function findRecent(recent: readonly RecentRequest[], request: object): string | undefined {
  for (const r of recent) if (sameRequest(request, r)) return r.key;
  return undefined;
}

/**
 * `recent` with `request` (known by `key`) first, and at most {@link RECENT_PER_NAMES}
 * entries; the bytes it holds (an upper bound: the copy holds no more characters than the
 * key, which quotes every value).
 */
export function withRecent(
  recent: readonly RecentRequest[] | undefined,
  request: object,
  key: string,
): { recent: RecentRequest[]; bytes: number } {
  // Objects without a prototype: a field named `__proto__` is a field like any other.
  const copy: Record<string, unknown> = Object.create(null);
  let fields = 0;
  // `for…in` also sees inherited fields, as compose and the full key do.
  for (const name in request) {
    const value = (request as Record<string, unknown>)[name];
    if (value === undefined) continue;
    copy[name] = plainCopy(value);
    fields++;
  }
  const next = [{ copy, fields, key }];
  for (const r of recent ?? []) {
    if (next.length >= RECENT_PER_NAMES) break;
    if (r.key !== key) next.push(r);
  }
  let bytes = 64;
  // The key's characters (two bytes each) once in the list, its copy's values at most as
  // many again, plus each value's own object.
  for (const r of next) bytes += r.key.length * 4 + 64 * (r.fields + 1) + 64;
  return { recent: next, bytes };
}

// --- internal ---

/**
 * Whether a request has the same defined fields as a kept one, with equal values: equal
 * primitives, arrays of equal items, plain objects with the same defined keys. Stricter
 * than the full key (NaN is never equal; an object that is not plain never is), so two
 * requests found equal here always have the same full key.
 */
function sameRequest(request: object, kept: RecentRequest): boolean {
  let fields = 0;
  for (const name in request) {
    const value = (request as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (!sameValue(value, kept.copy[name], 0)) return false;
    fields++;
  }
  return fields === kept.fields;
}

/** How deep two values are compared; deeper ones are not equal (the full key decides). */
const MAX_DEPTH = 32;

function sameValue(a: unknown, b: unknown, depth: number): boolean {
  if (typeof a !== 'object' || a === null) return a === b && typeof a !== 'function';
  if (typeof b !== 'object' || b === null || depth >= MAX_DEPTH) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (i in a !== i in b || !sameValue(a[i], b[i], depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const proto = Object.getPrototypeOf(a);
  if (proto !== Object.prototype && proto !== null) return false;
  let keys = 0;
  for (const name of Object.keys(a)) {
    const value = (a as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (!Object.hasOwn(b, name) || !sameValue(value, (b as Record<string, unknown>)[name], depth + 1))
      return false;
    keys++;
  }
  return keys === (b as Counted)[KEYS];
}

/** A copied object's number of keys, kept on it (a symbol: no key sees it). */
const KEYS = Symbol('keys');
type Counted = { [KEYS]: number };

/** A deep copy of a value the full key took: plain objects and arrays copied, the rest as it is. */
function plainCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) if (i in value) copy[i] = plainCopy(value[i]);
    return copy;
  }
  const copy: Record<string, unknown> = Object.create(null);
  let keys = 0;
  for (const name of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[name];
    if (v === undefined) continue;
    copy[name] = plainCopy(v);
    keys++;
  }
  (copy as Counted)[KEYS] = keys;
  return copy;
}
